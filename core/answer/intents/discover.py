"""Discover: the metrics (or models, sources, documents) the role may see, optionally about a topic.

Reads only the role's view, so nothing hidden is listed, counted or named. A topic is the question's own
words once the asking words are removed ("list the revenue metrics" -> revenue); an entity is about it when
every topic word is in its names and aliases, or in the description of the version the row is read from.
"""
from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Sequence
from datetime import date
from typing import NamedTuple

from core.answer.intents import dbt_listing
from core.answer.run import as_of, not_found
from core.catalog.access import Listed
from core.catalog.envelope import Behavior, Envelope, ListedEntity, Listing, VersionSummary
from core.catalog.evidence import Evidence, Kind
from core.catalog.text import normalize, words
from core.read.intents import name_pattern
from core.read.intents.listing_filter import Condition, owner_matches
from core.resolve.stale import (
    catalog_freshness,
    freshness_text,
    lineage_standing,
    lineage_text,
    reached_sources,
    short_text,
    standing,
    walk_starts,
)
from core.resolve.versions import governing_versions, in_effect, retrievable, version_name

KINDS = {"metric": [Kind.metric_definition], "model": [Kind.model], "source": [Kind.source, Kind.freshness_policy],
         "document": [Kind.documentation, Kind.note], "exposure": [Kind.model, Kind.documentation],
         # "show me the drafts": a draft may be a page or a version of a metric or model, each listed on its own
         "draft": [Kind.documentation, Kind.note, Kind.metric_definition, Kind.model]}
NOUNS = {"exposure": ("dashboard or report", "dashboards or reports"),
         "metric": ("metric", "metrics"), "model": ("model", "models"), "source": ("source", "sources"),
         "document": ("document", "documents"), "draft": ("document or version", "documents and versions")}
# Words naming what is listed, not what it is about.
KIND_WORDS = set(words("metric metrics kpi kpis measure measures model models source sources table tables "
                       "dataset datasets document documents doc docs page pages dashboard dashboards exposure "
                       "exposures report reports draft drafts data feed feeds load loads pipeline pipelines extract extracts "
                       "anything everything something input inputs upstream upstreams"))
MAX_ITEMS = 200
# What reads loaded data: asked whether stale, each is answered through its upstream lineage to the sources.
READERS = ("source", "metric", "model", "exposure")
# A listed object: its columns (Visible.listed), or the object itself where redaction may rewrite its text.
Obj = Listed | Evidence


def summary(ev: Obj, day: date) -> VersionSummary:
    return VersionSummary(evidence_id=ev.evidence_id, version=ev.version, valid_from=ev.valid_from,
                          valid_to=ev.valid_to, authority=ev.authority.value, lifecycle=ev.lifecycle.value,
                          in_effect=ev.governs and ev.valid_on(day))


def _entity_row(entity, objs: list[Obj], day: date) -> ListedEntity:
    versions = governing_versions(objs, entity.role)
    now = in_effect(versions, day)
    if now:
        main = now[-1]
        status = f"current version {version_name(main)} on {day}" if main.version else f"current on {day}"
    elif versions:
        main, status = versions[-1], f"no current version on {day}"
    else:
        main = sorted(objs, key=lambda o: (o.valid_from or date.min, o.evidence_id))[-1]
        status = "draft only" if any(o.lifecycle.value == "draft" for o in objs) else "not authoritative"
    shown = versions or objs
    return ListedEntity(entity_id=entity.entity_id, label=entity.label, role=entity.role,
                        owner=main.owner or next((o.owner for o in reversed(shown) if o.owner), None),
                        status=status, evidence_id=main.evidence_id, title=main.title, description=main.text[:300],
                        versions=[summary(v, day) for v in sorted(shown, key=lambda o: (o.valid_from or date.min,
                                                                                          o.evidence_id))])


