"""A follow-up's move in time, read from its words: "and the year before?", "the month before", "the previous
quarter", "a year earlier", "the next month", "vs last year?", "compared with the quarter before". Read against the
period on the table (core/answer/conversation.py moves it, taking the move from the question's Reading), never
against the clock: in a conversation about 2025,
"the year before" is 2024 whatever today is."""
from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import date, timedelta

from core.read.dates.relative import _COUNT, _NUMBERS

_UNIT = r"(?P<unit>year|quarter|month|week|day)"
# How many units: "the year before", "a year later", "twelve months later", "2 quarters earlier" (the counts the
# date reader's rolling windows take, core/read/dates/relative.py).
_STEPS = r"\b(?:the\s+|" + _COUNT + r"\s+)?"
BACK = re.compile(_STEPS + _UNIT + r"s?\s+(?:before|earlier|prior|ago)\b|"
                  r"\b(?:the\s+)?(?:previous|prior|preceding|last)\s+" + _UNIT.replace("unit", "unit2") + r"\b", re.I)
# "a year on" moves ahead as "a year later" does; "year on year" is a growth, not a move.
AHEAD = re.compile(_STEPS + _UNIT + r"s?\s+(?:after|later|on(?!\s+(?:year|quarter|month|week|day)))\b|"
                   r"\b(?:the\s+)?(?:next|following)\s+" + _UNIT.replace("unit", "unit2") + r"\b", re.I)
VERSUS = re.compile(r"\b(?:vs\.?|versus|against|compared?\s+(?:with|to)|and\s+compare\s+(?:with|to))\s*$", re.I)


@dataclass(frozen=True)
class Move:
    unit: str  # year | quarter | month | week | day
    steps: int  # units moved: negative before, positive after ("twelve months later": 12)
    compare: bool  # "vs last year?": the period on the table beside the moved one
    span: tuple[int, int]
    words: str = ""  # the words of the move as written ("the year before"), to say back

    def from_period(self, period: tuple[date, date]) -> tuple[date, date]:
        """The period this move names from `period` (see `moved`)."""
        return moved(period, self)

    def same_days(self, period: tuple[date, date]) -> tuple[date, date]:
        """`period` a unit earlier or later by the calendar at both ends: 1 Jan to 8 Mar 2028 is 1 Jan to 8 Mar 2027
        (not 68 days from 1 Jan 2027), as "so far this year vs last" sets them."""
        return _shift(period[0], self.unit, self.steps), _shift(period[1], self.unit, self.steps)


def period_move(question: str) -> Move | None:
    """The move a follow-up asks for, or None."""
    for pattern, sign in ((BACK, -1), (AHEAD, 1)):
        m = pattern.search(question)
        if m:
            unit = (m.group("unit") or m.group("unit2")).lower()
            count = m.group("n")
            steps = sign * (int(count) if count and count.isdigit() else _NUMBERS.get((count or "a").lower(), 1))
            return Move(unit, steps, bool(VERSUS.search(question[:m.start()])), m.span(), m.group(0))
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
        return _shift(a, move.unit, move.steps), a
    return b, _shift(b, move.unit, move.steps)


# "what changed between them?", "compare the two versions", "how do they differ?": the two versions the last answer
# showed, compared
BETWEEN_THEM = re.compile(r"\b(?:between\s+(?:them|these|those|the\s+two)|(?:the|these|those)\s+two\s+versions|"
                          r"both\s+versions|compare\s+(?:them|the\s+two|both)|how\s+do\s+they\s+differ)\b", re.I)


def asks_between_them(question: str) -> bool:
    return bool(BETWEEN_THEM.search(question))


_ANCHOR = re.compile(r"\b(?:the\s+|a\s+|one\s+)?(?P<unit>year|quarter|month|week|day)\s+(?P<dir>before|after|prior\s+to)"
                     r"\s*$", re.I)


def anchored(question: str, dates: list) -> list:
    """"the quarter before Q1 2025", "the month after March 2026": a period named against a date the question
    writes, moved from it (not from the clock). `dates`: the DateMentions read; the moved ones replace them."""
    from dataclasses import replace as _replace
    out = []
    for d in dates:
        m = _ANCHOR.search(question[:d.span[0]]) if d.kind in ("period", "date") and d.start else None
        if m is None:
            out.append(d)
            continue
        end = d.end or d.start + timedelta(days=1)
        move = Move(m.group("unit").lower(), 1 if m.group("dir").lower() == "after" else -1, False, m.span())
        a, b = moved((d.start, end), move)
        out.append(_replace(d, kind="period" if b - a > timedelta(days=1) else "date", start=a,
                            end=b if b - a > timedelta(days=1) else None, span=(m.start(), d.span[1]),
                            text=question[m.start():d.span[1]], rule=f"{m.group(0).strip()} {d.text}: moved from it"))
    return out


SO_FAR_VS = re.compile(r"\b(?:so\s+far\s+this|this)\s+(?P<unit>year|quarter|month)(?:\s+so\s+far|\s+to\s+date)?\s+"
                       r"(?:vs\.?|versus|against|compared\s+(?:with|to))\s+(?:the\s+same\s+(?:span|period)\s+)?"
                       r"(?:last|the\s+previous|the\s+prior)(?:\s+(?P=unit))?\b", re.I)
_SO_FAR = re.compile(r"\bso\s+far\b|\bto\s+date\b", re.I)


def so_far_versus(question: str, dates: list, today: date | None, mention) -> list:
    """"so far this year vs last": this year up to the clock's day beside the same span of last year (not all of
    last year, which would set a part against a whole). `mention` builds a DateMention."""
    m = SO_FAR_VS.search(question)
    if m is None or today is None or not _SO_FAR.search(question):
        return dates
    unit = m.group("unit").lower()
    months = _MONTHS[unit]
    first = date(today.year, 1, 1) if unit == "year" else date(today.year, (today.month - 1) // months * months + 1, 1)
    now = (first, today + timedelta(days=1))
    then = (_shift(first, unit, -1), _shift(today, unit, -1) + timedelta(days=1))
    kept = [d for d in dates if d.span[1] <= m.start() or d.span[0] >= m.end()]
    said = [mention("period", start=a, end=b, span=m.span(), text=m.group(0),
                    rule=f"{unit} so far: {a} to {b - timedelta(days=1)}") for a, b in (then, now)]
    return sorted(kept + said, key=lambda d: d.span)
