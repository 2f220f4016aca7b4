"""Dates, periods and timestamps written in a question.

Every period is half-open [start, end), like effective intervals. A year written as a
document's name ("the 2025 draft") is a qualifier of that document, not a reporting period.
"""
from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone

MONTHS = {name.lower(): i for i, name in enumerate(calendar.month_name) if name}
MONTHS.update({name.lower(): i for i, name in enumerate(calendar.month_abbr) if name})
MONTHS["sept"] = 9
_MON = r"(?P<mon>" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\.?"
_DOC_NOUNS = r"(?:draft|wiki|memo|page|note|proposal|doc|document|handbook|version|deck|slide|email|thread)"


@dataclass(frozen=True)
class DateMention:
    kind: str  # "date" | "period" | "timestamp"
    start: date | None = None
    end: date | None = None  # exclusive
    at: datetime | None = None
    span: tuple[int, int] = (0, 0)
    qualifier: bool = False  # names a document ("the 2025 draft"), not the reporting date

    @property
    def day(self) -> date | None:
        return self.start if self.kind == "date" else None


def _month_end(year: int, month: int) -> date:
    return date(year, month, calendar.monthrange(year, month)[1])


def _next_month(year: int, month: int) -> date:
    return date(year + (month == 12), month % 12 + 1, 1)


def _iso_ts(text: str) -> datetime:
    ts = datetime.fromisoformat(text.replace("Z", "+00:00"))
    return ts if ts.tzinfo else ts.replace(tzinfo=timezone.utc)


PATTERNS: list[tuple[str, re.Pattern]] = [
    ("timestamp", re.compile(r"\b(?P<ts>\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)", re.I)),
    ("iso", re.compile(r"\b(?P<y>\d{4})-(?P<m>\d{2})-(?P<d>\d{2})\b")),
    ("end_quarter", re.compile(r"\b(?P<edge>end|close|start|beginning)\s+of\s+(?:the\s+)?q(?P<q>[1-4])\s*(?P<y>\d{4})\b", re.I)),
    ("end_month", re.compile(r"\b(?P<edge>end|close|start|beginning)\s+of\s+" + _MON + r"\s*,?\s*(?P<y>\d{4})\b", re.I)),
    ("end_year", re.compile(r"\b(?P<edge>end|close|start|beginning)\s+of\s+(?:fy\s*|the\s+year\s+)?(?P<y>\d{4})\b", re.I)),
    ("mdy", re.compile(r"\b" + _MON + r"\s+(?P<d>\d{1,2})(?:st|nd|rd|th)?\s*,?\s*(?P<y>\d{4})\b", re.I)),
    ("dmy", re.compile(r"\b(?P<d>\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?" + _MON + r"\s*,?\s*(?P<y>\d{4})\b", re.I)),
    ("quarter", re.compile(r"\b(?:q(?P<q>[1-4])\s*[-/ ]?\s*(?:fy\s*)?(?P<y>\d{4})|(?P<y2>\d{4})\s*[-/ ]?\s*q(?P<q2>[1-4]))\b", re.I)),
    ("half", re.compile(r"\b(?:h(?P<h>[12])\s*[-/ ]?\s*(?:fy\s*)?(?P<y>\d{4})|(?P<y2>\d{4})\s*[-/ ]?\s*h(?P<h2>[12]))\b", re.I)),
    ("month", re.compile(r"\b" + _MON + r"\s*,?\s*(?P<y>\d{4})\b", re.I)),
    ("year", re.compile(r"\b(?:fy\s*|fiscal\s+year\s+|calendar\s+year\s+|cy\s*|year\s+)?(?P<y>(?:19|20)\d{2})\b", re.I)),
]


def find_dates(text: str) -> list[DateMention]:
    """All date mentions, longest pattern first; a span is consumed by the first that matches it."""
    taken = [False] * len(text)
    found: list[DateMention] = []
    for name, pattern in PATTERNS:
        for m in pattern.finditer(text):
            s, e = m.span()
            while s < e and text[s].isspace():
                s += 1
            if any(taken[s:e]):
                continue
            try:
                mention = _build(name, m, (s, e))
                if mention is not None and mention.kind == "date" and mention.start >= date.max:
                    raise ValueError("the calendar's last day has no next day for [day, day + 1)")
            except ValueError:
                # "2025-02-30" is not a date, and its year must not be read as one either.
                for i in range(s, e):
                    taken[i] = True
                continue
            if mention is None:
                continue
            if mention.kind != "timestamp" and re.match(r"\s*(?:'s\s+)?" + _DOC_NOUNS + r"\b", text[e:], re.I):
                mention = DateMention(**{**mention.__dict__, "qualifier": True})
            for i in range(s, e):
                taken[i] = True
            found.append(mention)
    return _join_ranges(text, sorted(found, key=lambda d: d.span))