def _document_row(ev: Obj, day: date) -> ListedEntity:
    status = f"{ev.authority.value.replace('_', '-')}, {ev.lifecycle.value}" + (
        f" ({ev.authority_class})" if ev.authority_class else "")
    return ListedEntity(entity_id=ev.entity_id, label=ev.title, role="document", owner=ev.owner, status=status,
                        evidence_id=ev.evidence_id, title=ev.title, description=ev.text[:300],
                        versions=[summary(ev, day)])


class _Document(NamedTuple):
    """What a topic or a condition reads of a document's row (`_document_row`), without building the row: a
    whole-catalog listing checks every visible document (267,488 at a million objects) and shows a few hundred."""
    entity_id: str
    label: str
    title: str
    owner: str | None
    description: str


def _document(ev: Obj) -> _Document:
    return _Document(ev.entity_id, ev.title, ev.title, ev.owner, ev.text[:300])


class _Rows(Sequence):
    """Listing rows in their order (label, then evidence id), each built when first read. A listing shows
    MAX_ITEMS of them and a verdict names a dozen: at a million objects the 62,213 source rows of "which sources are
    stale?" took 2.4 s to build, for 200 shown. Rows are built a label at a time (rows with the same label sort by
    their evidence id, which only the built row knows)."""

    def __init__(self, entries: list[tuple[str, str, object]], build: Callable[[object], ListedEntity]):
        # (label in lower case, a unique id: the entity's, or a document's evidence id, what `build` makes its row
        # of): by label, then by that id
        self._entries = sorted(entries, key=lambda e: (e[0], e[1]))
        self._labels = [e[0] for e in self._entries]
        self._build = build
        self._built: list[ListedEntity] = []

    @property
    def ids(self) -> list[str]:
        return [e[1] for e in self._entries]

    def where(self, keep: Callable[[str], bool], then: Callable[[ListedEntity], ListedEntity]) -> "_Rows":
        """The rows whose id `keep` keeps, each passed through `then` when built (which keeps its label)."""
        build = self._build
        return _Rows([e for e in self._entries if keep(e[1])], lambda made_of: then(build(made_of)))

    def _build_to(self, n: int) -> None:
        while len(self._built) < min(n, len(self._entries)):
            start = len(self._built)
            end = bisect_right(self._labels, self._labels[start])
            self._built += sorted((self._build(e[2]) for e in self._entries[start:end]),
                                  key=lambda r: (r.label.lower(), r.evidence_id))

    def __len__(self) -> int:
        return len(self._entries)

    def __getitem__(self, i):
        if isinstance(i, slice):
            self._build_to(len(self._entries) if i.stop is None or i.stop < 0 or (i.step or 1) < 0 else i.stop)
            return self._built[i]
        i = i + len(self._entries) if i < 0 else i
        self._build_to(i + 1)
        return self._built[i]


def _about(row: ListedEntity | _Document, names: list[tuple[str, ...]], topic: list[str]) -> bool:
    if not topic:
        return True
    # The owner says which team's metric it is: "the finance metrics" are Finance's.
    bag = {w for n in names for w in n} | set(words(f"{row.entity_id} {row.label} {row.title} {row.owner or ''}"))
    return set(topic) <= bag or set(topic) <= set(words(row.description))


def _meets(cond: Condition, row: ListedEntity | _Document, objs: list[Obj]) -> bool:
    """Does a listed entity meet the question's condition? Owner: the row's owner (the version in effect on the day,
    else the latest visible one) is the one named, or no owner is recorded on any visible version when none is named;
    lifecycle: some visible, retrievable version carries it (dbt's passed deprecation date is `deprecated`)."""
    if cond.field == "name":
        how, part = cond.value.split(":", 1)
        return name_pattern.fits(how, part, name_pattern.row_names(row.entity_id, row.label))
    if cond.field == "owner":
        return owner_matches(cond.value, row.owner) if cond.value else not row.owner
    return any(o.lifecycle.value == cond.value for o in objs)


