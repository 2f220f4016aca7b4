"""An answer cites the steward decisions behind it: "v2 governs from 2025-06-01, by a steward decision of
2026-12-05: <reason>".

A decision is cited when the answer selects an object the decision's item was about, the catalog state that
answered already held the decision (its ingest is at or before the state's: "as recorded on" a time before it
cites nothing, as it answered nothing differently), the source has not put it back in the queue by then, and
the role may see every object the item was about (the summary names them).
"""
from __future__ import annotations

from functools import lru_cache

from core.catalog import history
from core.catalog.access import visible
from core.catalog.envelope import Envelope
from core.catalog.store import Store
from core.ingest.decision_file import Decision, Records, decisions_path, read_records

STEWARD_DECISION = "by a steward decision of"


def in_force(records: Records, ingest: int | None) -> list[Decision]:
    """The decisions applied in the catalog state of `ingest`: recorded by then, neither reversed nor settled by
    then, and not contradicted by the last source check read by then."""
    if ingest is None:
        return []
    by_then = [d for d in records.decisions if d.ingest is not None and d.ingest <= ingest]
    gone = {d.reverses for d in by_then if d.reverses} | {d.settles for d in by_then if d.settles}
    checks = [c for c in records.checks if c.ingest is not None and c.ingest <= ingest]
    contradicted = set(checks[-1].contradicted) if checks else set()
    return [d for d in by_then if d.decision not in gone and not d.reverses and d.objects
            and not (d.decision in contradicted and (d.ingest or 0) <= (checks[-1].ingest or 0))]


@lru_cache(maxsize=8)
def _records(path: str, mtime_ns: int, size: int) -> Records:
    # Read once per version of the file (it only grows): an answer does not parse it again.
    return read_records(path.removesuffix(".decisions.yml"))


def cite(store: Store, env: Envelope) -> None:
    """Add the note for each decision in force behind what the answer selected."""
    if not decisions_path(store.path).exists():
        return
    selected = {s.evidence_id for s in env.selected}
    if not selected:
        return
    state = env.recorded
    ingest = state.ingest if state and state.ingest else history.current_ingest(store)
    view = visible(store, env.role, frozenset(env.granted))
    path = decisions_path(store.path)
    stat = path.stat()
    for d in in_force(_records(str(path), stat.st_mtime_ns, stat.st_size), ingest):
        about = set(d.evidence_ids or d.objects)
        if about & selected and view.visible_ids(about) == about:
            env.notes.append(f"{d.summary}, {STEWARD_DECISION} {d.day()}: {d.reason}")
