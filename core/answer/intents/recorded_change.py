"""Whether an object changed between ingests: "has X changed?" of a definition dbt keeps as one unversioned object,
whose edits show only in what each ingest recorded (core/catalog/history.py), not as versions in one catalog.

The earlier revision is read through the role's view of the catalog as that ingest recorded it, with today's
permissions (as every as-recorded answer is), so it is redacted exactly as today's is; an object the role may not see
now is never reached, since only the visible versions in effect are looked up.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from core.catalog.access import visible
from core.catalog.evidence import Evidence
from core.catalog.history import PastStore, ingests, past_store


@dataclass
class RecordedChange:
    earlier: Evidence  # the content recorded before, as the role's view of that ingest reads it
    current: Evidence
    ingest: int  # the ingest that recorded `current`'s content
    day: date


def recorded_change(run, versions: list[Evidence]) -> RecordedChange | None:
    """The last new content an ingest recorded of the version in effect (inside the period asked, when one is), or
    None."""
    store = run.view.store
    if isinstance(store, PastStore) or not versions:
        return None
    day = run.day or run.at.date()
    current = next((v for v in reversed(versions) if v.valid_on(day)), versions[-1])
    found = _last_change(store, current.evidence_id)
    if found is None:
        return None
    before_ingest, changed_at = found
    when = {i.number: i.ingested_at for i in ingests(store)}.get(changed_at)
    if when is None or not _in_period(run, when.date()):
        return None
    earlier = visible(past_store(store, before_ingest), run.q.role, run.q.grants).by_ids([current.evidence_id])
    if not earlier or earlier[0].content_hash == current.content_hash:
        return None
    run.step("compare", f"{current.evidence_id}: new content recorded at ingest {changed_at}, against ingest "
                        f"{before_ingest}'s")
    return RecordedChange(earlier[0], current, changed_at, when.date())


def _last_change(store, evidence_id: str) -> tuple[int, int] | None:
    """(an ingest that recorded the earlier content, the ingest that recorded today's), or None when every ingest
    recorded one content (an ACL change alone is not a change of the definition)."""
    rows = store.con.execute("SELECT content_hash, recorded_from FROM evidence_history WHERE evidence_id = ? "
                             "ORDER BY recorded_from", [evidence_id]).fetchall()
    runs: list[tuple[str, int]] = []
    for content, start in rows:
        if not runs or runs[-1][0] != content:
            runs.append((content, start))
    if len(runs) < 2:
        return None
    return runs[-2][1], runs[-1][1]


def _in_period(run, recorded: date) -> bool:
    """A change asked of a period ("has it changed this year?") is one recorded in it; with no period, any."""
    if run.period:
        return run.period[0] <= recorded < run.period[1]
    return True