def names_a_subject(run, cond: Condition | None) -> bool:
    """A freshness question that names a visible metric, model or source by name ("what's stale about net revenue?",
    "what models does churn rate use, and are they stale?") asks about that one thing's data, which the definition
    flow answers through its lineage; a listing would read the name as a topic no source holds. Only the role's
    own names are matched, so a hidden name is a made-up one here too."""
    if cond is None or cond.field != "freshness":
        return False
    spans = [d.span for d in run.intent.dates] + [cond.span]
    found, _ = run.reading.match_entities(run.view.entities, run.view.phrases, spans)
    ents = run.view.entities
    return any(m.full and ents[m.entity_id].role in ("metric", "model", "source") for m in found
               if m.entity_id in ents)


def answer(run) -> Envelope | None:
    """The listing, or None for a freshness question about one named thing (`names_a_subject`)."""
    day = as_of(run)
    cond = run.reading.listing
    if run.intent.listing == "draft" and cond is None:  # "list the drafts": the noun is the condition
        cond = Condition("lifecycle", "draft", (0, 0))
    if names_a_subject(run, cond):
        run.step("discover", "the freshness question names a visible object: answered about it, not as a listing")
        return None
    # "is anything stale?" names no kind: the sources; "which metrics ...?" with no freshness: the metrics.
    kind = run.intent.listing or ("source" if cond and (cond.field == "freshness" or cond.value == "freshness:none")
                                  else "model" if cond and cond.field == "dbt" else "metric")
    if cond and cond.field == "freshness" and kind not in READERS:
        # Freshness is a source's loads: "what data is late?" and "is anything stale?" are about the sources. A metric,
        # model or dashboard is as fresh as the sources it reads (READERS); a document reads none.
        if run.intent.listing:
            run.notes.append(f"Freshness is recorded for sources (their loads), not for {NOUNS[kind][1]}: "
                             "the sources you can see were checked.")
        kind = "source"
    # A role named in the question ("what models can marketing see?") is who is asking, not a topic. Only
    # the asker's own view is ever listed; naming another role does not show its view.
    # "list the finance metrics" is about finance; "can finance see" names who asks.
    roles = {normalize(w): r.name for r in run.view.store.roles() for w in words(r.name)}
    askers = {w for w in run.reading.roles_named if normalize(w) in roles}
    # The condition's words ("deprecated", "have no owner") say which rows, not what they are about.
    topic = run.reading.content_words([d.span for d in run.intent.dates] + ([cond.span] if cond else [])
                                      + run.reading.count_spans,
                                      KIND_WORDS | {normalize(a) for a in askers})
    others = sorted({roles[normalize(a)] for a in askers} - {run.q.role})
    if others:
        run.notes.append(f"Listed for your role ({run.q.role}): AsOf shows only what the asking role may see, "
                         f"not what {', '.join(others)} may see.")
    if cond and cond.field == "owner" and cond.value and not any(owner_matches(cond.value, o) for o in run.view.owners):
        # An owner the role sees on nothing reads like a made-up name: "none of yours is owned by X" would tell the
        # role that X exists (on objects it may not see). Decided before anything is listed.
        return not_found(run)
    rows, members, total = _rows(run, kind, day, topic, cond)
    if cond and cond.field == "owner" and cond.value and not run.intent.listing \
            and not any(_meets(cond, r, members[r.evidence_id]) for r in rows):
        # "what does Sam Okafor own?" names no kind: the first kind in which the role sees something of theirs (a
        # source's owner owns no metric); metrics still when they own nothing the role sees of any kind.
        for other in ("model", "source", "document"):
            found, held, checked = _rows(run, other, day, topic, cond)
            if any(_meets(cond, r, held[r.evidence_id]) for r in found):
                kind, rows, members, total = other, found, held, checked
                break
    if cond:
        return _filtered(run, kind, day, topic, cond, rows, members, total)
    listing = Listing(kind=kind, topic=topic, as_of=day, items=rows[:MAX_ITEMS])
    one, many = NOUNS[kind]
    noun = one if total == 1 else many
    about = f" about {' '.join(topic)}" if topic else ""
    run.step("discover", f"{total} visible {noun}{about} as of {day}")
    if not rows:
        verdict = f"You can see no {many}{about}."
    else:
        names = _names(rows, total=total)
        verdict = f"You can see {total} {noun}{about}: {names}."
    if total > MAX_ITEMS:
        run.notes.append(f"Only the first {MAX_ITEMS} are listed; add a topic to narrow the list.")
    return run.envelope(Behavior.answer, verdict, intent="discover", listing=listing)


