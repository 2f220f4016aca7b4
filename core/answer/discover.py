"""Discover: the metrics (or models, sources, documents) the role may see, optionally about a topic.

Reads only the role's view, so nothing hidden is listed, counted or named. A topic is the question's own
words once the asking words are removed ("list the revenue metrics" -> revenue); an entity is about it when
every topic word is in its names and aliases, or in the description of the version the row is read from.
"""
from __future__ import annotations

import re
from datetime import date

from core.answer.run import as_of
from core.catalog.envelope import Behavior, Envelope, ListedEntity, Listing, VersionSummary
from core.catalog.evidence import Evidence, Kind
from core.catalog.text import content_words, normalize, words
from core.read.listing_filter import Condition, listing_condition, yes_no
from core.resolve.stale import catalog_freshness, freshness_text, short_text, standing
from core.resolve.versions import governing_versions, in_effect, retrievable, version_name

KINDS = {"metric": [Kind.metric_definition], "model": [Kind.model], "source": [Kind.source, Kind.freshness_policy],
         "document": [Kind.documentation, Kind.note], "exposure": [Kind.model, Kind.documentation]}
NOUNS = {"exposure": ("dashboard or report", "dashboards or reports"),
         "metric": ("metric", "metrics"), "model": ("model", "models"), "source": ("source", "sources"),
         "document": ("document", "documents")}
# Words naming what is listed, not what it is about.
KIND_WORDS = set(words("metric metrics kpi kpis measure measures model models source sources table tables "
                       "dataset datasets document documents doc docs page pages dashboard dashboards exposure "
                       "exposures report reports data feed feeds load loads pipeline pipelines extract extracts "
                       "anything everything something"))
MAX_ITEMS = 200
WHO_SEES = re.compile(r"\b(?:can|could|may|does|do|is|are)\s+(?:the\s+)?([\w-]+)\s+(?:team\s+|role\s+)?(?:see|access|view|read|have)\b",
                      re.I)


def summary(ev: Evidence, day: date) -> VersionSummary:
    return VersionSummary(evidence_id=ev.evidence_id, version=ev.version, valid_from=ev.valid_from,
                          valid_to=ev.valid_to, authority=ev.authority.value, lifecycle=ev.lifecycle.value,
                          in_effect=ev.governs and ev.valid_on(day))


def _entity_row(entity, objs: list[Evidence], day: date) -> ListedEntity:
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


def _document_row(ev: Evidence, day: date) -> ListedEntity:
    status = f"{ev.authority.value.replace('_', '-')}, {ev.lifecycle.value}" + (
        f" ({ev.authority_class})" if ev.authority_class else "")
    return ListedEntity(entity_id=ev.entity_id, label=ev.title, role="document", owner=ev.owner, status=status,
                        evidence_id=ev.evidence_id, title=ev.title, description=ev.text[:300],
                        versions=[summary(ev, day)])


def _about(row: ListedEntity, names: list[tuple[str, ...]], topic: list[str]) -> bool:
    if not topic:
        return True
    # The owner says which team's metric it is: "the finance metrics" are Finance's.
    bag = {w for n in names for w in n} | set(words(f"{row.entity_id} {row.label} {row.title} {row.owner or ''}"))
    return set(topic) <= bag or set(topic) <= set(words(row.description))


def _meets(cond: Condition, row: ListedEntity, objs: list[Evidence]) -> bool:
    """Does a listed entity meet the question's condition? Owner: no owner recorded on any visible version;
    lifecycle: some visible, retrievable version carries it (dbt's passed deprecation date is `deprecated`)."""
    if cond.field == "owner":
        return not row.owner
    return any(o.lifecycle.value == cond.value for o in objs)


def answer(run) -> Envelope:
    kind = run.intent.listing or "metric"
    day = as_of(run)
    cond = listing_condition(run.q.text)
    if cond and cond.field == "freshness" and kind != "source":
        # Freshness is a source's loads: "what data is late?" and "is anything stale?" are about the sources.
        if run.intent.listing:
            run.notes.append(f"Freshness is recorded for sources (their loads), not for {NOUNS[kind][1]}: "
                             "the sources you can see were checked.")
        kind = "source"
    # A role named in the question ("what models can marketing see?") is who is asking, not a topic. Only
    # the asker's own view is ever listed; naming another role does not show its view.
    # "list the finance metrics" is about finance; "can finance see" names who asks.
    roles = {normalize(w): r.name for r in run.view.store.roles() for w in words(r.name)}
    askers = {m.group(1).lower() for m in WHO_SEES.finditer(run.q.text) if normalize(m.group(1)) in roles}
    # The condition's words ("deprecated", "have no owner") say which rows, not what they are about.
    topic = content_words(run.q.text, [d.span for d in run.intent.dates] + ([cond.span] if cond else []),
                          KIND_WORDS | {normalize(a) for a in askers})
    others = sorted({roles[normalize(a)] for a in askers} - {run.q.role})
    if others:
        run.notes.append(f"Listed for your role ({run.q.role}): AsOf shows only what the asking role may see, "
                         f"not what {', '.join(others)} may see.")
    entities = run.view.entities
    objs = [o for o in run.view.of_kinds([k.value for k in KINDS[kind]]) if retrievable(o, day)]
    rows: list[ListedEntity] = []
    members: dict[str, list[Evidence]] = {}  # row evidence id -> the objects the condition is checked on
    # dbt exposures (the dashboards, notebooks and apps that read the project) are stored as models: they are
    # listed as what they are, never as models.
    objs = [o for o in objs if (o.authority_class == "dbt_exposure") == (kind == "exposure")]
    if kind in ("document", "exposure"):
        for o in objs:
            row = _document_row(o, day)
            if _about(row, entities[o.entity_id].names if o.entity_id in entities else [], topic):
                rows.append(row)
                members[row.evidence_id] = [o]
    else:
        grouped: dict[str, list[Evidence]] = {}
        for o in objs:
            grouped.setdefault(o.entity_id, []).append(o)
        for entity_id, group in grouped.items():
            entity = entities.get(entity_id)
            if entity is None or entity.role != kind:
                continue  # a document filed under a metric is not a metric of its own
            row = _entity_row(entity, group, day)
            if _about(row, entity.names, topic):
                rows.append(row)
                members[row.evidence_id] = group
    rows.sort(key=lambda r: (r.label.lower(), r.evidence_id))
    if cond:
        return _filtered(run, kind, day, topic, cond, rows, members)
    total = len(rows)
    listing = Listing(kind=kind, topic=topic, as_of=day, items=rows[:MAX_ITEMS])
    one, many = NOUNS[kind]
    noun = one if total == 1 else many
    about = f" about {' '.join(topic)}" if topic else ""
    run.step("discover", f"{total} visible {noun}{about} as of {day}")
    if not rows:
        verdict = f"You can see no {many}{about}."
    else:
        names = _names(rows)
        verdict = f"You can see {total} {noun}{about}: {names}."
    if total > MAX_ITEMS:
        run.notes.append(f"Only the first {MAX_ITEMS} are listed; add a topic to narrow the list.")
    return run.envelope(Behavior.answer, verdict, intent="discover", listing=listing)


