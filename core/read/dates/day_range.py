"""The days AsOf answers for: one range, and one refusal every surface gives outside it (the CLI, the MCP tools,
the Ask page, a date written in a question)."""
from __future__ import annotations

from datetime import date, datetime

# The days AsOf answers for, as a reporting date, a period's ends or an evaluation time. Every rule that reads a
# date moves at most 999 units back ("999 years ago", "the last 999 months") and a year ahead ("next year", a
# fiscal year named by the year it ends in, a month bucket's end, a time zone's day), so inside this window no
# reading or resolution step leaves the calendar (years 1 to 9999) and overflows.
FIRST_DAY = date(1000, 1, 1)
LAST_DAY = date(9998, 12, 31)
RANGE = f"AsOf answers for days from {FIRST_DAY} to {LAST_DAY}"


def out_of_range(day: date) -> bool:
    return not FIRST_DAY <= day <= LAST_DAY


def check_day(day: date, what: str = "reporting date") -> date:
    """`day` if AsOf answers for it; otherwise the ValueError every surface shows as its refusal (the CLI's
    argument error, the MCP tool error, the Ask page's error): the same words for year 1, year 9999 and a
    period of ten thousand years."""
    if out_of_range(day):
        raise ValueError(f"{what} {day} is out of range ({RANGE})")
    return day


def check_time(at: datetime, what: str = "evaluation time") -> datetime:
    """An evaluation or recorded-at time, refused like a day out of range (its own day; the window's margin
    covers the day its time zone moves it to)."""
    if out_of_range(at.date()):
        raise ValueError(f"{what} {at.isoformat()} is out of range ({RANGE})")
    return at
