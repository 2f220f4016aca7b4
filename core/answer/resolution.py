"""The resolve and expand steps of one question, for the entity it is about: the visible versions that may still be
retrieved, the one governing the run's date (core/resolve/choose.py), expanded (core/resolve/expand.py) while the
search pass runs (core/resolve/search_pass.py), its conflicts and changes to come, then the verdict; with what
reads it, what it includes and whether drafts disagree when the question asks."""
from __future__ import annotations

from datetime import date, timedelta

from core.answer.intents.ownership import owned_by
from core.catalog.entities import Entity
from core.catalog.envelope import NOT_FOUND, Behavior, Conflict, Envelope, EvidenceRef, SearchHit, VersionAsked
from core.catalog.evidence import Evidence, Lifecycle
from core.resolve import upcoming
from core.resolve.choose import (
    _choose_for_period,
    _choose_on_day,
    _choose_without_date,
    _now_note,
    _version_requests,
    _what_governs,
)
from core.resolve.disagreement import disagreement
from core.resolve.expand import _expand, _named_documents
from core.resolve.inclusion import inclusion
from core.resolve.outcome import _finish
from core.resolve.run import Run as _Run
from core.resolve.search_pass import _search_pass, _start_search
from core.resolve.versions import (
    by_version,
    conflict_candidates,
    conflict_for,
    documents_not_conflicts,
    governing_versions,
    held_for_review,
    interval_text,
    retrievable,
    version_name,
)