def _filtered(run, kind: str, day: date, topic: list[str], cond: Condition, rows: list[ListedEntity],
              members: dict[str, list[Evidence]]) -> Envelope:
    """A whole-catalog question with a condition: the visible rows that meet it, and how many were checked.
    "None" is an answer that says what was checked; every count is of the asker's view only. A yes/no question
    ("is anything stale?", "are all sources fresh?") is answered yes or no first."""
    checked = len(rows)
    one, many = NOUNS[kind]
    about = f" about {' '.join(topic)}" if topic else ""
    unknown: list[ListedEntity] = []
    others: list[ListedEntity] = []  # freshness: the known ones on the other side, named so none goes unsaid
    if cond.field == "freshness":
        rows = _with_freshness(run, rows, day)
        unknown = [r for r in rows if standing(r.freshness) == "not known"]
        hits = [r for r in rows if standing(r.freshness) == cond.value]
        others = [r for r in rows if standing(r.freshness) not in (cond.value, "not known")]
        what = f"each source's latest load against its thresholds at {run.at:%Y-%m-%d %H:%M} UTC"
    else:
        hits = [r for r in rows if _meets(cond, r, members[r.evidence_id])]
        what = ("the owner recorded on every version" if cond.field == "owner"
                else "the lifecycle of every version; retired ones are never listed") + f", as of {day}"
    asked = yes_no(run.q.text)
    verdict_word = None if asked is None else (
        "yes" if checked and (len(hits) == checked if asked == "every" else hits) else "no")
    listing = Listing(kind=kind, topic=topic, as_of=day, items=hits[:MAX_ITEMS], condition=cond.phrase(False),
                      condition_many=cond.phrase(True), checked=checked, answer=verdict_word,
                      not_known=unknown[:MAX_ITEMS])
    run.step("discover", f"{len(hits)} of {checked} visible {many}{about} {cond.phrase(True)} as of {day}"
                         + (f"; {len(unknown)} not known (no load recorded)" if unknown else "") + f"; checked {what}")
    seen = f"the {checked} {one if checked == 1 else many}{about} you can see"
    if not checked:
        verdict = f"You can see no {many}{about}, so none {cond.phrase(False)}."
    elif not hits:
        verdict = f"None of {seen} {cond.phrase(False)} (checked {what})."
    elif asked == "every" and len(hits) == checked:
        every = f"the one {one}" if checked == 1 else f"all {checked} {many}"
        verdict = f"{every[0].upper()}{every[1:]}{about} you can see {cond.phrase(checked != 1)} (checked {what})."
    else:
        verdict = f"{len(hits)} of {seen} {cond.phrase(len(hits) != 1)}: {_names(hits, cond)} (checked {what})."
    if others and cond.value == "fresh":
        verdict += f" Stale: {_names(others, cond)}."
    if unknown:
        verdict += (f" Not known for {_names(unknown)}: no load is recorded by then, so "
                    f"{'it is' if len(unknown) == 1 else 'they are'} neither stale nor fresh.")
    if verdict_word:
        verdict = f"{verdict_word.capitalize()}: {verdict[0].lower()}{verdict[1:]}"
    if len(hits) > MAX_ITEMS:
        run.notes.append(f"Only the first {MAX_ITEMS} are listed; add a topic to narrow the list.")
    return run.envelope(Behavior.answer, verdict, intent="discover", listing=listing)


def _with_freshness(run, rows: list[ListedEntity], day: date) -> list[ListedEntity]:
    """Each source row with its freshness, as a question about that source alone reads it, said in its status."""
    found = catalog_freshness(run.view, [r.entity_id for r in rows], run.at, day)
    return [r.model_copy(update={"freshness": found[r.entity_id], "status": freshness_text(found[r.entity_id])})
            for r in rows]


def _names(rows: list[ListedEntity], cond: Condition | None = None) -> str:
    """The first dozen labels (a source with its status and age when freshness was asked), and how many more."""
    said = [f"{r.label} ({short_text(r.freshness)})" if cond and cond.field == "freshness" else r.label
            for r in rows[:12]]
    return ", ".join(said) + (f" and {len(rows) - 12} more" if len(rows) > 12 else "")
