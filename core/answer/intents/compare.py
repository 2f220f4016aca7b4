"""Compare: two versions of one entity, field by field.

The two are the versions the question names ("v1 and v2"), or the versions in effect on the two dates it
names ("between 2024 and 2025": the earlier period's first version and the later period's last one), or,
with one period named ("in 2025"), the version it starts with and the one it ends with; when a version
began inside that period, the one it replaced stands on the earlier side, so "what changed in 2025" is never
a version compared with itself. With neither, the version in effect on the reporting date (else today) and
the one before it. Only authoritative versions the role may see are compared; drafts never stand in for a
version.

Every field a reader reads is compared: formula, grain, unit, time dimension, filters, exclusions, backing
model, the description text, owner and effective dates. A description that changed is quoted sentence by
sentence (FieldChange.removed / added), so "180 days" becoming "120 days" is never "unchanged".

A question that also asks the owner ("who owns X, and what changed in its last version?") gets the owner first, read
and worded as core/answer/intents/ownership.py reads and words it; with fewer than two versions the role can see, the owner
is still answered and the verdict says which one version there is, since when.
"""
from __future__ import annotations

import difflib
import re
from datetime import date, timedelta

from core.catalog.envelope import Behavior, Comparison, Envelope, EvidenceRef, FieldChange
from core.catalog.evidence import Evidence, Lifecycle
from core.catalog.text import words
from core.read.dates.mention import DateMention
from core.read.names.asking import ASKED_OF_WORDS, STATUS_WORDS
from core.resolve.versions import (
    backing_model,
    by_version,
    governing_versions,
    in_effect,
    interval_text,
    retrievable,
    version_name,
)


def _list(values: list[str]) -> str | None:
    return "; ".join(values) if values else None


def _plain(value: str | None) -> str | None:
    """Whitespace as typed (YAML folding, line breaks) is not a change."""
    return " ".join(value.split()) or None if value else None


def fields_of(ev: Evidence, model: Evidence | None) -> dict[str, str | None]:
    """The fields a reader compares, as text (None when the version does not record it)."""
    out: dict[str, str | None] = {}
    if ev.metric:
        m = ev.metric
        out.update({"formula": m.formula, "grain": m.grain, "unit": m.unit, "time dimension": m.time_dimension,
                    "filters": _list(m.filters), "exclusions": _list(m.exclusions)})
        out["backing model"] = (f"{model.title} ({model.evidence_id})" if model else None)
    if ev.model:
        m = ev.model
        out.update({"relation": m.relation, "grain": m.grain, "primary key": _list(m.primary_key),
                    "columns": _list(m.columns)})
    # The prose a reader reads is part of the definition: "no order in the following 180 days" is the rule.
    out["description"] = ev.text or None
    out["owner"] = ev.owner
    out["effective"] = interval_text(ev)
    return {k: _plain(v) for k, v in out.items()}


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"'“(]?[A-Z0-9])")


def sentences(text: str | None) -> list[str]:
    """A description cut into sentences (a decimal point or "e.g." inside one does not end it)."""
    return [s.strip() for s in _SENTENCE_END.split(text or "") if s.strip()]


def changed_sentences(before: str | None, after: str | None) -> tuple[list[str], list[str]]:
    """The sentences only `before` has and only `after` has, each in its own order."""
    a, b = sentences(before), sentences(after)
    removed, added = [], []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if op != "equal":
            removed += a[i1:i2]
            added += b[j1:j2]
    return removed, added


def diff(left: Evidence, right: Evidence, lmodel: Evidence | None, rmodel: Evidence | None) -> list[FieldChange]:
    a, b = fields_of(left, lmodel), fields_of(right, rmodel)
    out = []
    for k in dict.fromkeys([*a, *b]):
        change = FieldChange(field=k, before=a.get(k), after=b.get(k), changed=a.get(k) != b.get(k))
        if change.changed and k == "description":
            change.removed, change.added = changed_sentences(change.before, change.after)
        out.append(change)
    return out


_ISO_DAY = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")


