"""What each MCP tool does, without the SDK: one identity in, a bounded JSON-able dict out.

Every tool reads the catalog only through the identity's role view (access.Visible), and every
"can't find it" answer is the same text whether the object is hidden or does not exist, with nothing
of the caller's input echoed back, so a tool cannot be used to probe for hidden objects.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Any

from core.answer.ask import Question, ask
from core.answer.conversation import Conversations, follow
from core.answer.intents.compare import diff
from core.answer.intents.review import review_queue, steward_scope
from core.answer.steward import ask_as_steward, grants, queue_day, steward_view
from core.catalog import history
from core.catalog.access import Visible
from core.catalog.entities import Entity
from core.catalog.envelope import NOT_FOUND, Behavior, CatalogState, Envelope, EvidenceRef, TraceStep
from core.catalog.store import Store
from core.catalog.text import words
from core.compute.engine import ValueEngine
from core.explain.explain import cache_for, explain
from core.explain.headline import with_headline
from core.read.dates.day_range import check_day, check_time
from core.read.dates.written import parse_period
from core.resolve import lineage as lineage_mod
from core.resolve.columns import trace_column
from core.resolve.freshness import source_freshness
from core.resolve.versions import backing_model, by_version, governing_versions, in_effect, interval_text, version_name
from core.retrieve.search import Searcher
from core.serve import audit
from core.serve.mcp_auth import Identity
from core.settings import budget
from core.settings.config import Settings

MAX_ITEMS = 25     # per list in a tool result
MAX_TEXT = 2000    # characters per text field
MAX_METRICS = 50   # list_metrics rows
MAX_DEPTH = 10     # lineage hops either way


class ToolInputError(ValueError):
    """A malformed argument: reported to the caller as a tool error naming the argument."""


@dataclass
class Catalog:
    """The open catalog a server answers from."""
    store: Store
    searcher: Searcher | None
    settings: Settings

    scopes: dict = field(default_factory=dict, repr=False)  # (role, day) -> a steward's review queue
    engine: ValueEngine | None = None  # computes metric values (metric_value); None: no warehouse configured
    # Where the deployment's audit log and explanation cache live (CatalogHolder.db_path): for a replica a stable
    # path outside the revision folders, which switches and prunes replace; None: beside the catalog file.
    home: Path | None = None

    @property
    def db_path(self) -> Path:
        return self.home or self.store.path

    def scope(self, who: Identity):
        """A steward's review scope (None for any other role), built once per role and queue day."""
        key = (who.role, queue_day(self.store))
        if key not in self.scopes:
            self.scopes[key] = steward_scope(self.store, who.role, key[1])
        return self.scopes[key]

    def view(self, who: Identity) -> Visible:
        """The principal's view: its role's objects, plus its review queue for a steward (core/answer/steward.py)."""
        return steward_view(self.store, who.role, self.scope(who))


def bound(value: Any, notes: list[str], path: str = "$", max_items: int = MAX_ITEMS, max_text: int = MAX_TEXT):
    """Cut long lists and texts so one result stays a few thousand tokens; each cut is noted by its path."""
    if isinstance(value, str) and len(value) > max_text:
        notes.append(f"{path}: text cut to {max_text} of {len(value)} characters")
        return value[:max_text] + " [...]"
    if isinstance(value, list):
        if len(value) > max_items:
            notes.append(f"{path}: first {max_items} of {len(value)} items")
            value = value[:max_items]
        return [bound(v, notes, f"{path}[{i}]", max_items, max_text) for i, v in enumerate(value)]
    if isinstance(value, dict):
        return {k: bound(v, notes, f"{path}.{k}", max_items, max_text) for k, v in value.items()}
    return value


def result(who: Identity, body: dict) -> dict:
    notes: list[str] = []
    out = {"answered_as": {"principal": who.principal, "role": who.role, "resolved": who.resolved},
           **bound(body, notes)}
    if notes:
        out["truncated"] = notes[:MAX_ITEMS] + ([f"... and {len(notes) - MAX_ITEMS} more cuts"]
                                               if len(notes) > MAX_ITEMS else [])
    return out


Answer = tuple[dict, Envelope]  # the tool's result, and the envelope its audit record is made from