def _rows(run, kind: str, day: date, topic: list[str], cond: Condition | None = None,
          ) -> tuple[Sequence[ListedEntity], dict[str, list[Obj]], int]:
    """The role's visible, retrievable entities (or documents) of one kind about the topic, by label, per row the
    objects a condition is checked on (filled as rows are built), and how many there are. A row is built when read
    (`_Rows`): building one reads the entity's versions, and 62,213 metrics at a million objects took 4 s of rows to
    show 200. Documents are rows of one object each: with `cond` (not freshness nor dbt facts, which no document
    has) only the rows that meet it are listed, and the count is of all."""
    entities = run.view.entities
    objs = [o for o in run.view.listed([k.value for k in KINDS[kind]]) if retrievable(o, day)]
    members: dict[str, list[Obj]] = {}  # row evidence id -> the objects the condition is checked on
    # dbt exposures (the dashboards, notebooks and apps that read the project) are stored as models: they are
    # listed as what they are, never as models.
    objs = [o for o in objs if (o.authority_class == "dbt_exposure") == (kind == "exposure")]
    if kind in ("document", "exposure", "draft"):
        about = [o for o in objs if _about(_document(o), entities[o.entity_id].names if o.entity_id in entities
                                           else [], topic)] if topic else objs
        if cond is not None and cond.field in ("lifecycle", "owner", "name"):
            shown = [o for o in about if _meets(cond, _document(o), [o])]
        else:
            shown = about

        def document_row(o: Obj) -> ListedEntity:
            members[o.evidence_id] = [o]
            return _document_row(o, day)
        return _Rows([(o.title.lower(), o.evidence_id, o) for o in shown], document_row), members, len(about)
    else:
        grouped: dict[str, list[Obj]] = {}
        for o in objs:
            grouped.setdefault(o.entity_id, []).append(o)
        # A document filed under a metric is not a metric of its own.
        chosen = [(entities[e], group) for e, group in grouped.items() if e in entities and entities[e].role == kind]

        def built(made_of: tuple) -> ListedEntity:
            entity, group = made_of
            row = _entity_row(entity, group, day)
            members[row.evidence_id] = group
            return row
        if topic:  # whether a row is about the topic is read from the row: each is built
            about = [(e, row) for e, group in chosen if _about(row := built((e, group)), e.names, topic)]
            rows = _Rows([(e.label.lower(), e.entity_id, row) for e, row in about], lambda row: row)
        else:  # a row sorts by its label first: the rows past those read are never built
            rows = _Rows([(e.label.lower(), e.entity_id, (e, group)) for e, group in chosen], built)
    return rows, members, len(rows)