_JOINER = re.compile(r"\s*(?:to|through|thru|until|till|-|–|\.\.)\s*$", re.I)


def _join_ranges(text: str, found: list[DateMention]) -> list[DateMention]:
    """'H2 2025 through Q1 2026' is one period from the first start to the second end."""
    out: list[DateMention] = []
    for m in found:
        prev = out[-1] if out else None
        if (prev and prev.kind in ("date", "period") and m.kind in ("date", "period") and not prev.qualifier
                and (_JOINER.fullmatch(text[prev.span[1]:m.span[0]])
                     or (re.fullmatch(r"\s*and\s*", text[prev.span[1]:m.span[0]])
                         and re.search(r"\bbetween\s*$", text[:prev.span[0]], re.I)))):
            end = m.end if m.kind == "period" else m.start + timedelta(days=1)
            if end > prev.start:
                out[-1] = DateMention("period", start=prev.start, end=end, span=(prev.span[0], m.span[1]))
                continue
        out.append(m)
    return out


def _build(name: str, m: re.Match, span: tuple[int, int]) -> DateMention | None:
    g = m.groupdict()
    if name == "timestamp":
        return DateMention("timestamp", at=_iso_ts(g["ts"]), span=span)
    if name == "iso":
        return DateMention("date", start=date(int(g["y"]), int(g["m"]), int(g["d"])), span=span)
    if name in ("mdy", "dmy"):
        return DateMention("date", start=date(int(g["y"]), MONTHS[g["mon"].lower()], int(g["d"])), span=span)
    year = int(g.get("y") or g.get("y2"))
    if name == "end_month":
        month = MONTHS[g["mon"].lower()]
        day = date(year, month, 1) if g["edge"].lower() in ("start", "beginning") else _month_end(year, month)
        return DateMention("date", start=day, span=span)
    if name == "end_quarter":
        q = int(g["q"])
        day = date(year, 3 * q - 2, 1) if g["edge"].lower() in ("start", "beginning") else _month_end(year, 3 * q)
        return DateMention("date", start=day, span=span)
    if name == "end_year":
        day = date(year, 1, 1) if g["edge"].lower() in ("start", "beginning") else date(year, 12, 31)
        return DateMention("date", start=day, span=span)
    if name == "quarter":
        q = int(g.get("q") or g.get("q2"))
        return DateMention("period", start=date(year, 3 * q - 2, 1), end=_next_month(year, 3 * q), span=span)
    if name == "half":
        h = int(g.get("h") or g.get("h2"))
        return DateMention("period", start=date(year, 6 * h - 5, 1), end=_next_month(year, 6 * h), span=span)
    if name == "month":
        month = MONTHS[g["mon"].lower()]
        # "may 2025" is a month, but so is the verb "may"; only treat it as a month when capitalised
        # or clearly followed by a year, which the pattern requires.
        return DateMention("period", start=date(year, month, 1), end=_next_month(year, month), span=span)
    if name == "year":
        return DateMention("period", start=date(year, 1, 1), end=date(year + 1, 1, 1), span=span)
    return None


def parse_period(value: str) -> tuple[date, date]:
    """CLI/form period 'START..END' with an inclusive END, returned half-open."""
    if ".." not in value:
        raise ValueError(f"period must be START..END (inclusive end), got {value!r}")
    a, b = (date.fromisoformat(x.strip()) for x in value.split("..", 1))
    if b < a:
        raise ValueError(f"period end {b} is before its start {a}")
    if b >= date.max:  # the half-open end would be the day after the calendar's last
        raise ValueError(f"period end {b} is out of range (the last supported day is {date.max - timedelta(days=1)})")
    return a, b + timedelta(days=1)