def envelope(cat: Catalog, who: Identity, tool: str, behavior: str, verdict: str, **kw) -> Envelope:
    """An envelope for a tool that is not `ask`: what it returned, so its audit record hashes exactly that."""
    ingest = history.current_ingest(cat.store)  # tools other than ask read today's catalog only
    view = cat.view(who)
    revision = view.revision  # the role's own: changes to hidden objects leave it as it is
    state = CatalogState(ingest=ingest, revision=revision, current_ingest=ingest,
                         current_revision=revision, acl_ingest=ingest)
    return Envelope(behavior=Behavior(behavior), role=who.role, evaluated_at=datetime.now(timezone.utc),
                    verdict=verdict, catalog_revision=revision, recorded=state, granted=sorted(view.grants),
                    trace=[TraceStep(rule="mcp tool", detail=f"{tool} as {who.who}")], **kw)


def answer(cat: Catalog, who: Identity, tool: str, body: dict, **kw) -> Answer:
    env = envelope(cat, who, tool, body.get("behavior", "answer"), body.get("verdict", ""), **kw)
    return result(who, body), env


def not_found(cat: Catalog, who: Identity, tool: str) -> Answer:
    """Identical for a hidden object and a made-up one; the caller's input is deliberately not echoed."""
    return answer(cat, who, tool, {"behavior": "not_found_or_not_authorized", "verdict": NOT_FOUND})


def _ambiguous(cat: Catalog, who: Identity, tool: str, found: list[Entity]) -> Answer:
    return answer(cat, who, tool, {
        "behavior": "clarify", "verdict": "That name matches several things. Which one do you mean?",
        "options": [{"entity_id": e.entity_id, "label": e.label, "kind": e.role} for e in found]})


def _period(value: str | None) -> tuple[date, date] | None:
    if not value:
        return None
    try:
        return parse_period(value)
    except ValueError as exc:
        raise ToolInputError(f"argument 'period': {exc}") from None


def _day(value: date | None, arg: str = "date") -> date | None:
    """The CLI's check (core/read/dates/day_range.py): a day AsOf does not answer for is refused, not overflowed."""
    if value is None:
        return None
    try:
        return check_day(value)
    except ValueError as exc:
        raise ToolInputError(f"argument '{arg}': {exc}") from None


def _utc(at: datetime | None) -> datetime:
    at = at or datetime.now(timezone.utc)
    return at if at.tzinfo else at.replace(tzinfo=timezone.utc)


def _time(value: datetime | None, arg: str = "at") -> datetime | None:
    """An evaluation or recorded-at time the caller gave, refused as the CLI refuses it when it is out of range."""
    if value is None:
        return None
    try:
        return check_time(value, "recorded-at time" if arg == "recorded_at" else "evaluation time")
    except ValueError as exc:
        raise ToolInputError(f"argument '{arg}': {exc}") from None


TOPIC_ROLES = ("metric", "model", "source")


def find_entity(view: Visible, name: str, roles: tuple[str, ...] = TOPIC_ROLES) -> Entity | list[Entity] | None:
    """A visible entity by id, by the id of one of its objects, or by an exact name or alias.
    Several entities sharing the name come back as a list (the caller asks back); none -> None."""
    name = (name or "").strip()
    if not name:
        raise ToolInputError("argument 'entity': give an entity id (see list_metrics) or its name")
    ents = view.entities
    ent = ents.get(name)
    if ent is None:
        owner = next((e.entity_id for e in view.by_ids([name]) if e.evidence_id == name), None)
        ent = ents.get(owner) if owner else None
    if ent is not None:
        return ent if ent.role in roles else None
    ids = sorted(i for i in view.phrases.get(tuple(words(name)), set()) if ents[i].role in roles)
    if len(ids) == 1:
        return ents[ids[0]]
    return [ents[i] for i in ids] or None


def _entity(cat: Catalog, who: Identity, tool: str, name: str,
            roles: tuple[str, ...] = TOPIC_ROLES) -> tuple[Visible, Entity | Answer]:
    """The caller's view and the one entity a tool argument names in it, or instead of the entity the
    answer saying it is not found or which visible entities it could mean."""
    view = cat.view(who)
    found = find_entity(view, name, roles)
    if found is None:
        return view, not_found(cat, who, tool)
    if isinstance(found, list):
        return view, _ambiguous(cat, who, tool, found)
    return view, found


def _explained(cat: Catalog, who: Identity, env: Envelope, question: str) -> Envelope:
    # Citations are checked against the state that answered (a past state for recorded_at), as the CLI does.
    env.explanation = explain(env, question, history.view_for(cat.store, env).visible_ids, cat.settings.llm_model,
                              cat.settings.llm_timeout_s, cache_for(cat.db_path))
    return env