def _resolve(run: _Run, entities: dict[str, Entity], primary: Entity, matches, toks) -> Envelope:
    check_day = run.day or (run.period[0] if run.period else run.at.date())
    objs = [e for e in run.view.entity_objects(primary.entity_id) if retrievable(e, check_day)]
    if not objs:
        run.step("entity", f"{primary.entity_id} has no object that may still be retrieved (retired or expired)")
        return run.envelope(Behavior.not_found_or_not_authorized, NOT_FOUND)
    versions = governing_versions(objs, primary.role)
    requested = _version_requests(run, matches, toks, primary)
    named_docs = _named_documents(run, entities, matches, primary)
    kw = dict(entity_id=primary.entity_id, entity_label=primary.label)

    def conflicts(governing: list[Evidence], extra: list[Evidence] = ()) -> list[Conflict]:
        pool = {e.evidence_id: e for e in conflict_candidates(objs, run.day, run.period)}
        pool.update({e.evidence_id: e for e in named_docs})
        pool.update({e.evidence_id: e for e in extra})
        for g in governing:
            pool.pop(g.evidence_id, None)
        for i in [i for i, e in pool.items() if documents_not_conflicts(e)]:
            pool.pop(i)
        named = {e.evidence_id for e in named_docs} | {e.evidence_id for e in extra}
        return [_conflict(e, governing, e.evidence_id in named) for e in pool.values()]

    def _conflict(e: Evidence, governing: list[Evidence], named: bool) -> Conflict:
        # A draft the question names that starts after the date is a change to come, as the upcoming rule says of
        # every later draft: not one that disagrees on the date ("do drafts contradict X?" asked for mid-2025).
        after = upcoming.last_day(run, run.day)
        if after is not None and named and upcoming.starts_after(e, after):
            c = upcoming.not_yet(e, after, governing)
            c.named_in_question = True
            return c
        return conflict_for(e, run.day, governing, named)

    if not versions:
        run.step("authority", f"{primary.entity_id} has no authoritative evidence visible to you; only "
                 f"{len(objs)} non-governing object(s)")
        return _finish(run, Behavior.abstain,
                       f"There is no approved definition of {primary.label}: only non-authoritative material "
                       "exists, and none of it may govern an answer.", conflicts=conflicts([]), **kw)

    wanted = requested.get(primary.entity_id)
    pinned = by_version(versions, wanted) if wanted else None
    if run.period:
        chosen = _choose_for_period(run, primary, versions, conflicts, kw)
    elif run.day is None and not pinned and (held := held_for_review(primary.label, versions, run.at.date(), run.view)):
        run.day = run.at.date()  # the review-queue rule (core/resolve/versions.py): answered as of today
        run.step("review queue", held.why)
        return _finish(run, Behavior.abstain, held.verdict, conflicts=conflicts([]) + [held.conflict], **kw)
    elif run.day is None:
        chosen = _choose_without_date(run, primary, versions, pinned, kw, wanted)
    else:
        chosen = _choose_on_day(run, primary, versions, conflicts, kw)
    if isinstance(chosen, Envelope):
        return chosen
    _now_note(run, primary, versions, chosen)
    # Nothing below returns early: the searches start now and run while the version is expanded.
    searching = _start_search(run, primary) if run.searcher else None
    extra: list[Evidence] = []
    if wanted and (pinned is None or pinned.evidence_id != chosen.evidence_id):
        for_when = run.day or (f"{run.period[0]} to {run.period[1] - timedelta(days=1)}" if run.period else None)
        if pinned:
            extra.append(pinned)
            run.notes.append(f"You asked for {version_name(pinned)}, but it is in effect {interval_text(pinned)}; "
                             f"for {for_when} {version_name(chosen)} governs, so the answer uses it.")
        else:
            run.notes.append(f"{primary.label} has no version {wanted}; the answer uses {version_name(chosen)}.")
        run.step("version request", f"requested version {wanted} is not the one in effect; answered with "
                 f"{chosen.evidence_id}")
    asked = _version_asked(run, primary, objs + named_docs, wanted, pinned)
    if asked is not None:
        kw["version_asked"] = asked
    day = run.day or (run.period[0] if run.period else None)
    if day is None and chosen.valid_on(run.at.date()):
        # No date: the version is expanded as of the evaluation time, not its first day, so its backing
        # model, lineage and freshness are today's.
        day = run.at.date()
        # "today" only when it is the clock's day: a moment the question named ("at 6pm yesterday") is not today
        now = f"as of {day} (the moment asked about)" if run.moment else f"as of today ({day}, the evaluation time)"
        run.notes.append(f"No reporting date was given, so the answer is expanded {now}: the backing model, lineage "
                         "and freshness are those in effect then.")
        run.step("reporting date", f"none given; {chosen.evidence_id} is in effect on {day}, the evaluation "
                 "date, so it is expanded as of then")
    selected, lineage, fresh, missing = _expand(run, chosen, primary, requested, extra, day)
    found = conflicts([chosen], extra)
    found += upcoming.later_conflicts(run, objs, versions, chosen, found, day)
    supporting: list[SearchHit] = []
    if searching:
        more, supporting = _search_pass(run, primary, selected, found, searching)
        found += more
    verdict = _verdict(run, primary, chosen, versions, selected, fresh, found)
    readers = _what_reads_it(run, primary, chosen, day, selected)
    if readers is not None:
        kw["downstream"], said = readers
        verdict = f"{verdict} {said}"
    if run.intent.includes:  # "does CAC include agency fees?": yes, no or not stated, from the definition's fields
        inc = inclusion(chosen, run.intent.includes)
        if inc:
            kw["inclusion"] = inc
            run.step("inclusion", f"{inc.term!r}: {inc.verdict}" + (f" ({inc.where})" if inc.where else ""))
    if "disagreement" in run.intent.aspects:  # "are there drafts that contradict how X is defined?": yes or no
        kw["disagreement"] = _disagreement(run, found, chosen)
    behavior = Behavior.answer
    if missing:
        behavior = Behavior.abstain
        verdict = (verdict if primary.role == "source"
                   else f"{verdict} But {missing}, so that part can't be answered.")
    return _finish(run, behavior, verdict, selected=selected, lineage=lineage, freshness=fresh,
                   conflicts=found, supporting=supporting, **kw)


_DRAFT_NOUNS = {"draft", "proposal"}