def quote_change(change: FieldChange) -> str | None:
    """One sentence that changed, quoted: the first pair that is about the definition rather than its dates
    (the effective dates are compared on their own). None when the field did not change."""
    if not change.changed:
        return None
    removed, added = change.removed, change.added
    if not removed and not added:
        return None
    def about(xs):  # not a date, nor a heading ("DRAFT.", "DRAFT, NOT APPROVED.": short, or all in capitals)
        return [x for x in xs if not _ISO_DAY.search(x) and len(x.split()) > 2 and x.upper() != x] or xs
    r, a = about(removed), about(added)
    if r and a:
        return f"“{r[0]}” became “{a[0]}”"
    if a:
        return f"it adds “{a[0]}”"
    return f"it drops “{r[0]}”"


def _on(versions: list[Evidence], day: date) -> Evidence | None:
    found = in_effect(versions, day)
    return found[0] if len(found) == 1 else None


def _replaced(versions: list[Evidence], v: Evidence) -> Evidence | None:
    """The version `v` replaced: the one in effect the day before it began, else the one it names as superseded,
    else the latest one that began before it. None for the first version."""
    if not v.valid_from:
        return None
    before = _on(versions, v.valid_from - timedelta(days=1)) if v.valid_from > date.min else None
    if before is not None and before is not v:
        return before
    named = next((o for o in versions if v.supersedes and o.evidence_id == v.supersedes), None)
    if named is not None:
        return named
    earlier = [o for o in versions if o is not v and (o.valid_from or date.min) < v.valid_from]
    return earlier[-1] if earlier else None


def _from_dates(versions: list[Evidence], mentions: list[DateMention]) -> tuple[list, str]:
    first, second = sorted(mentions[:2], key=lambda m: m.start)
    picks = []
    for m, early in ((first, True), (second, False)):
        if m.kind == "date":
            picks.append((_on(versions, m.start), str(m.start)))
        else:  # a period: the version it starts with (earlier side) or ends with (later side)
            day = m.start if early else m.end - timedelta(days=1)
            picks.append((_on(versions, day), str(day)))
    return picks, f"the versions in effect on {picks[0][1]} and on {picks[1][1]}, the dates the question names"


def _compared(run, left: Evidence, right: Evidence, models: list, how: str, right_label: str | None = None):
    """The field-by-field comparison and the evidence it selects (both sides and their backing models)."""
    comparison = Comparison(left=EvidenceRef.of(left, "compared"), right=EvidenceRef.of(right, "compared"), how=how,
                            fields=diff(left, right, *models), left_model=models[0].evidence_id if models[0] else None,
                            right_model=models[1].evidence_id if models[1] else None, right_label=right_label)
    selected = [EvidenceRef.of(left, "compared")] + ([EvidenceRef.of(right, "compared")]
                                                     if right.evidence_id != left.evidence_id else [])
    selected += [EvidenceRef.of(m, "compared_model") for m in {m.evidence_id: m for m in models if m}.values()]
    run.step("compare", f"{left.evidence_id} vs {right.evidence_id}: {how}")
    return comparison, selected


def _two_entities(run):
    """"compare net revenue and gross revenue": two visible entities of one kind named, no versions named."""
    if run.intent.versions:
        return None
    ents = run.view.entities
    matches, _ = run.reading.match_entities(ents, run.view.phrases)
    named = list(dict.fromkeys(m.entity_id for m in sorted(matches, key=lambda m: m.start) if ents[m.entity_id].is_topic))
    if len(named) != 2 or ents[named[0]].role != ents[named[1]].role:
        return None
    return [ents[n] for n in named]