def _filtered(run, kind: str, day: date, topic: list[str], cond: Condition, rows: Sequence[ListedEntity],
              members: dict[str, list[Obj]], checked: int) -> Envelope:
    """A whole-catalog question with a condition: the visible rows that meet it, and how many were checked (`rows`
    may hold only those that meet it, `_rows`). "None" is an answer that says what was checked; every count is of
    the asker's view only. A yes/no question ("is anything stale?", "are all sources fresh?") is answered yes or no
    first."""
    one, many = NOUNS[kind]
    about = f" about {' '.join(topic)}" if topic else ""
    phrase = cond.phrase if cond.field != "freshness" or kind == "source" else _reads_phrase(cond)
    unknown: list[ListedEntity] = []
    others: list[ListedEntity] = []  # freshness: the known ones on the other side, named so none goes unsaid
    if cond.field == "freshness" and kind == "source":
        hits, unknown, others = _by_freshness(run, rows, day, cond.value)
        what = f"each source's latest load against its thresholds at {run.at:%Y-%m-%d %H:%M} UTC"
    elif cond.field == "freshness":
        rows, said = _with_upstream_freshness(run, list(rows), members, day)
        unknown = [r for r in rows if said[r.evidence_id] == "not known"]
        hits = [r for r in rows if said[r.evidence_id] == cond.value]
        others = [r for r in rows if said[r.evidence_id] not in (cond.value, "not known")]
        what = (f"each {one}'s upstream lineage on {day} to the sources you can see, and each source's latest load "
                f"against its thresholds at {run.at:%Y-%m-%d %H:%M} UTC")
        cut = [r for r in hits + others if r.lineage_continues]
        if cut:
            run.notes.append(f"The lineage of {_names(cut)} continues beyond what your role may see: only the "
                             "sources you can see were checked.")
    elif cond.field == "dbt":
        full = dbt_listing.recorded(run, rows)
        hits = [r for r in rows if dbt_listing.meets(cond.value, r, members[r.evidence_id], full)]
        what = f"{dbt_listing.checked_what(cond.value)}, as of {day}"
    else:
        hits = [r for r in rows if _meets(cond, r, members[r.evidence_id])]
        what = ("each name" if cond.field == "name" else
                "the owner of the version in effect, else of the latest version you can see"
                if cond.field == "owner" and cond.value
                else "the owner recorded on every version" if cond.field == "owner"
                else "the lifecycle of every version; retired ones are never listed") + f", as of {day}"
    asked = run.reading.yes_no
    # Nothing visible to check is no "No": the role cannot tell (a steward's view may hold no sources at all).
    # Nor is it one when what decides is not known: no stale source found but some not known is "not known" to "is
    # any stale?", as a question about one of them says.
    met = len(hits) == checked if asked == "every" else bool(hits)
    undecided = unknown and (len(hits) + len(unknown) == checked if asked == "every" else not hits)
    verdict_word = None if asked is None or not checked else (
        "yes" if met else "not known" if undecided else "no")
    listing = Listing(kind=kind, topic=topic, as_of=day, items=hits[:MAX_ITEMS], condition=phrase(False),
                      condition_many=phrase(True), checked=checked, answer=verdict_word,
                      not_known=unknown[:MAX_ITEMS])
    run.step("discover", f"{len(hits)} of {checked} visible {many}{about} {phrase(True)} as of {day}"
                         + (f"; {len(unknown)} not known (no load recorded)" if unknown else "") + f"; checked {what}")
    seen = f"the {checked} {one if checked == 1 else many}{about} you can see"
    if not checked:
        verdict = f"You can see no {many}{about}: there is nothing to check, so this cannot tell whether any {phrase(False)}."
    elif not hits:
        verdict = f"None of {seen} {phrase(False)} (checked {what})."
    elif asked == "every" and len(hits) == checked:
        every = f"the one {one}" if checked == 1 else f"all {checked} {many}"
        verdict = f"{every[0].upper()}{every[1:]}{about} you can see {phrase(checked != 1)} (checked {what})."
    else:
        verdict = f"{len(hits)} of {seen} {phrase(len(hits) != 1)}: {_names(hits, cond)} (checked {what})."
    if cond.field == "dbt" and dbt_listing.rest_note(len(hits)):
        run.notes.append(dbt_listing.rest_note(len(hits)))
    if others and cond.value == "fresh":
        verdict += f" Stale: {_names(others, cond)}."
    if unknown:
        why = ("no load is recorded by then" if kind == "source" else
               f"no source {'it reads' if len(unknown) == 1 else 'they read'} that you can see is stale, but not every "
               "one has a load recorded by then (or its lineage is not recorded or continues beyond your view)")
        verdict += (f" Not known for {_names(unknown)}: {why}, so "
                    f"{'it is' if len(unknown) == 1 else 'they are'} neither stale nor fresh.")
    if verdict_word:
        verdict = f"{verdict_word.capitalize()}: {verdict[0].lower()}{verdict[1:]}"
    if len(hits) > MAX_ITEMS:
        run.notes.append(f"Only the first {MAX_ITEMS} are listed; add a topic to narrow the list.")
    return run.envelope(Behavior.answer, verdict, intent="discover", listing=listing)