def _version_asked(run: _Run, primary: Entity, objs: list[Evidence], wanted: str | None,
                   pinned: Evidence | None) -> VersionAsked | None:
    """The version a yes/no question asks was in force ("was the draft of X in force in Q3?", "did v7 of X apply?")
    or exists ("is there a draft for X?"), and whether the role can see one so named: a draft of a metric with none, or none visible, is said not to exist
    in what the role can see, in the same words however it is hidden."""
    if not (run.reading.asks_in_force or run.reading.asks_exists):
        return None
    if wanted:
        return VersionAsked(said=f"v{wanted}", exists=pinned is not None,
                            evidence_id=pinned.evidence_id if pinned else None)
    if not (run.intent.doc_nouns & _DRAFT_NOUNS or run.reading.says_drafted):
        return None
    draft = next((o for o in objs if o.lifecycle is Lifecycle.draft), None)
    if draft is None:
        run.notes.append(f"{primary.label} has no draft you can see: a draft never governs, and the answer is the "
                         "approved version in effect.")
        run.step("version asked", f"a draft of {primary.entity_id} asked about; none is visible")
    return VersionAsked(said="draft", exists=draft is not None, evidence_id=draft.evidence_id if draft else None)


def _disagreement(run: _Run, found: list[Conflict], chosen: Evidence):
    """Which of the answer's conflicts disagree, of the kinds the question names (core/resolve/disagreement.py)."""
    asked = run.reading.disagreement_kinds
    evidence = {e.evidence_id: e for e in run.view.by_ids(sorted({c.evidence_id for c in found}))}
    dis = disagreement(found, evidence, asked, chosen.evidence_id)
    run.step("disagreement", f"asked whether {' or '.join(asked) or 'anything'} disagrees with {chosen.evidence_id}: "
             f"{dis.verdict}" + (f" ({', '.join(dis.evidence_ids)})" if dis.evidence_ids else "")
             + (f"; other kinds that disagree: {', '.join(dis.others)}" if dis.others else ""))
    return dis


def _what_reads_it(run: _Run, primary: Entity, chosen: Evidence, day: date | None, selected: list[EvidenceRef]):
    """The downstream half of a question that asks more ("which raw tables feed it and what uses it?", "who owns it
    and what depends on it?"): what reads the chosen version on the day, over the role's visible lineage and
    formulas (core/answer/intents/downstream.py), beside its own lineage, as the verdict names the owner beside the
    definition. Its evidence joins `selected`; returns (Downstream, its sentence), or None when not asked."""
    if "downstream" not in run.intent.aspects:
        return None
    from core.answer.intents import downstream
    day = day or chosen.valid_from or run.at.date()
    walked = downstream.walk(run, primary, [chosen], day)
    have = {s.evidence_id for s in selected}
    # Lineage read downstream does not govern this answer as its upstream lineage does: it is listed, not "lineage".
    selected += [s.model_copy(update={"role_in_answer": "downstream"}) if s.role_in_answer == "lineage" else s
                 for s in walked.selected if s.evidence_id not in have]
    when = f"on {day}" if run.day or run.period else f"today ({day})"
    return walked.result, downstream.verdict(primary.label, walked.result.items, walked.result.asked, when)


def _verdict(run: _Run, primary: Entity, chosen: Evidence, versions: list[Evidence], selected,
             fresh, conflicts: list[Conflict]) -> str:
    """One sentence: what governs, for when, and why the alternatives don't; who owns it first when asked."""
    text = _what_governs(run, primary, chosen, versions, selected, fresh, conflicts)
    if chosen.model is not None and chosen.model.enabled is False:
        # Kept so that "which models are disabled?" can list it; never presented as a table someone can query.
        text = f"{primary.label} is disabled in dbt (enabled: false): it is not built, so no table holds it. {text}"
    if "owner" in run.intent.aspects:
        text = f"{owned_by(primary.label, chosen)} {text}"
    return text
