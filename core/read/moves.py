"""A follow-up's move in time, read from its words: "and the year before?", "the month before", "the previous
quarter", "a year earlier", "the next month", "vs last year?", "compared with the quarter before". Read against the
period on the table (core/answer/conversation.py moves it), never against the clock: in a conversation about 2025,
"the year before" is 2024 whatever today is."""
from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import date, timedelta

_UNIT = r"(?P<unit>year|quarter|month|week|day)"
BACK = re.compile(r"\b(?:the\s+|a\s+|one\s+)?" + _UNIT + r"\s+(?:before|earlier|prior|ago)\b|"
                  r"\b(?:the\s+)?(?:previous|prior|preceding|last)\s+" + _UNIT.replace("unit", "unit2") + r"\b", re.I)
AHEAD = re.compile(r"\b(?:the\s+|a\s+|one\s+)?" + _UNIT + r"\s+(?:after|later)\b|"
                   r"\b(?:the\s+)?(?:next|following)\s+" + _UNIT.replace("unit", "unit2") + r"\b", re.I)
VERSUS = re.compile(r"\b(?:vs\.?|versus|against|compared?\s+(?:with|to)|and\s+compare\s+(?:with|to))\s*$", re.I)


@dataclass(frozen=True)
class Move:
    unit: str  # year | quarter | month | week | day
    steps: int  # -1: before, +1: after
    compare: bool  # "vs last year?": the period on the table beside the moved one
    span: tuple[int, int]


def period_move(question: str) -> Move | None:
    """The move a follow-up asks for, or None."""
    for pattern, steps in ((BACK, -1), (AHEAD, 1)):
        m = pattern.search(question)
        if m:
            unit = (m.group("unit") or m.group("unit2")).lower()
            return Move(unit, steps, bool(VERSUS.search(question[:m.start()])), m.span())
    return None


_MONTHS = {"year": 12, "quarter": 3, "month": 1}


def _months(d: date, n: int) -> date:
    m = d.year * 12 + d.month - 1 + n
    y, mo = divmod(m, 12)
    return date(y, mo + 1, min(d.day, calendar.monthrange(y, mo + 1)[1]))


def _shift(d: date, unit: str, n: int) -> date:
    if unit in _MONTHS:
        return _months(d, n * _MONTHS[unit])
    return d + timedelta(days=n * (7 if unit == "week" else 1))


def moved(period: tuple[date, date], move: Move) -> tuple[date, date]:
    """The period `move` names from the one on the table [start, end): a unit as long as it or longer shifts it by
    that unit ("the year before" Q2 2025 is Q2 2024, "the month before" May 2025 is April); a shorter unit is the one
    just before it starts, or just after it ends ("the month before" 2025 is December 2024)."""
    a, b = period
    unit_end = _shift(a, move.unit, 1)
    if unit_end >= b:  # the unit is at least the period's length: the same period, a unit earlier or later
        return _shift(a, move.unit, move.steps), _shift(b, move.unit, move.steps) if b.day == a.day or \
            move.unit not in _MONTHS else _shift(a, move.unit, move.steps) + (b - a)
    if move.steps < 0:
        return _shift(a, move.unit, -1), a
    return b, _shift(b, move.unit, 1)


# "what changed between them?", "compare the two versions", "how do they differ?": the two versions the last answer
# showed, compared
BETWEEN_THEM = re.compile(r"\b(?:between\s+(?:them|these|those|the\s+two)|(?:the|these|those)\s+two\s+versions|"
                          r"both\s+versions|compare\s+(?:them|the\s+two|both)|how\s+do\s+they\s+differ)\b", re.I)


def asks_between_them(question: str) -> bool:
    return bool(BETWEEN_THEM.search(question))