def _entities(run, pair) -> Envelope:
    """Two entities side by side: the version of each in effect on the reporting date (else today)."""
    today = run.at.date()
    dated = [m for m in run.intent.reporting if m.start]
    day = run.q.day or (dated[0].start if len(dated) == 1 and dated[0].kind == "date" else None) or today
    kw = dict(intent="compare", entity_id=pair[0].entity_id, entity_label=pair[0].label)
    picks = []
    for ent in pair:
        objs = [e for e in run.view.entity_objects(ent.entity_id) if retrievable(e, day)]
        now = in_effect(governing_versions(objs, ent.role), day)
        if len(now) != 1:
            run.step("compare", f"{ent.entity_id}: {len(now)} authoritative versions in effect on {day}")
            return run.envelope(Behavior.abstain, f"{ent.label} has no single approved version in effect on {day}, "
                                "so the two cannot be compared.", **kw)
        picks.append(now[0])
    left, right = picks
    models = [backing_model(v, day, run.view)[0] if pair[0].role == "metric" else None for v in picks]
    how = f"{pair[0].label} and {pair[1].label}, the versions in effect on {day}"
    comparison, selected = _compared(run, left, right, models, how, right_label=pair[1].label)
    changed = [c.field for c in comparison.changed if c.field not in ("effective", "owner")]
    verdict = (f"{pair[0].label} and {pair[1].label} on {day} differ in {', '.join(changed)}." if changed else
               f"{pair[0].label} and {pair[1].label} on {day} record the same fields.")
    if "owner" in run.intent.aspects:  # "compare X and Y: who owns each?": each one's owner, as the version records it
        from core.answer.intents.ownership import owned_by
        verdict = " ".join(owned_by(ent.label, v) for ent, v in zip(pair, picks)) + " " + verdict
    return run.envelope(Behavior.answer, verdict, selected=selected, comparison=comparison, **kw)


# A side said only by its standing ("the approved one", "the current version", "the draft") is the other side's subject
# in another version, not a second thing to find.
STANDING_WORDS = frozenset(STATUS_WORDS | ASKED_OF_WORDS
                           | set(words("live published newest older earlier later one ones draft drafts proposal "
                                       "proposals")))


def _sides(run):
    """"net revnue vs gmv", "compare net revenue and contribution margin" (hidden): two things are named but not
    both exactly. Each side is read on its own, like a question: a misspelt side is read with a note, and a side
    that names nothing visible makes the whole answer not-found (what a made-up name gets), never a comparison of
    the other side's versions. Returns None when the question is not two named things."""
    from core.answer.run import not_found
    from core.catalog.text import GENERIC, normalize
    from core.read.intents.intent import CUE_WORDS
    sides = run.reading.sides
    if sides is None or run.intent.versions:
        return None
    picks = []
    for side in sides:
        asking = GENERIC | {normalize(w) for w in CUE_WORDS}
        if not [w for w in side.content_words([d.span for d in side.intent.dates]) if w not in asking | STANDING_WORDS]:
            return None  # "2024 vs 2025", "the draft with the approved one": dates or standings of one thing
        picks.append((side, side.rank(run.view, run.searcher, run.q.role)))
    if any(c.decision == "none" for _, c in picks):
        run.step("compare", "a side of the comparison names nothing visible: "
                 + "; ".join(c.rule for _, c in picks if c.decision == "none"))
        return not_found(run)
    if any(c.decision != "answer" for _, c in picks):
        return None
    ents = run.view.entities
    pair = [ents[c.entity_id] for _, c in picks]
    if pair[0].entity_id == pair[1].entity_id or pair[0].role != pair[1].role:
        return None
    for _, c in picks:
        if c.note:
            run.notes.append(c.note[0].upper() + c.note[1:] + ".")
    return _entities(run, pair)


def answer(run, pick) -> Envelope | None:
    pair = _two_entities(run)
    if pair:
        return _entities(run, pair)
    sides = _sides(run)
    if sides is not None:
        return sides
    picked = pick(run)
    if isinstance(picked, Envelope):
        return picked
    primary = picked[0]
    today = run.at.date()
    objs = [e for e in run.view.entity_objects(primary.entity_id) if retrievable(e, today)]
    versions = governing_versions(objs, primary.role)
    env = _against_draft(run, primary, versions) or _versions(run, primary, versions)
    if "changed" in run.intent.aspects and not (env.comparison and env.comparison.left.evidence_id
                                                != env.comparison.right.evidence_id):
        # No two versions tell a change: what the ingests recorded may (a dbt definition edited in place).
        from core.answer.intents.recorded_change import recorded_change
        found = recorded_change(run, versions)
        env = _recorded(run, primary, found) if found else env
    if "changed" in run.intent.aspects and env.comparison and _overlap(env.comparison, versions):
        # Two approved versions in effect at once did not replace one another: "has it changed?" has no yes or no
        # here, and the definition flow sends the overlap to a governance reviewer.
        run.step("compare", "the two versions overlap: not a change")
        return None
    if "owner" in run.intent.aspects:
        env = _with_owner(run, env, primary, objs, versions)
    return env