def ask_tool(cat: Catalog, who: Identity, question: str, day: date | None, period: str | None,
             at: datetime | None, recorded_at: datetime | None, conversation: str | None = None,
             memory: Conversations | None = None) -> tuple[Answer, dict]:
    """The answer (with its envelope), and the audit inputs a follow-up adds (what it carried, so a replay asks it again).
    With a `conversation` id, a question naming no subject continues from that conversation's last answer for the
    same principal and role (core/answer/conversation.py)."""
    if not question or not question.strip():
        raise ToolInputError("argument 'question': must not be empty")
    if budget.too_long(question):
        raise ToolInputError(f"argument 'question': {budget.too_long(question)}")
    if day and period:
        raise ToolInputError("give either 'date' or 'period', not both")
    day, at, recorded_at = _day(day), _time(at), _time(recorded_at, "recorded_at")
    scope = cat.scope(who)
    if conversation is not None and not (0 < len(conversation) <= 200):
        raise ToolInputError("argument 'conversation': 1-200 characters")
    q = Question(role=who.role, text=question, day=day, period=_period(period), at=at, recorded_at=recorded_at,
                 grants=grants(scope))
    remembers = conversation is not None and memory is not None
    last = memory.last(who.subject, conversation) if remembers else None
    # Values are computed as metric_value computes them when the server has a warehouse: "what was X in Q2?" asked
    # of `ask` gets the number, as on the page.
    q, env, turn = follow(q, last, who.subject,
                          lambda asked: ask_as_steward(cat.store, asked, scope, searcher=cat.searcher,
                                                       engine=cat.engine)[0])
    if remembers:
        memory.remember(who.subject, conversation, turn)
    env = _explained(cat, who, env, question)
    # The Ask page's and the CLI's headline, so an assistant relays the same yes / no / verdict a person reads.
    with_headline(env)
    body = {"headline": env.headline, "envelope": env.model_dump(mode="json", exclude_none=True)}
    return (result(who, body), env), (audit.inputs_of(q) if q.carried else {})


GRAINS = ("month", "quarter", "year")


def metric_value_tool(cat: Catalog, who: Identity, entity: str, period: str, grain: str | None,
                      restate_under: str | None, at: datetime | None) -> tuple[Answer, dict]:
    """A metric's value over a period, computed with the version in effect on each part of it (an `ask` with the
    entity and period fixed, so it is audited and replays as one). Also returns the audit inputs."""
    tool = "metric_value"
    if not period or not period.strip():
        raise ToolInputError("argument 'period': give START..END (inclusive end), e.g. 2024-04-01..2024-06-30")
    span, at = _period(period), _time(at)
    if grain is not None and grain not in GRAINS:
        raise ToolInputError(f"argument 'grain': one of {', '.join(GRAINS)}, got {grain!r}")
    under = ""
    if restate_under:
        label = restate_under.strip()
        if label.lower() in ("today", "current", "today's"):
            under = " under today's definition"
        elif label.lstrip("vV").replace(".", "").isdigit():
            under = f" under v{label.lstrip('vV')} definition"
        else:
            raise ToolInputError("argument 'restate_under': 'today' or a version such as '2' or 'v2'")
    found = _entity(cat, who, tool, entity, ("metric",))[1]
    if not isinstance(found, Entity):
        return found, {}
    question = f"How much was {found.label}" + (f" by {grain}" if grain else "") + under + "?"
    scope = cat.scope(who)
    q = Question(role=who.role, text=question, period=span, at=at, entity=found.entity_id, grants=grants(scope))
    env = ask_as_steward(cat.store, q, scope, engine=cat.engine)[0]
    body: dict = {"headline": with_headline(env).headline, "behavior": env.behavior.value, "verdict": env.verdict,
                  "entity_id": env.entity_id,
                  "period": {"start": span[0].isoformat(), "end_exclusive": span[1].isoformat()}, "notes": env.notes}
    if env.values is not None:
        body["values"] = env.values.model_dump(mode="json", exclude_none=True)
    return (result(who, body), env), {"question": question, "entity": found.entity_id, "period": period, "at": at}


def list_metrics_tool(cat: Catalog, who: Identity, topic: str | None) -> Answer:
    view = cat.view(who)
    metrics = sorted((e for e in view.entities.values() if e.role == "metric"), key=lambda e: e.entity_id)
    if topic and topic.strip():
        wanted = set(words(topic))
        metrics = [e for e in metrics if wanted & ({w for n in e.names for w in n} | set(words(e.entity_id)))]
    rows = []
    for ent in metrics[:MAX_METRICS]:
        versions = governing_versions(view.entity_objects(ent.entity_id), ent.role)
        rows.append({"entity_id": ent.entity_id, "label": ent.label,
                     "names": sorted({" ".join(n) for n in ent.names})[:8],
                     "versions": [{"version": version_name(v), "evidence_id": v.evidence_id,
                                   "effective": interval_text(v)} for v in versions]})
    body = {"behavior": "answer", "verdict": f"{len(metrics)} metric(s) you may see"
            + (" match the topic" if topic else ""), "count": len(metrics), "metrics": rows}
    if len(metrics) > MAX_METRICS:
        body["note"] = f"showing the first {MAX_METRICS} of {len(metrics)}; pass a topic to narrow"
    return answer(cat, who, "list_metrics", body)


