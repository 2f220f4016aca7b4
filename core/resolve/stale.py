"""Freshness over the whole visible catalog: "which sources are stale?", "is everything up to date?".

Each source's status is the one a question about that source gets (core/resolve/freshness.py source_freshness, its
policy and latest load as the role sees them, at the evaluation time); this module only sorts sources by it. A source
with no recorded load is not known: neither stale nor fresh, and said as such.
"""
from __future__ import annotations

from datetime import date, datetime

from core.catalog.dates import age_text
from core.catalog.envelope import FreshnessEntry
from core.resolve.freshness import source_freshness

STALE = ("warn", "error")  # past the warning threshold, or the error one


def standing(entry: FreshnessEntry | None) -> str:
    """stale | fresh | not known: what a whole-catalog freshness question sorts a source by."""
    if entry is None or entry.status == "unknown":
        return "not known"
    return "stale" if entry.status in STALE else "fresh"


def catalog_freshness(view, sources: list[str], at: datetime, day: date) -> dict[str, FreshnessEntry | None]:
    """Each visible source's freshness at `at` (None: nothing recorded that the role may see)."""
    return {s: source_freshness(s, view.freshness_objects(s), at, day) for s in sources}


def freshness_text(entry: FreshnessEntry | None) -> str:
    """What a listed source's row says: its standing, the status, hours since the last load and the thresholds."""
    if entry is None or entry.age_hours is None:
        return "not known: no load recorded" + (f" at or before {entry.evaluated_at:%Y-%m-%d %H:%M} UTC" if entry else "")
    limits = "; ".join(x for x in (f"warn after {entry.warn_after_hours:g} h" if entry.warn_after_hours is not None
                                   else "", f"error after {entry.error_after_hours:g} h"
                                   if entry.error_after_hours is not None else "") if x) or "no thresholds recorded"
    return (f"{standing(entry)} ({entry.status.upper()}): last loaded {age_text(entry.age_hours)} at "
            f"{entry.evaluated_at:%Y-%m-%d %H:%M} UTC; {limits}")


def short_text(entry: FreshnessEntry | None) -> str:
    """The few words a verdict names a source with: "ERROR, last loaded 40 h ago"."""
    if entry is None or entry.age_hours is None:
        return "no load recorded"
    return f"{entry.status.upper()}, last loaded {age_text(entry.age_hours)}"