def _recorded(run, primary, found) -> Envelope:
    """"Yes: X was changed in the catalog at ingest N (day): ...": one object whose content an ingest replaced."""
    left, right = found.earlier, found.current
    comparison = Comparison(left=EvidenceRef.of(left, "compared"), right=EvidenceRef.of(right, "compared"),
                            how=f"the content recorded before ingest {found.ingest} and the content it recorded",
                            fields=diff(left, right, None, None), recorded_ingest=found.ingest, recorded_on=found.day)
    said = "; ".join(f"{c.field} was {c.before or 'not recorded'}, now {c.after or 'not recorded'}"
                     for c in comparison.changed if c.field not in ("effective", "description"))
    verdict = (f"Yes: {primary.label} was changed in the catalog at ingest {found.ingest} ({found.day})"
               + (f": {said}." if said else ".") + _quoted(comparison))
    return run.envelope(Behavior.answer, verdict, selected=[EvidenceRef.of(right, "compared")], comparison=comparison,
                        intent="compare", entity_id=primary.entity_id, entity_label=primary.label)


def _overlap(c: Comparison, versions: list[Evidence]) -> bool:
    """Whether two approved versions compared were in effect on some same day (a draft side is not a version)."""
    by_id = {v.evidence_id: v for v in versions}
    left, right = by_id.get(c.left.evidence_id), by_id.get(c.right.evidence_id)
    return bool(left and right and left is not right and left.overlaps(right.valid_from, right.valid_to))


# A draft asked about as one side: "diff between the churn draft and the approved one", "how does the proposal for X
# differ from the current definition?". The other side is the version that governs (on the date asked, else today),
# or the one version the question names.
def _against_draft(run, primary, versions: list[Evidence]) -> Envelope | None:
    """The draft the question names against the version that governs. Only the role's own drafts are read: with none
    it can see, the answer says so in the words any role without one gets, whether or not a hidden one exists."""
    if not run.reading.names_draft or len(run.intent.versions) > 1:
        return None
    from core.catalog.text import content_words
    today = run.at.date()
    dated = [m for m in run.intent.reporting if m.start and m.kind == "date"]
    day = run.q.day or (dated[0].start if len(dated) == 1 else today)
    kw = dict(intent="compare", entity_id=primary.entity_id, entity_label=primary.label)
    drafts = [d for d in run.view.documents_about(primary.entity_id)
              if d.lifecycle is Lifecycle.draft and d.entity_id == primary.entity_id and retrievable(d, today)]
    if not drafts:
        run.step("compare", f"the question names a draft; {primary.entity_id} has none you can see")
        return run.envelope(Behavior.abstain, f"{primary.label} has no draft you can see, so there is no draft to "
                            "compare with its approved version.", **kw)
    said = set(run.reading.content_words())
    # The draft whose title says most of the question's words ("the 60-day draft"), else the latest.
    draft = max(drafts, key=lambda d: (len(said & set(content_words(d.title))), d.valid_from or date.min,
                                       d.evidence_id))
    named = by_version(versions, run.intent.versions[0][0]) if run.intent.versions else None
    governing = [named] if named else in_effect(versions, day)
    if len(governing) != 1:
        run.step("compare", f"{len(governing)} authoritative versions of {primary.entity_id} in effect on {day}")
        return run.envelope(Behavior.abstain, f"{primary.label} has no single approved version in effect on {day}, "
                            f"so the draft “{draft.title}” has nothing to be compared with.", **kw)
    version = governing[0]
    model = backing_model(version, day, run.view)[0] if primary.role == "metric" else None
    which = f"version {version_name(version)}, as named" if named else f"the version in effect on {day}"
    comparison, selected = _compared(run, version, draft, [model, None],
                                     f"the draft the question names, {draft.evidence_id}, and {which}")
    # A draft records prose, not a formula: only what it records is compared, never "formula: (none)".
    comparison.fields = [f for f in comparison.fields if f.after is not None or f.field == "effective"]
    changed = [c.field for c in comparison.changed if c.field != "effective"]
    head = (f"{primary.label}: the draft “{draft.title}” (not approved) and {version_name(version)}, which "
            + ("you named" if named else f"governs on {day}") + ",")
    verdict = (f"{head} differ in {', '.join(changed)}." + _quoted(comparison) if changed
               else f"{head} say the same in every field the draft records.")
    return run.envelope(Behavior.answer, verdict, selected=selected, comparison=comparison, **kw)


