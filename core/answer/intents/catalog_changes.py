"""The catalog's own changes: "which metrics changed definition in 2025?", "what changes are coming?", "what changed
since last month?" list the versions, of every definition the role may see, that start (take effect) in the span
asked, or that the source system recorded in it; asked of what is coming, the approved versions that start after
the clock's day and the drafts proposing more. Only the role's view is read, so nothing hidden is listed or counted.

A question that names a subject of its own ("what changed in churn in 2025?") is that subject's comparison, not this.
"""
from __future__ import annotations

from datetime import date, timedelta

from core.answer.intents.discover import KIND_WORDS, MAX_ITEMS, NOUNS, summary
from core.catalog.envelope import Behavior, Envelope, ListedEntity, Listing
from core.catalog.evidence import Kind
from core.catalog.text import words
from core.resolve.versions import governing_versions, version_label

KINDS = {"metric": [Kind.metric_definition], "model": [Kind.model], "source": [Kind.source]}
RECENT_DAYS = 30  # "what changed?" with no date: the last month up to the clock's day
NOUNS_HERE = {**NOUNS, "definition": ("definition", "definitions")}
# Words a question about the catalog's changes uses around its asking words and dates, naming no subject.
SPAN_WORDS = set(words("catalog definition definitions change changes changed changing since recently lately so far "
                       "coming upcoming planned pending scheduled ahead soon any anything new version versions "
                       "ever happened been there our my the this last year quarter month week"))


def _day(d: date) -> str:
    return f"{d.day} {d:%b %Y}"


def _draft_name(draft) -> str:
    """"draft v3"; a version named as a draft ("draft-2026-09") as a reader says it ("draft of 2026-09")."""
    name = version_label(draft.version)
    return name if name.startswith("draft") else f"draft {name}"


def asked(run) -> bool:
    """The question asks the catalog's changes and names no visible metric, model or source of its own."""
    changes = run.intent.changes
    if changes is None:
        return False
    spans = [d.span for d in run.intent.dates] + [changes.span]
    found, _ = run.reading.match_entities(run.view.entities, run.view.phrases, spans)
    ents = run.view.entities
    if any(m.full and m.entity_id in ents and ents[m.entity_id].role in KINDS for m in found):
        return False
    # Words naming something else ("what changed in crew overtime in 2023?") name a subject the role cannot see or
    # that does not exist: answered as not found by the comparison, the same for both, never as the whole catalog.
    return not run.reading.content_words(spans, KIND_WORDS | SPAN_WORDS)


def _span(run) -> tuple[date, date, str]:
    """[start, end) asked, and how it is said."""
    today = run.at.date()
    changes = run.intent.changes
    dated = [d for d in run.intent.reporting if d.start]
    if dated:
        d = dated[0]
        start, end = d.start, d.end or d.start + timedelta(days=1)
        if changes.since:
            start, end = (end if d.kind == "period" and not changes.coming else start), today + timedelta(days=1)
            start = min(start, d.start) if d.kind != "period" else d.start
    elif changes.coming:
        start, end = today + timedelta(days=1), date.max
    else:
        start, end = today - timedelta(days=RECENT_DAYS - 1), today + timedelta(days=1)
    if changes.coming:
        start = max(start, today + timedelta(days=1))
    said = (f"after {_day(today)}" if end == date.max else
            f"from {_day(start)} to {_day(end - timedelta(days=1))}")
    return start, end, said


