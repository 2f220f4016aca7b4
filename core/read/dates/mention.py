"""A date written in a question, as read (`DateMention`), and the calendar arithmetic every reading shares.

Periods are half-open [start, end), like effective intervals; months, quarters, halves and years are counted
from a first month (1 = the calendar year, else the catalog's fiscal year start)."""
from __future__ import annotations

import calendar
from dataclasses import dataclass
from datetime import date, datetime, timedelta

MONTHS = {name.lower(): i for i, name in enumerate(calendar.month_name) if name}
MONTHS.update({name.lower(): i for i, name in enumerate(calendar.month_abbr) if name})
MONTHS["sept"] = 9
_MON = r"(?P<mon>" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\.?"


@dataclass(frozen=True)
class DateMention:
    kind: str  # "date" | "period" | "timestamp" | "ambiguous" | "invalid" (read as a date, but no day: "feb 30")
    start: date | None = None
    end: date | None = None  # exclusive
    at: datetime | None = None
    span: tuple[int, int] = (0, 0)
    # Why the words are not the reporting date although they read as one: they name a document ("the 2025
    # draft") or stand inside a quotation ("the wiki says 'active in the trailing 60 days'"). Empty otherwise.
    qualifier: str = ""
    text: str = ""  # the words as written
    rule: str = ""  # how they were read
    readings: tuple[date, ...] = ()  # "ambiguous": the valid readings of a numeric date; "invalid": its month's end
    # "now", "right now", "currently", "still" (and "today"): the evaluation time's date, not a date written
    # for the report. With a reporting date on the form it is the evaluation clock, never a clash (core/read/dates/when.py).
    now: bool = False

    @property
    def day(self) -> date | None:
        return self.start if self.kind == "date" else None


def _month_end(year: int, month: int) -> date:
    return date(year, month, calendar.monthrange(year, month)[1])


def _next_month(year: int, month: int) -> date:
    return date(year + (month == 12), month % 12 + 1, 1)


_EDGE = r"(?P<edge>end|close|start|beginning)"


_ORD = {"first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4}


def _add_months(d: date, months: int) -> date:
    n = d.year * 12 + d.month - 1 + months
    return date(n // 12, n % 12 + 1, 1)


def _unit_start(today: date, unit: str, fy_start: int) -> tuple[date, int]:
    """First day of the week/month/quarter/half/year containing `today`, and its length in months
    (0 for a week). Quarters, halves and years are counted from `fy_start` (1 = calendar)."""
    if unit == "week":
        return today - timedelta(days=today.weekday()), 0
    months = {"month": 1, "quarter": 3, "qtr": 3, "half": 6, "year": 12}[unit]
    offset = (today.month - fy_start) % months if months > 1 else 0
    return _add_months(date(today.year, today.month, 1), -offset), months


def _starts(edge: str) -> bool:
    return edge.lower().split()[0] in ("start", "beginning", "first")