def _with_owner(run, env: Envelope, primary, objs: list[Evidence], versions: list[Evidence]) -> Envelope:
    """"who owns net revenue, and what changed in its last version?": the owner is the answer's first sentence, read
    and worded as the owner question reads and words it (core/answer/intents/ownership.py), whatever the comparison said.
    With fewer than two versions to compare the owner is still an answer, and the verdict says why nothing is
    compared."""
    from core.answer.intents.ownership import owned_by, record
    day = run.q.day or run.at.date()
    recorded = record(primary, day, objs, versions, f"on {day}")
    if recorded is None:
        return env
    ownership, source, _ = recorded
    run.step("owner", f"owner of {source.evidence_id}: {source.owner or 'not recorded'}")
    have = {s.evidence_id for s in env.selected}
    selected = env.selected + ([EvidenceRef.of(source, "owner")]
                               if not ownership.from_draft and source.evidence_id not in have else [])
    behavior = Behavior.answer if len(versions) < 2 and source.owner else env.behavior
    return env.model_copy(update=dict(verdict=f"{owned_by(primary.label, source, ownership.from_draft)} {env.verdict}",
                                      ownership=ownership, selected=selected, behavior=behavior, trace=run.trace))


def _versions(run, primary, versions: list[Evidence]) -> Envelope:
    """Two versions of one entity, chosen as the module docstring says."""
    today = run.at.date()
    kw = dict(intent="compare", entity_id=primary.entity_id, entity_label=primary.label)
    # "has X changed this year?" of an entity with one approved version: that version against itself over what was
    # asked, which says No when it governs all of it (and abstains when it does not). Unversioned objects (most dbt
    # models) record no versions to tell a change by: nothing is compared.
    # With the owner asked too, the owner's answer says which one version there is, since when (`_with_owner`).
    # "X in 2026 vs 2027" asks for two values: one version throughout still has two numbers to compare.
    two_values = run.intent.value and len([m for m in run.intent.reporting if m.start]) >= 2
    alone = (len(versions) == 1 and bool(versions[0].version) and ("changed" in run.intent.aspects or two_values)
             and "owner" not in run.intent.aspects)
    if len(versions) < 2 and not alone:
        run.step("compare", f"{primary.entity_id} has {len(versions)} authoritative version(s) visible to you")
        what = ("no approved version you can see" if not versions else
                f"only one approved version you can see, {version_name(versions[0])}, in effect {interval_text(versions[0])}")
        return run.envelope(Behavior.abstain, f"{primary.label} has {what}, so there is nothing to compare.", **kw)
    labels = [label for label, _ in run.intent.versions]
    dated = [m for m in run.intent.reporting if m.start]
    whole = None  # the one period the question names
    if len(labels) >= 2:
        picks = [(by_version(versions, label), f"version {label}") for label in labels[:2]]
        how = "the two versions the question names"
    elif len(dated) >= 2:
        picks, how = _from_dates(versions, dated)
    elif len(dated) == 1 and dated[0].kind == "period" and not labels:
        # "between 2024 and 2025", "in 2025": the version the period starts with and the one it ends with
        m = dated[0]
        last = m.end - timedelta(days=1)
        whole = (m.start, last)
        picks = [(_on(versions, m.start), str(m.start)), (_on(versions, last), str(last))]
        how = f"the versions in effect at the start ({m.start}) and the end ({last}) of the period the question names"
        began = [v for v in versions if v.valid_from and m.start <= v.valid_from < m.end]
        replaced = _replaced(versions, began[0]) if began else None
        if replaced is not None:
            # "what changed in net revenue in 2025": v2 began on 2025-01-01, so 2025 starts and ends with v2; the
            # change the question is about is v2 against the version it replaced.
            first = began[0]
            end = picks[1][0] or began[-1]
            picks = [(replaced, f"the version {version_name(first)} replaced"), (end, str(last))]
            how = (f"{version_name(first)} began on {first.valid_from}, inside the period the question names "
                   f"({m.start} to {last}): compared with the version it replaced, {version_name(replaced)}"
                   + (f", up to the version in effect at the period's end ({last})" if end is not first else ""))
    else:
        day = run.q.day or (dated[0].start if dated else today)
        current = _on(versions, day) or next((v for v in reversed(versions)
                                             if v.valid_from and v.valid_from <= day), versions[-1])
        named = by_version(versions, labels[0]) if labels else None
        if named is not None and not dated and not run.q.day:
            # "what's new in net revenue v2?": the named version against the one before it (or, for the
            # first version, the one after it), not against today's, which may be the same version.
            at = versions.index(named)
            other = versions[at - 1] if at > 0 else versions[at + 1]
            picks = [(other, f"version {version_name(other)}"), (named, f"version {labels[0]}")]
            how = (f"version {labels[0]}, as named, and the version " + ("before" if at > 0 else "after") + " it")
        elif labels:
            picks = [(named, f"version {labels[0]}"), (current, str(day))]
            how = f"version {labels[0]}, as named, and the version in effect on {day}"
        else:
            before = [v for v in versions if (v.valid_from or date.min) < (current.valid_from or date.min)]
            prior = before[-1] if before else next((v for v in versions if v is not current), current)
            picks = [(prior, "the previous version"), (current, str(day))]
            how = f"the version in effect on {day} and the one before it (no versions or dates named)"
    missing = [what for ev, what in picks if ev is None]
    if missing:
        run.step("compare", "no single authoritative version for " + ", ".join(missing))
        return run.envelope(Behavior.abstain,
                            f"{primary.label} has no single approved version for {' or '.join(missing)}. Versions: "
                            + "; ".join(f"{version_name(v)} {interval_text(v)}" for v in versions) + ".", **kw)
    left, right = sorted([picks[0][0], picks[1][0]], key=lambda v: (v.valid_from or date.min, v.evidence_id))
    models = []
    for v in (left, right):
        when = v.valid_from if not v.valid_on(today) else today
        models.append(backing_model(v, when, run.view)[0] if primary.role == "metric" else None)
    comparison, selected = _compared(run, left, right, models, how)
    changed = [c.field for c in comparison.changed if c.field != "effective"]
    names = f"{version_name(left)}, {interval_text(left)}, and {version_name(right)}, {interval_text(right)},"
    if left.evidence_id == right.evidence_id:
        verdict = (f"The same version of {primary.label}, {version_name(left)} ({interval_text(left)}), is in effect "
                   + (f"for the whole period {whole[0]} to {whole[1]}, and no version began in it"
                      if whole else "on both dates" if len(versions) > 1 else "and is the only approved version you can see")
                   + ": nothing changed.")
    elif changed:
        verdict = f"{primary.label}: {names} differ in {', '.join(changed)}." + _quoted(comparison)
    else:
        verdict = f"{primary.label}: {names} record the same fields apart from their dates."
    return run.envelope(Behavior.answer, verdict, selected=selected, comparison=comparison, **kw)


def _quoted(comparison: Comparison) -> str:
    """The description's changed sentence, quoted, after the verdict's list of fields."""
    said = next((quote_change(c) for c in comparison.changed if c.field == "description"), None)
    return f" The description changed: {said}{end(said)}" if said else ""


def end(quoted: str) -> str:
    """The full stop after a quotation, unless the quoted sentence already ended it."""
    return "" if re.search(r"[.!?]”$", quoted) else "."