def get_definition_tool(cat: Catalog, who: Identity, entity: str, day: date | None,
                        recorded_at: datetime | None) -> tuple[Answer, dict]:
    """Also returns the audit inputs: a definition is an `ask` with the entity fixed, so it replays as one."""
    day, recorded_at = _day(day), _time(recorded_at, "recorded_at")
    found = _entity(cat, who, "get_definition", entity)[1]
    if not isinstance(found, Entity):
        return found, {}
    question = f"What is the definition of {found.label}?"
    # The steward's queue, as `_entity` found the name through it: else a queue object is found, then not-found.
    env = ask(cat.store, Question(role=who.role, text=question, day=day, entity=found.entity_id,
                                  recorded_at=recorded_at, grants=grants(cat.scope(who))), searcher=cat.searcher)
    body = {"behavior": env.behavior.value, "verdict": env.verdict, "entity_id": env.entity_id,
            "reporting_date": env.reporting_date.isoformat() if env.reporting_date else None,
            "definition": [s.model_dump(mode="json", exclude_none=True) for s in env.selected
                           if s.role_in_answer in ("definition", "overlap")],
            "backing_model": [s.model_dump(mode="json", exclude_none=True) for s in env.selected
                              if s.role_in_answer == "model"],
            "conflicts": [{"evidence_id": c.evidence_id, "title": c.title, "label": c.label, "why": c.why}
                          for c in env.conflicts],
            "notes": env.notes}
    if env.clarify:
        body["clarify"] = env.clarify.model_dump(mode="json", exclude_none=True)
    if env.other_versions:  # no date given: answered for today; these governed other dates (ask with one's date)
        body["other_versions"] = [o.model_dump(mode="json", exclude_none=True) for o in env.other_versions]
    if env.splits:
        body["splits"] = [s.model_dump(mode="json", exclude_none=True) for s in env.splits]
    if env.recorded and env.recorded.recorded_at:
        body["recorded"] = env.recorded.model_dump(mode="json", exclude_none=True)
    return (result(who, body), env), {"question": question, "entity": found.entity_id, "date": day,
                                      "recorded_at": recorded_at}


def compare_versions_tool(cat: Catalog, who: Identity, entity: str, version_a: str | None,
                          version_b: str | None) -> Answer:
    tool = "compare_versions"
    view, found = _entity(cat, who, tool, entity, ("metric", "model"))
    if not isinstance(found, Entity):
        return found
    versions = sorted(governing_versions(view.entity_objects(found.entity_id), found.role),
                      key=lambda v: (v.valid_from or date.min, v.evidence_id))
    names = [version_name(v) for v in versions]
    if len(versions) < 2:
        return answer(cat, who, tool, {
            "behavior": "abstain", "entity_id": found.entity_id, "versions": names,
            "verdict": f"{found.label} has {len(versions)} authoritative version(s) you may see; there is nothing "
                       "to compare."}, entity_id=found.entity_id)
    picked = []
    for arg, label, default in (("version_a", version_a, versions[-2]), ("version_b", version_b, versions[-1])):
        v = by_version(versions, label) if label else default
        if v is None:  # lists only versions this principal may see, so a hidden version reads as absent
            return answer(cat, who, tool, {"behavior": "not_found_or_not_authorized", "entity_id": found.entity_id,
                                           "versions": names,
                                           "verdict": f"{arg}: no such version among those you may see."},
                          entity_id=found.entity_id)
        picked.append(v)
    a, b = picked
    return answer(cat, who, tool, {
        "behavior": "answer", "verdict": f"{version_name(a)} and {version_name(b)} of {found.label} compared",
        "entity_id": found.entity_id, "from": a.evidence_id, "to": b.evidence_id, "versions": names,
        "changes": [c.model_dump() for c in diff(a, b, backing_model(a, a.valid_from, view)[0],
                                                  backing_model(b, b.valid_from, view)[0])]},
        entity_id=found.entity_id, selected=[EvidenceRef.of(a, "compared"), EvidenceRef.of(b, "compared")])