def answer(run) -> Envelope:
    start, end, said = _span(run)
    changes = run.intent.changes
    kinds = [changes.kind] if changes.kind else list(KINDS)
    values = [k.value for kind in kinds for k in KINDS[kind]]
    # Only an entity with an object starting or recorded in the span (or a draft, for what is coming) can have
    # changed: the objects of the others are never read (186,639 definitions at a million objects).
    objs = run.view.dated_between(values, start, None if end == date.max else end, changes.coming)
    grouped: dict[str, list] = {}
    for o in objs:
        grouped.setdefault(o.entity_id, []).append(o)
    ents = run.view.entities
    rows, versions_said, moved_rows = [], [], 0

    def inside(d) -> bool:
        return d is not None and start <= d < end
    moved = {o.entity_id for o in objs if inside(o.valid_from) or inside(o.recorded_at.date() if o.recorded_at else None)
             or (changes.coming and o.lifecycle.value == "draft")}
    checked = sum(1 for e in run.view.entity_ids(values) if e in ents and ents[e].role in kinds)
    for entity_id in sorted(moved):
        ent, group = ents.get(entity_id), grouped[entity_id]
        if ent is None or ent.role not in kinds:
            continue
        approved = governing_versions(group, ent.role)
        changed, shown = [], []
        for i, v in enumerate(approved):
            recorded = v.recorded_at.date() if v.recorded_at else None
            if inside(v.valid_from):
                before = approved[i - 1] if i else None
                later = " (still to come)" if v.valid_from > run.at.date() else ""
                how = (f"v{v.version} from {_day(v.valid_from)}{later}" if v.version
                       else f"from {_day(v.valid_from)}{later}") + (
                    # what came before may be outside the asker's view: said of what they can see
                    f", after v{before.version}" if before is not None and before.version
                    else ", the first version you can see")
                changed.append((v, how))
                shown += [before] if before is not None else []
            elif inside(recorded):
                changed.append((v, f"v{v.version} recorded on {_day(recorded)}" if v.version
                                else f"recorded on {_day(recorded)}"))
        if changes.coming:  # drafts propose what is not approved yet
            changed += [(o, f"{_draft_name(o)} proposed" + (f" from {_day(o.valid_from)}" if o.valid_from else ""))
                        for o in group if o.lifecycle.value == "draft" and o.kind in KINDS[ent.role]
                        and (o.valid_from is None or o.valid_from >= start)]
        if not changed:
            continue
        moved_rows += 1
        if len(rows) < MAX_ITEMS:  # a listing shows its first MAX_ITEMS rows: only those are built
            main = changed[-1][0]
            rows.append(ListedEntity(entity_id=entity_id, label=ent.label, role=ent.role, owner=main.owner,
                                     status="; ".join(h for _, h in changed), evidence_id=main.evidence_id,
                                     title=main.title, description=main.text[:300],
                                     # every version the row names, so its sentences may name them (and the table
                                     # shows them)
                                     versions=[summary(o, run.at.date()) for o in
                                               {o.evidence_id: o for o in shown + [v for v, _ in changed]}.values()]))
        versions_said += [f"{ent.label} {h}" for _, h in changed]
    kind = changes.kind or "definition"
    one, many = NOUNS_HERE[kind]
    verb = "change" if changes.coming else "changed"
    phrase = f"{'will ' if changes.coming else ''}{verb if changes.coming else 'changed'} {said}"
    listing = Listing(kind=kind, as_of=min(end - timedelta(days=1), run.at.date()) if end != date.max else run.at.date(),
                      items=rows, condition=phrase, condition_many=phrase, checked=checked)
    run.step("catalog changes", f"{moved_rows} of {checked} visible {many} with a version starting or recorded {said}")
    seen = f"the {checked} {one if checked == 1 else many} you can see"
    if not rows:
        verdict = f"None of {seen} {phrase}: no version starts or was recorded in that span."
    else:
        verdict = (f"{moved_rows} of {seen} {phrase}: " + "; ".join(versions_said[:12])
                   + (f" and {len(versions_said) - 12} more" if len(versions_said) > 12 else "") + ".")
    if moved_rows > MAX_ITEMS:
        run.notes.append(f"Only the first {MAX_ITEMS} are listed; add a date or a kind to narrow the list.")
    run.period = (start, end) if end != date.max else None
    return run.envelope(Behavior.answer, verdict, intent="discover", listing=listing)
