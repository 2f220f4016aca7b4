"""Whether a source holds the loads a period needed: a past period is judged on its own loads, not on today's.

A load at or after the period's end (midnight UTC of the day after its last day) was taken once the period was
over, so the source holds every row dated inside it. Today's load being late says nothing about such a period;
a load before the period ended (or a period still running) leaves its value open to rows not loaded yet.
"""
from __future__ import annotations

from datetime import date, datetime, time, timezone


def covers(loaded_at: datetime | None, end: date) -> bool:
    """`end` is exclusive (the day after the period's last day)."""
    if loaded_at is None:
        return False
    at = loaded_at if loaded_at.tzinfo else loaded_at.replace(tzinfo=timezone.utc)
    return at >= datetime.combine(end, time.min, tzinfo=timezone.utc)