def _starts(view: Visible, ent: Entity, day: date) -> list[str]:
    """Where lineage starts: the versions in effect on the day (a source is its own node)."""
    if ent.role == "source":
        return [ent.entity_id]
    versions = in_effect(governing_versions(view.entity_objects(ent.entity_id), ent.role), day)
    return [v.evidence_id for v in versions] or [ent.entity_id]


def get_lineage_tool(cat: Catalog, who: Identity, entity: str, day: date | None, depth: int,
                     column: str | None, direction: str) -> Answer:
    tool = "get_lineage"
    if not 1 <= depth <= MAX_DEPTH:
        raise ToolInputError(f"argument 'depth': must be between 1 and {MAX_DEPTH}, got {depth}")
    day = _day(day)
    view, found = _entity(cat, who, tool, entity)
    if not isinstance(found, Entity):
        return found
    day = day or cat.store.now().date()  # the catalog's clock (a demo's) when it names one
    starts = _starts(view, found, day)
    up = depth if direction in ("upstream", "both") else 0
    down = depth if direction in ("downstream", "both") else 0
    lin = lineage_mod.explore(view, starts, day, up, down)
    verdict = (f"{len(lin.edges)} lineage edge(s) {direction} of {found.label} in effect on {day}" if lin.edges
               else f"No lineage edge you may see is in effect on {day} for {found.label}.")
    body: dict = {"behavior": "answer", "verdict": verdict, "entity_id": found.entity_id, "date": day.isoformat(),
                  "starts": starts, "direction": direction, "depth": depth,
                  "edges": [e.model_dump() for e in lin.edges],
                  "nodes": [n.model_dump(exclude_none=True) for n in lin.nodes],
                  "raw_sources": lin.raw_sources}
    columns = None
    if column:
        upstream = lin if not down else lineage_mod.upstream(view, starts, day, depth)
        columns = trace_column(view, upstream, starts, column.strip("`"), day)
        body["column"] = columns.model_dump(exclude_none=True)
    return answer(cat, who, tool, body, entity_id=found.entity_id, reporting_date=day, lineage=lin, columns=columns)


def get_freshness_tool(cat: Catalog, who: Identity, entity: str, at: datetime | None) -> Answer:
    tool = "get_freshness"
    at = _time(at)  # refused before anything is looked up, as every tool refuses a bad argument
    view, found = _entity(cat, who, tool, entity)
    if not isinstance(found, Entity):
        return found
    at = _utc(at or cat.store.now())  # the catalog's clock (a demo's) unless the caller names a time
    day = _day(at.date(), "at")
    if found.role == "source":
        sources = [found.entity_id]
    else:
        sources = lineage_mod.upstream(view, _starts(view, found, day), day).raw_sources
    entries = [f for f in (source_freshness(s, view.freshness_objects(s), at, day) for s in sources) if f]
    unknown = [s for s in sources if not any(f.source == s and f.loaded_at for f in entries)]
    verdict = "; ".join(f"{f.source}: {f.status}" for f in entries if f.loaded_at)
    if unknown:
        verdict = (verdict + ". " if verdict else "") + ("No load time you may see is recorded for "
                                                         + ", ".join(unknown)
                                                         + ": freshness unknown, never reported as fresh.")
    behavior = "answer"
    if not sources:
        behavior = "abstain"
        verdict = f"No raw source you may see feeds {found.label} on {day}, so there is no freshness to report."
    body = {"behavior": behavior, "verdict": verdict, "entity_id": found.entity_id, "evaluated_at": at.isoformat(),
            "sources": sources, "freshness": [f.model_dump(mode="json") for f in entries]}
    return answer(cat, who, tool, body, entity_id=found.entity_id, freshness=entries)


class NotSteward(PermissionError):
    pass


def review_queue_tool(cat: Catalog, who: Identity, category: str | None) -> Answer:
    if not who.steward:
        raise NotSteward(f"review_queue is for catalog stewards; {who.who} runs as role "
                         f"{who.role}, which is not a steward role")
    index = cat.searcher.status_for(who.role) if cat.searcher else None
    items = review_queue(cat.store.all_evidence_for_review(), queue_day(cat.store), index)
    if category:
        items = [i for i in items if i.category == category]
    counts: dict[str, int] = {}
    for i in items:
        counts[i.category] = counts.get(i.category, 0) + 1
    return answer(cat, who, "review_queue", {
        "behavior": "answer", "verdict": f"{len(items)} open review item(s)", "count": len(items),
        "by_category": counts, "items": [i.model_dump(mode="json", exclude_none=True) for i in items]})
