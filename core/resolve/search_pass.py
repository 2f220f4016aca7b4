"""The search pass beside a resolved answer, inside the role's visible set: approved evidence found by hybrid
search is listed as supporting, drafts and pages found by full text count as conflicts only when they name the
entity and speak to the same time. Neither changes what governs."""
from __future__ import annotations

from datetime import timedelta

from core.catalog.entities import Entity
from core.catalog.envelope import Conflict, EvidenceRef, SearchHit
from core.catalog.text import tokenize
from core.resolve.run import Run as _Run
from core.resolve.versions import conflict_for, retrievable
from core.retrieve.search import fuse

SEARCH_K = 15


# Approved evidence, in SQL over index rows: the answer pass's part of the search.
_APPROVED = "authority = 'authoritative' AND lifecycle NOT IN ('draft', 'superseded', 'deprecated')"


def _search_filters(run: _Run) -> tuple[str, str]:
    """The search pass's filters: the role's current body rows, and the approved ones among them."""
    base = f"{run.searcher.view_filter(run.view)} AND part = 'body' AND lifecycle <> 'retired'"
    return base, f"{base} AND {_APPROVED}"


def _start_search(run: _Run, primary: Entity):
    """Start the search pass's searches on the searcher's threads (Lance and the encoder release the GIL, so they
    run while this thread expands the version); _search_pass collects them."""
    base, approved = _search_filters(run)
    names = " ".join(" ".join(n) for n in primary.names[:3])
    texts = run.searcher.submit(lambda: [
        run.searcher.text(run.reading.search_query, approved, 2 * SEARCH_K),  # as hybrid() takes each half: twice what it keeps
        run.searcher.text(f"{run.reading.search_query} {names}", f"{base} AND NOT ({_APPROVED})", SEARCH_K)])
    vector = run.answer_vector or run.searcher.submit(run.searcher.vector, run.reading.search_query, approved, k=2 * SEARCH_K)
    run.answer_vector = None  # collected by _search_pass
    return texts, vector


def _search_pass(run: _Run, primary: Entity, selected: list[EvidenceRef], conflicts: list[Conflict], searching):
    """Two searches inside the visible set, each pre-filtered to what it may return.

    Answer pass: hybrid search over approved evidence, listed as supporting. Conflict pass: full-text
    search over drafts, superseded pages and notes for the question and the entity's names; a hit
    counts only when it names the entity and speaks to the same time. Neither changes what governs.
    """
    texts, vec = searching
    answer_text, conflict_hits = texts.result()
    answer_hits = fuse(vec.result(), answer_text, SEARCH_K)
    known = {s.evidence_id for s in selected} | {c.evidence_id for c in conflicts}
    # Re-read from the live catalog: current text and current permissions, whatever the index holds. Every
    # conflict hit, and approved hits in rank order only until three supporting ones are found: reading all ~30
    # hits was a fifth of an answer's catalog reads at 100,000 objects.
    others = [h.evidence_id for h in answer_hits if h.evidence_id not in known]
    tried = {h.evidence_id for h in conflict_hits if h.evidence_id not in known} | set(others[:6])
    live = {e.evidence_id: e for e in run.view.by_ids(sorted(tried))}
    check_day = run.day or (run.period[0] if run.period else run.at.date())
    more, supporting, seen = [], [], set(known)
    for h in conflict_hits:
        ev = live.get(h.evidence_id)
        if ev is None or ev.evidence_id in seen or ev.governs or not retrievable(ev, check_day):
            continue
        seen.add(ev.evidence_id)
        owner = run.view.entities.get(ev.entity_id)
        if ev.entity_id != primary.entity_id and not (owner and owner.role == "document"):
            continue  # a draft of another metric is that metric's business
        words = [t.norm for t in tokenize(f"{ev.title} {ev.text}")]
        mentions = any(tuple(words[i:i + len(n)]) == n for n in primary.names for i in range(len(words)))
        # A page that says just "revenue" is about net revenue only if no other visible metric could be meant.
        mentions = mentions or (primary.head in words and len(run.view.heads.get(primary.head, ())) == 1)
        if mentions and ev.overlaps(*_window(run)):
            c = conflict_for(ev, run.day, [], False)
            c.why = "found by search: " + c.why.replace("the answer follows no authoritative evidence",
                                                       "it does not govern")
            more.append(c)
    for h in answer_hits:
        if len(supporting) >= 3:
            break
        if h.evidence_id in others and h.evidence_id not in tried:
            batch = [i for i in others if i not in tried][:6]
            tried.update(batch)
            live.update({e.evidence_id: e for e in run.view.by_ids(batch)})
        ev = live.get(h.evidence_id)
        if (ev is None or ev.evidence_id in seen or not ev.governs or ev.entity_id == primary.entity_id
                or not retrievable(ev, check_day)):
            continue
        seen.add(ev.evidence_id)
        supporting.append(SearchHit(evidence_id=ev.evidence_id, title=ev.title, kind=ev.kind.value,
                                    authority=ev.authority.value, lifecycle=ev.lifecycle.value,
                                    score=round(h.score, 4)))
    if more or supporting:
        run.step("search", "in your visible set: "
                 + ", ".join([f"{c.evidence_id} (conflict)" for c in more] + [s.evidence_id for s in supporting]))
    return more, supporting


def _window(run: _Run):
    if run.period:
        return run.period
    if run.day:
        return run.day, run.day + timedelta(days=1)
    return None, None