def _by_freshness(run, rows: _Rows, day: date, asked: str) -> tuple[_Rows, _Rows, _Rows]:
    """The source rows whose standing is the one asked (stale or fresh), those not known, and the others, each row
    with its freshness as a question about that source alone reads it, said in its status. Every source's freshness
    is read (one pass for all); only the rows read are built."""
    found = catalog_freshness(run.view, rows.ids, run.at, day)

    def said(row: ListedEntity) -> ListedEntity:
        entry = found[row.entity_id]
        return row.model_copy(update={"freshness": entry, "status": freshness_text(entry)})
    return (rows.where(lambda e: standing(found[e]) == asked, said),
            rows.where(lambda e: standing(found[e]) == "not known", said),
            rows.where(lambda e: standing(found[e]) not in (asked, "not known"), said))


def _with_upstream_freshness(run, rows: list[ListedEntity], members: dict[str, list[Obj]],
                             day: date) -> tuple[list[ListedEntity], dict[str, str]]:
    """Each metric (model, dashboard) row with the freshness of the sources its lineage on the day reaches: one walk
    for all rows, each source's freshness read once however many rows read it. A row with no version in effect on the
    day has no lineage that day: not known."""
    view = run.view
    current = {r.evidence_id: ev for r in rows for ev in members[r.evidence_id]
               if ev.evidence_id == r.evidence_id and any(v.in_effect for v in r.versions
                                                          if v.evidence_id == r.evidence_id)}
    reach = reached_sources(view, {eid: walk_starts(ev, day, view) for eid, ev in current.items()}, day)
    found = catalog_freshness(view, sorted({s for r in reach.values() for s in r.sources}), run.at, day)
    out, said = [], {}
    for r in rows:
        if r.evidence_id not in reach:
            said[r.evidence_id] = "not known"
            out.append(r.model_copy(update={"status": f"not known: no version in effect on {day}"}))
            continue
        sources, beyond = reach[r.evidence_id].sources, reach[r.evidence_id].beyond_view
        said[r.evidence_id] = lineage_standing([found[s] for s in sources], beyond)
        named = [(view.entities[s].label if s in view.entities else s.split(".", 1)[-1], found[s]) for s in sources]
        out.append(r.model_copy(update={
            "status": lineage_text(said[r.evidence_id], named, beyond, day), "lineage_continues": beyond,
            "reads_stale": [found[s] for s in sources if standing(found[s]) == "stale"]}))
    run.step("lineage", f"one upstream walk on {day} from {len(reach)} {'row' if len(reach) == 1 else 'rows'}; "
                        f"{len(found)} visible raw source(s) reached")
    return out, said


def _reads_phrase(cond: Condition):
    """The condition said of what reads the sources: "reads stale data", "read only fresh data"."""
    said = "stale data" if cond.value == "stale" else "only fresh data"
    return lambda many: f"{'read' if many else 'reads'} {said}"


def _names(rows: list[ListedEntity], cond: Condition | None = None, total: int | None = None) -> str:
    """The first dozen labels (a source with its status and age when freshness was asked; fifty for a dbt condition,
    whose lists a data team reads whole), and how many more of `total` (default: the rows)."""
    n = dbt_listing.NAMED if cond and cond.field == "dbt" else 12
    total = len(rows) if total is None else total
    said = [_named(r) if cond and cond.field == "freshness" else r.label for r in rows[:n]]
    return ", ".join(said) + (f" and {total - n} more" if total > n else "")


def _named(row: ListedEntity) -> str:
    """A row in a freshness verdict: a source with its status and age; a metric with the stale sources it reads."""
    if row.role == "source":
        return f"{row.label} ({short_text(row.freshness)})"
    if not row.reads_stale:
        return row.label
    reads = [f"{f.source.split('.', 1)[-1]} ({short_text(f)})" for f in row.reads_stale[:3]]
    more = len(row.reads_stale) - len(reads)
    return f"{row.label} (reads {', '.join(reads)}{f' and {more} more' if more else ''})"
