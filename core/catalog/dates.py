"""Dates, periods and timestamps written in a question.

Every period is half-open [start, end), like effective intervals. A year written as a
document's name ("the 2025 draft") is a qualifier of that document, not a reporting period.
Relative dates ("yesterday", "last quarter", "YTD", "end of last month") are read against the
evaluation time's date (`today`); without it they are not read at all. Fiscal years follow the
catalog's `fiscal_year_start_month` and are named by the calendar year they end in (FY2025 with a
July start is 2024-07-01 to 2025-06-30). A numeric date that reads two ways (03/04/2025) is kept
as `ambiguous`, with both readings, and asked back.
"""
from __future__ import annotations

import bisect
import calendar
import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone

from core.catalog import budget, month_range, time_words

MONTHS = {name.lower(): i for i, name in enumerate(calendar.month_name) if name}
MONTHS.update({name.lower(): i for i, name in enumerate(calendar.month_abbr) if name})
MONTHS["sept"] = 9
_MON = r"(?P<mon>" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\.?"
_DOC_NOUNS = r"(?:draft|wiki|memo|page|note|proposal|doc|document|handbook|version|deck|slide|email|thread|glossary)"


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
    # for the report. With a reporting date on the form it is the evaluation clock, never a clash (core/read/when.py).
    now: bool = False

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
    ("end_month", re.compile(r"\b(?P<edge>end|close|start|beginning|last\s+day|first\s+day)\s+of\s+" + _MON
                             + r"\s*,?\s*(?P<y>\d{4})\b", re.I)),
    ("end_year", re.compile(r"\b(?P<edge>end|close|start|beginning|last\s+day|first\s+day)\s+of\s+(?:fy\s*|the\s+year\s+)?"
                            r"(?P<y>\d{4})\b", re.I)),
    # "eoy 2024", "year-end 2024", "2024 year end"
    ("eoy", re.compile(r"\b(?:eoy|ye|year[- ]end(?:\s+of)?)\s*(?P<y>(?:19|20)\d{2})\b|\b(?P<y2>(?:19|20)\d{2})\s+year[- ]end\b",
                       re.I)),
    # "mid 2025", "mid-year 2025": the end of its first half
    ("mid_year", re.compile(r"\bmid[- ]?(?:year\s+)?(?P<y>(?:19|20)\d{2})\b", re.I)),
    # "Dec '24", "15 mar 25"
    ("month_yy", re.compile(r"\b" + _MON + r"\s*['’](?P<yy>\d{2})\b", re.I)),
    ("dmy_yy", re.compile(r"\b(?P<d>\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?" + _MON + r"\s*,?\s*['’]?(?P<yy>\d{2})\b(?!\d)", re.I)),
    ("mdy", re.compile(r"\b" + _MON + r"\s+(?P<d>\d{1,2})(?:st|nd|rd|th)?\s*,?\s*(?P<y>\d{4})\b", re.I)),
    ("dmy", re.compile(r"\b(?P<d>\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?" + _MON + r"\s*,?\s*(?P<y>\d{4})\b", re.I)),
    ("ord_part", re.compile(r"\b(?:(?P<qord>first|second|third|fourth|1st|2nd|3rd|4th)\s+quarter|"
                            r"(?P<hord>first|second|1st|2nd)\s+half)\s+(?:of\s+)?(?P<y>(?:19|20)\d{2})\b", re.I)),
    # "H1 and H2 2025", "Q1-Q3 2025": the first part borrows the year written after the second
    ("part_pair", re.compile(r"\b(?:(?P<qa>q)(?P<a>[1-4])|(?P<ha>h)(?P<a2>[12]))\s*(?:and|to|through|thru|-|–|&)\s*"
                             r"(?:q(?P<b>[1-4])|h(?P<b2>[12]))\s*(?P<y>(?:19|20)\d{2})\b", re.I)),
    ("quarter_yy", re.compile(r"\b(?:q(?P<q>[1-4])|h(?P<h>[12]))\s*(?:['’]|\s)\s*(?P<yy>\d{2})\b(?![-/.:]\d)", re.I)),
    ("quarter", re.compile(r"\b(?:q(?P<q>[1-4])\s*[-/ ]?\s*(?:fy\s*)?(?P<y>\d{4})|(?P<y2>\d{4})\s*[-/ ]?\s*q(?P<q2>[1-4]))\b", re.I)),
    ("half", re.compile(r"\b(?:h(?P<h>[12])\s*[-/ ]?\s*(?:fy\s*)?(?P<y>\d{4})|(?P<y2>\d{4})\s*[-/ ]?\s*h(?P<h2>[12]))\b", re.I)),
    ("month", re.compile(r"\b" + _MON + r"\s*,?\s*(?P<y>\d{4})\b", re.I)),
    ("year", re.compile(r"\b(?:fy\s*|fiscal\s+year\s+|calendar\s+year\s+|cy\s*|year\s+)?(?P<y>(?:19|20)\d{2})\b", re.I)),
]


_REL = r"(?P<rel>this|current|last|previous|prior|past|next|coming)"
_UNIT = r"(?P<unit>week|month|quarter|qtr|half|half[- ]year|year|fy|quater|quartre|qaurter|quarer|mnth|moth|yr|yeat|wk)"
_UNIT_TYPOS = {"quater": "quarter", "quartre": "quarter", "qaurter": "quarter", "quarer": "quarter", "mnth": "month",
               "moth": "month", "yr": "year", "yeat": "year", "wk": "week"}
_FISCAL = r"(?P<fiscal>fiscal\s+)?"
_EDGE = r"(?P<edge>end|close|start|beginning)"
_COUNT = r"(?P<n>\d{1,3}|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"
_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
            "nine": 9, "ten": 10, "eleven": 11, "twelve": 12}
_ORD = {"first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4}
_PART = (r"(?:q(?P<q>[1-4])|(?P<qord>first|second|third|fourth|1st|2nd|3rd|4th)\s+quarter|h(?P<h>[12])|"
         r"(?P<hord>first|second|1st|2nd)\s+half)")
RELATIVE: list[tuple[str, re.Pattern]] = [
    # "end of Q3 last year", "Q1 of this year", "the first half of last fiscal year": a part of a relative year.
    ("rel_part", re.compile(r"\b(?:" + _EDGE + r"\s+of\s+(?:the\s+)?)?" + _PART + r"\s+(?:of\s+)?(?:the\s+)?" + _REL
                            + r"\s+(?:(?P<fiscal>fiscal\s+)?year|(?P<fy>fy))\b", re.I)),
    # "this time last year": the same day one unit back.
    ("same_day", re.compile(r"\bthis\s+time\s+last\s+(?P<unit>week|month|quarter|year)\b", re.I)),
    # "the last 12 months", "past 30 days", "trailing 4 quarters": a rolling window ending on the evaluation date.
    ("rolling", re.compile(r"\b(?:the\s+)?(?:last|past|previous|prior|trailing)\s+" + _COUNT
                           + r"\s+(?P<unit>day|week|month|quarter|year)s?\b", re.I)),
    # "two quarters ago", "3 months ago", "a year ago": the calendar unit that many back ("a year ago" is
    # last year, like "last year"); days are a single day.
    ("ago", re.compile(r"\b" + _COUNT + r"\s+(?P<unit>day|week|month|quarter|qtr|year)s?\s+(?:ago|back|earlier)\b", re.I)),
    # "the year before last", "the quarter before last"
    ("before_last", re.compile(r"\b(?:the\s+)?(?P<unit>week|month|quarter|half|year)\s+before\s+last\b", re.I)),
    # "since jan", "since september": from the first of the latest such month up to the evaluation date.
    ("since_month", re.compile(r"\bsince\s+(?:the\s+(?:start|beginning)\s+of\s+)?" + _MON
                               + r"(?![\w.])(?!\s*,?\s*'?\d)", re.I)),
    ("rel_edge", re.compile(r"\b" + _EDGE + r"\s+of\s+(?:the\s+)?" + _REL + r"\s+" + _FISCAL + _UNIT + r"\b", re.I)),
    ("rel_end", re.compile(r"\b" + _REL + r"\s+" + _FISCAL + r"(?P<unit>month|quarter|year)[- ]?(?P<edge>end|close)\b", re.I)),
    ("to_date", re.compile(r"\b(?:(?P<abbr>mtd|qtd|ytd|wtd)|(?P<unit>week|month|quarter|year)[- ]to[- ]date)\b", re.I)),
    ("rel_period", re.compile(r"\b" + _REL + r"\s+" + _FISCAL + _UNIT + r"\b", re.I)),
    ("rel_day", re.compile(r"\b(?P<word>today|yesterday|tomorrow)\b", re.I)),
]
NUMERIC = [
    # 2025/06/30, 2025.06.30: year first is never ambiguous
    ("ymd", re.compile(r"\b(?P<y>(?:19|20)\d{2})(?P<sep>[/.])(?P<m>\d{1,2})(?P=sep)(?P<d>\d{1,2})\b(?![/.]\d)")),
    ("iso_month", re.compile(r"\b(?P<y>(?:19|20)\d{2})-(?P<m>0[1-9]|1[0-2])\b(?![-/]\d)")),
    # 9/30/25: a two-digit year, only with slashes (a dotted "1.2.25" is too often a version)
    ("numeric_yy", re.compile(r"\b(?P<a>\d{1,2})/(?P<b>\d{1,2})/(?P<y>\d{2})\b(?![/.]\d)")),
    ("numeric", re.compile(r"\b(?P<a>\d{1,2})(?P<sep>[/.-])(?P<b>\d{1,2})(?P=sep)(?P<y>(?:19|20)\d{2})\b")),
]
FISCAL = [
    ("fiscal_edge", re.compile(r"\b" + _EDGE + r"\s+of\s+(?:the\s+)?(?:fy\s*'?|fiscal\s+(?:year\s+)?)(?P<y>\d{4}|\d{2})\b", re.I)),
    ("fiscal_quarter", re.compile(r"\b(?:q(?P<q>[1-4])\s*[-/ ]?\s*fy\s*'?(?P<y>\d{4}|\d{2})|fy\s*'?(?P<y2>\d{4}|\d{2})\s*[-/ ]?\s*q(?P<q2>[1-4]))\b", re.I)),
    ("fiscal_half", re.compile(r"\b(?:h(?P<h>[12])\s*[-/ ]?\s*fy\s*'?(?P<y>\d{4}|\d{2})|fy\s*'?(?P<y2>\d{4}|\d{2})\s*[-/ ]?\s*h(?P<h2>[12]))\b", re.I)),
    ("fiscal_part", re.compile(r"\b(?:(?P<qord>first|second|third|fourth|1st|2nd|3rd|4th)\s+quarter|"
                               r"(?P<hord>first|second|1st|2nd)\s+half)\s+(?:of\s+)?(?:the\s+)?"
                               r"(?:fy\s*'?|fiscal\s+(?:year\s+)?)(?P<y>\d{4}|\d{2})\b", re.I)),
    ("fiscal_year", re.compile(r"\b(?:fy\s*'?|fiscal\s+(?:year\s+)?)(?P<y>\d{4}|\d{2})\b", re.I)),
]


# Read last, against the evaluation date, once every dated pattern has had its turn: a day or a quarter
# written without a year is this year's ("march 15", "end of q2"); "month end" alone is the latest one.
_NOYEAR_MON = r"(?P<mon>" + "|".join(sorted((m for m in MONTHS if m != "may"), key=len, reverse=True)) + r")\.?"
NOYEAR = [
    ("md", re.compile(r"\b" + _NOYEAR_MON + r"\s+(?P<d>\d{1,2})(?:st|nd|rd|th)?\b(?!\s*[,/.:-]?\s*\d)", re.I)),
    ("dm", re.compile(r"\b(?P<d>\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?" + _NOYEAR_MON + r"\b(?!\s*[,/.:-]?\s*['’]?\d)", re.I)),
    # "on 3 May": after "on" and a day, "may" is the month, not the verb ("the top 3 may change").
    ("dm", re.compile(r"(?<=\bon\s)(?P<d>\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<mon>may)\b(?!\s*[,/.:-]?\s*['’]?\d)", re.I)),
    # "what was AOV in march", "as of end of march": the latest such month, not a future one
    ("month_alone", re.compile(r"\b(?:(?P<edge>end|close|start|beginning)\s+of|in|for|during|by|as\s+of|through)\s+"
                               + _NOYEAR_MON + r"\b(?!\s*[,/.:-]?\s*['’]?\d)", re.I)),
    ("part", re.compile(r"\b(?:(?P<edge>end|close|start|beginning)\s+of\s+(?:the\s+)?)?(?:q(?P<q>[1-4])|h(?P<h>[12]))\b"
                        r"(?!\s*[-/]?\s*\d)", re.I)),
    # ("month-end close" is a process, not a date)
    ("latest_end", re.compile(r"\b(?:(?P<unit>month|quarter|year)[- ]end|(?P<abbr>eom|eoq|eoy))\b(?![- ]clos)", re.I)),
]
# "is the handbook still right?", "what is churn currently": no date, but the question is about now.
NOW = re.compile(r"\b(?:still|currently|right now|nowadays|these days|at the moment|at present|as it stands|now)\b", re.I)


# A bare quarter or half paired with one that has its year: "Q3 vs Q4 2025", "H1 and H2 2024", "Q1-Q2 2025".
_PAIRED_PART = re.compile(r"\s*(?:vs\.?|versus|against|and|or|to|through|thru|compared\s+(?:with|to)|[-–—/])\s*"
                          r"(?:the\s+)?(?P<part>(?:q[1-4]|h[12]))\s*(?:of\s+)?(?P<y>\d{4})\b", re.I)


def _no_year(name: str, m: re.Match, today: date) -> DateMention:
    g = m.groupdict()
    if name in ("md", "dm"):
        d = date(today.year, MONTHS[g["mon"].lower()], int(g["d"]))
        return DateMention("date", start=d, rule=f"day and month with no year: {d}, in the evaluation date's year")
    if name == "month_alone":
        month = MONTHS[g["mon"].lower()]
        year = today.year if month <= today.month else today.year - 1
        what = f"{calendar.month_name[month]} with no year: the latest one, {calendar.month_name[month]} {year}"
        if g.get("edge"):
            d = date(year, month, 1) if _starts(g["edge"]) else _month_end(year, month)
            return DateMention("date", start=d, rule=f"{g['edge'].lower()} of {what}")
        return DateMention("period", start=date(year, month, 1), end=_next_month(year, month), rule=what)
    if name == "part":
        size, n, label = (3, int(g["q"]), "Q") if g.get("q") else (6, int(g["h"]), "H")
        paired = _PAIRED_PART.match(m.string, m.end())
        # "Q3 vs Q4 2025", "H1 and H2 2024": the year said once, after the pair, is both parts' year.
        year = int(paired.group("y")) if paired else today.year
        a = date(year, size * (n - 1) + 1, 1)
        b = _add_months(a, size)
        what = (f"{label}{n} with no year of its own: {label}{n} {year}, the year of the {paired.group('part')} "
                "it is paired with" if paired else
                f"{label}{n} with no year: {label}{n} {today.year}, the evaluation date's year")
        if g.get("edge"):
            d = a if _starts(g["edge"]) else b - timedelta(days=1)
            return DateMention("date", start=d, rule=f"{g['edge'].lower()} of {what}")
        return DateMention("period", start=a, end=b, rule=what)
    unit = (g.get("unit") or {"eom": "month", "eoq": "quarter", "eoy": "year"}[g["abbr"].lower()]).lower()
    start, _ = _unit_start(today, unit, 1)
    d = start - timedelta(days=1)
    return DateMention("date", start=d, rule=f"{unit} end with no date: the latest one, {d}, before the evaluation date {today}")


def _fy_year(y: str) -> int:
    return int(y) + 2000 if len(y) == 2 else int(y)


def fiscal_year_start(fy: int, start_month: int) -> date:
    """FY `fy` is the fiscal year ending in calendar year `fy` (a January start: the calendar year)."""
    return date(fy if start_month == 1 else fy - 1, start_month, 1)


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


def _shift(start: date, months: int, n: int) -> tuple[date, date]:
    if months == 0:
        a = start + timedelta(days=7 * n)
        return a, a + timedelta(days=7)
    a = _add_months(start, months * n)
    return a, _add_months(a, months)


_STEP = {"this": 0, "current": 0, "last": -1, "previous": -1, "prior": -1, "past": -1, "next": 1, "coming": 1}


def _relative(name: str, m: re.Match, today: date, fy_start: int) -> tuple[str, date, date | None, str]:
    """(kind, start, end, rule) for a relative mention."""
    g = m.groupdict()
    if name in _EXTRA:
        return _EXTRA[name](g, today, fy_start)
    if name == "rel_day":
        word = g["word"].lower()
        d = today + timedelta(days={"today": 0, "yesterday": -1, "tomorrow": 1}[word])
        return "date", d, None, f"{word}, from the evaluation date {today}"
    if name == "to_date":
        unit = {"mtd": "month", "qtd": "quarter", "ytd": "year", "wtd": "week"}.get((g["abbr"] or "").lower(),
                                                                                 (g["unit"] or "").lower())
        start, _ = _unit_start(today, unit, fy_start if unit in ("quarter", "year") else 1)
        return "period", start, today + timedelta(days=1), f"{unit} to date: {start} through {today} (evaluation date)"
    unit = g["unit"].lower().replace("-", " ").replace("half year", "half")
    unit = _UNIT_TYPOS.get(unit, unit)
    # "last quarter" is a calendar quarter; "last fiscal quarter" (and "last FY") follows the catalog's fiscal year.
    fiscal_unit = unit == "fy"
    unit = "year" if fiscal_unit else unit
    calendar_start = fy_start if (g.get("fiscal") or fiscal_unit) else 1
    start, months = _unit_start(today, unit, calendar_start)
    a, b = _shift(start, months, _STEP[g["rel"].lower()])
    fiscal = " fiscal" if calendar_start != 1 else ""
    if name == "rel_period":
        return "period", a, b, f"{g['rel'].lower()}{fiscal} {unit} relative to the evaluation date {today}"
    edge = g["edge"].lower()
    d = a if edge in ("start", "beginning") else b - timedelta(days=1)
    return "date", d, None, f"{edge} of {g['rel'].lower()}{fiscal} {unit} relative to the evaluation date {today}"


def _count(g) -> int:
    n = g["n"].lower()
    return int(n) if n.isdigit() else _NUMBERS[n]


def _rel_part(g, today: date, fy_start: int):
    """A quarter or half of this/last/next (fiscal) year; with an edge, its first or last day."""
    year_start = fy_start if (g.get("fiscal") or g.get("fy")) else 1
    start, _ = _unit_start(today, "year", year_start)
    a, _ = _shift(start, 12, _STEP[g["rel"].lower()])
    if g.get("q") or g.get("qord"):
        n, size, label = int(g["q"]) if g.get("q") else _ORD[g["qord"].lower()], 3, "Q"
    else:
        n, size, label = int(g["h"]) if g.get("h") else _ORD[g["hord"].lower()], 6, "H"
    a = _add_months(a, size * (n - 1))
    b = _add_months(a, size)
    fiscal = " fiscal" if year_start != 1 else ""
    what = f"{label}{n} of {g['rel'].lower()}{fiscal} year relative to the evaluation date {today}"
    if g.get("edge"):
        edge = g["edge"].lower()
        return "date", (a if edge in ("start", "beginning") else b - timedelta(days=1)), None, f"{edge} of {what}"
    return "period", a, b, what


def _same_day(g, today: date, fy_start: int):
    unit = g["unit"].lower()
    if unit == "week":
        d = today - timedelta(days=7)
    else:
        months = {"month": 1, "quarter": 3, "year": 12}[unit]
        first = _add_months(date(today.year, today.month, 1), -months)
        d = first.replace(day=min(today.day, calendar.monthrange(first.year, first.month)[1]))
    return "date", d, None, f"this time last {unit}: {d}, one {unit} before the evaluation date {today}"


def _rolling(g, today: date, fy_start: int):
    n, unit = _count(g), g["unit"].lower()
    end = today + timedelta(days=1)
    if unit in ("day", "week"):
        start = end - timedelta(days=n * (7 if unit == "week" else 1))
    else:
        months = n * {"month": 1, "quarter": 3, "year": 12}[unit]
        back = _add_months(date(end.year, end.month, 1), -months)
        start = back.replace(day=min(end.day, calendar.monthrange(back.year, back.month)[1]))
    return "period", start, end, f"the last {n} {unit}s: {start} through {today} (evaluation date)"


def _ago(g, today: date, fy_start: int):
    n, unit = _count(g), g["unit"].lower()
    if unit == "day":
        d = today - timedelta(days=n)
        return "date", d, None, f"{n} days before the evaluation date {today}"
    start, months = _unit_start(today, unit, 1)
    a, b = _shift(start, months, -n)
    return "period", a, b, f"the calendar {unit} {n} before the one containing the evaluation date {today}"


def _before_last(g, today: date, fy_start: int):
    unit = g["unit"].lower()
    start, months = _unit_start(today, unit, 1)
    a, b = _shift(start, months, -2)
    return "period", a, b, f"the {unit} before last, relative to the evaluation date {today}"


def _since_month(g, today: date, fy_start: int):
    month = MONTHS[g["mon"].lower()]
    year = today.year if month <= today.month else today.year - 1  # the latest such month, not a future one
    start = date(year, month, 1)
    return "period", start, today + timedelta(days=1), f"since {calendar.month_name[month]}: {start} through {today} (evaluation date)"


_EXTRA = {"rel_part": _rel_part, "same_day": _same_day, "rolling": _rolling, "ago": _ago,
          "before_last": _before_last, "since_month": _since_month}


def _numeric(name: str, m: re.Match, fy_start: int) -> DateMention | None:
    g = m.groupdict()
    if name == "iso_month":
        y, mo = int(g["y"]), int(g["m"])
        return DateMention("period", start=date(y, mo, 1), end=_next_month(y, mo), rule="YYYY-MM: the whole month")
    if name == "ymd":
        return DateMention("date", start=date(int(g["y"]), int(g["m"]), int(g["d"])), rule="numeric date, year first")
    a, b, y = int(g["a"]), int(g["b"]), int(g["y"])
    if name == "numeric_yy":
        y += 2000
    readings = []
    for d, mo, how in ((a, b, "day/month/year"), (b, a, "month/day/year")):
        try:
            readings.append((date(y, mo, d), how))
        except ValueError:
            pass
    days = list(dict.fromkeys(r[0] for r in readings))
    if not days:
        raise ValueError("not a date")
    if len(days) == 1:
        how = readings[0][1] if len(readings) == 1 else "day and month are equal"
        return DateMention("date", start=days[0], rule=f"numeric date read as {how} (the only valid reading)"
                           if len(readings) == 1 else f"numeric date ({how})")
    return DateMention("ambiguous", start=days[0], readings=tuple(days),
                       rule="numeric date valid as day/month and as month/day: asked back")


def _fiscal(name: str, m: re.Match, fy_start: int) -> DateMention:
    g = m.groupdict()
    fy = _fy_year(g.get("y") or g.get("y2"))
    start = fiscal_year_start(fy, fy_start)
    cal = "calendar" if fy_start == 1 else f"starting in {calendar.month_name[fy_start]}"
    if name == "fiscal_year":
        return DateMention("period", start=start, end=_add_months(start, 12), rule=f"fiscal year FY{fy} ({cal})")
    if name == "fiscal_edge":
        edge = g["edge"].lower()
        d = start if edge in ("start", "beginning") else _add_months(start, 12) - timedelta(days=1)
        return DateMention("date", start=d, rule=f"{edge} of fiscal year FY{fy} ({cal})")
    if name == "fiscal_part":
        if g.get("qord"):
            q = _ORD[g["qord"].lower()]
            a = _add_months(start, 3 * (q - 1))
            return DateMention("period", start=a, end=_add_months(a, 3), rule=f"Q{q} of fiscal year FY{fy} ({cal})")
        h = _ORD[g["hord"].lower()]
        a = _add_months(start, 6 * (h - 1))
        return DateMention("period", start=a, end=_add_months(a, 6), rule=f"H{h} of fiscal year FY{fy} ({cal})")
    if name == "fiscal_quarter":
        q = int(g.get("q") or g.get("q2"))
        a = _add_months(start, 3 * (q - 1))
        return DateMention("period", start=a, end=_add_months(a, 3), rule=f"Q{q} of fiscal year FY{fy} ({cal})")
    h = int(g.get("h") or g.get("h2"))
    a = _add_months(start, 6 * (h - 1))
    return DateMention("period", start=a, end=_add_months(a, 6), rule=f"H{h} of fiscal year FY{fy} ({cal})")


def find_dates(text: str, today: date | None = None, fy_start: int = 1) -> list[DateMention]:
    """All date mentions, longest pattern first; a span is consumed by the first that matches it.

    `today`: the evaluation date, for relative dates; `fy_start`: the fiscal year's first month."""
    taken = [False] * len(text)
    found: list[DateMention] = []
    for name, pattern in PATTERNS[:1]:  # timestamps before anything reads their date part
        _scan(text, name, pattern, taken, found, lambda n, m, sp: _build(n, m, sp))
    for name, pattern in FISCAL:
        _scan(text, name, pattern, taken, found, lambda n, m, sp: _fiscal(n, m, fy_start))
    # Before a relative year or a month with its year reads either end alone ("June and August last year").
    for name, pattern in month_range.PATTERNS:
        _scan(text, name, pattern, taken, found, lambda n, m, sp: _month_range(n, m, today))
    if today is not None:
        for name, pattern in RELATIVE:
            _scan(text, name, pattern, taken, found, lambda n, m, sp: _from_relative(n, m, today, fy_start))
    for name, pattern in NUMERIC:
        _scan(text, name, pattern, taken, found, lambda n, m, sp: _numeric(n, m, fy_start))
    for name, pattern in PATTERNS[1:]:
        _scan(text, name, pattern, taken, found, lambda n, m, sp: _build(n, m, sp))
    if today is not None:
        for name, pattern in NOYEAR:
            _scan(text, name, pattern, taken, found, lambda n, m, sp: _no_year(n, m, today))
        if not found:
            _scan(text, "now", NOW, taken, found, lambda n, m, sp: DateMention(
                "date", start=today, rule=f"'{m.group().lower()}': as of the evaluation date {today}", now=True))
    found = [_since(text, m, today) for m in found]
    found = time_words.attach(text, sorted(found, key=lambda d: d.span), today, DateMention)
    # A quotation that asks something ("pasted from #data-help: '... what applies for the Feb 28 close?'") is the
    # question relayed, not a page's claim.
    quoted = [next(q.span(g) for g in (1, 2, 3) if q.group(g) is not None) for q in QUOTED.finditer(text)]
    quoted = [(a, b) for a, b in quoted if not text[a:b].rstrip().endswith("?")]
    inside = _within(quoted)
    found = [DateMention(**{**m.__dict__, "qualifier": "inside a quotation"})
             if not m.qualifier and inside(m.span) else m for m in found]
    # Unquoted, what a page says runs to the end of its clause: "the legacy wiki says active = logged in during
    # the last 30 days, is that right for 2024-03-31?"
    claims = [(c.end(), _CLAUSE_END.search(text, c.end()).start()) for c in CLAIMED.finditer(text)]
    inside = _within(claims)
    found = [DateMention(**{**m.__dict__, "qualifier": "in what a document says"})
             if not m.qualifier and inside(m.span) else m for m in found]
    return _change_starts(text, _join_ranges(text, sorted(found, key=lambda d: d.span)))


_STARTS_CHANGE = re.compile(r"\b(?:from|starting(?:\s+(?:on|from))?|effective(?:\s+(?:on|from))?|as\s+of\s+which|"
                            r"beginning(?:\s+on)?|moving\s+\w+\s+from)\s*$", re.I)


_ASKED_FOR = re.compile(r"\b(?:for|on|as\s+of|as\s+at|at|in)\s+(?:the\s+)?$", re.I)


def _change_starts(text: str, found: list[DateMention]) -> list[DateMention]:
    """"moving net revenue to captured payments from 1 feb 2025, what applies for the Feb 28 2025 close?": a
    date a change starts from is what the text says about the change; the other date is the one asked about."""
    plain = [m for m in found if not m.qualifier and m.kind in ("date", "period")]
    starts = [m for m in plain if _STARTS_CHANGE.search(text[max(0, m.span[0] - 30):m.span[0]])]
    asked = [m for m in plain if m not in starts and _ASKED_FOR.search(text[max(0, m.span[0] - 20):m.span[0]])]
    if not starts or not asked:  # "from 2024 vs 2025" compares two dates; neither is only a change's start
        return found
    return [DateMention(**{**m.__dict__, "qualifier": "the date a change starts from"}) if m in starts else m
            for m in found]


# Text pasted from a page ("the wiki says 'customers active in the trailing 60 days'") is what the page
# claims, not when the user asks about. A single quote opens only after a non-letter, so "Q3'25" and
# "what's" are not quotations.
QUOTED = re.compile(r"\"([^\"]+)\"|“([^”]+)”|(?<![A-Za-z0-9])'([^']+)'(?![A-Za-z0-9])")


CLAIMED = re.compile(r"\b(?:wiki|page|memo|handbook|doc|document|thread|slack|note|draft|deck|email|glossary|proposal)s?"
                     r"\s+(?:says|said|claims|claimed|states|stated|suggests|reads)\b", re.I)
_SINCE = re.compile(r"\b(?:ever\s+)?since\s+(?:the\s+(?:start|beginning)\s+of\s+)?$", re.I)
_CLAUSE_END = re.compile(r"[,;?]|\s[-–—]\s|\.(?:\s|$)|$")
_DOC_AFTER = re.compile(r"\s*(?:'s\s+)?" + _DOC_NOUNS + r"\b", re.I)
_DOC_BEFORE = re.compile(r"\b" + _DOC_NOUNS + r"s?\s*(?:export\s*)?\(?\s*$", re.I)
_BETWEEN_BEFORE = re.compile(r"\bbetween\s*$", re.I)
# Patterns anchored at a mention's start ($) read only this many characters before it: searching the whole
# text before every mention made a long question quadratic (issue 23).
_LOOKBACK = 80


def _within(spans: list[tuple[int, int]]):
    """A test whether a span lies inside one of `spans`, in log time (not a scan of every span per mention)."""
    spans = sorted(spans)
    starts = [a for a, _ in spans]
    reach, furthest = [], -1  # reach[i]: the furthest end among spans[:i + 1]
    for _, b in spans:
        furthest = max(furthest, b)
        reach.append(furthest)

    def inside(span: tuple[int, int]) -> bool:
        i = bisect.bisect_right(starts, span[0]) - 1
        return i >= 0 and reach[i] >= span[1]
    return inside


def _ends_before(pattern: re.Pattern, text: str, end: int) -> re.Match | None:
    """`pattern` (anchored with $) matched in the text just before `end`; linear in the question."""
    return pattern.search(text, max(0, end - _LOOKBACK), end)


def _since(text: str, m: DateMention, today: date | None) -> DateMention:
    """'since Oct 2025', 'since 2024-03-01': the period from that date (or period's start) through the
    evaluation date. Without an evaluation date, or when the start is after it, the mention is kept as written."""
    if (today is None or m.qualifier or m.kind not in ("date", "period") or m.rule.startswith("since")
            or not _ends_before(_SINCE, text, m.span[0]) or m.start > today):
        return m
    return DateMention("period", start=m.start, end=today + timedelta(days=1), span=m.span, text=m.text,
                       rule=f"since {m.text}: {m.start} through {today} (evaluation date)")


def _month_range(name: str, m: re.Match, today: date | None) -> DateMention | None:
    read = month_range.read(m, today) if name == "month_range" else month_range.read_paired(m)
    return read and DateMention("period", start=read[0], end=read[1], rule=read[2])


def _from_relative(name, m, today, fy_start) -> DateMention:
    kind, start, end, rule = _relative(name, m, today, fy_start)
    return DateMention(kind, start=start, end=end, rule=rule,
                       now=name == "rel_day" and m.group("word").lower() == "today")


NOT_A_DATE = "not a date in the calendar"


def _month_named(g: dict) -> tuple[date, ...]:
    """The last day of the month a day-too-large date names ("feb 30 2024": 29 Feb 2024), when it names one."""
    try:
        year = int(g.get("y") or g.get("y2") or 0) or (2000 + int(g["yy"]) if g.get("yy") else 0)
        month = int(g["m"]) if g.get("m") else MONTHS.get((g.get("mon") or "").lower(), 0)
        return (_month_end(year, month),) if year and month else ()
    except (ValueError, OverflowError, KeyError):
        return ()


def _scan(text, name, pattern, taken, found, build) -> None:
    for m in pattern.finditer(text):
        budget.check()
        s, e = m.span()
        while s < e and text[s].isspace():
            s += 1
        if any(taken[s:e]):
            continue
        try:
            mention = build(name, m, (s, e))
            if mention is not None and mention.kind == "date" and mention.start >= date.max:
                raise OverflowError("the last day the calendar holds has no day after it, which an answer needs")
        except (ValueError, OverflowError) as exc:
            # "2025-02-30" is not a date, and its year must not be read as one either; nor is it dropped unsaid,
            # which answered as of today (core/read/when.py asks which day was meant).
            for i in range(s, e):
                taken[i] = True
            found.append(DateMention("invalid", span=(s, e), text=text[s:e], qualifier=NOT_A_DATE,
                                     rule=str(exc) if isinstance(exc, OverflowError) else "no such day",
                                     readings=() if isinstance(exc, OverflowError) else _month_named(m.groupdict())))
            continue
        if mention is None:
            continue
        # "the 2025 draft", and a year right after a document's name: "kpi glossary 2022", "the handbook (2023)"
        if mention.kind != "timestamp" and (_DOC_AFTER.match(text, e) or (
                name == "year" and _ends_before(_DOC_BEFORE, text, s))):
            mention = DateMention(**{**mention.__dict__, "qualifier": "names a document"})
        for i in range(s, e):
            taken[i] = True
        rule = mention.rule or _RULES.get(name, name)
        found.append(DateMention(**{**mention.__dict__, "span": (s, e), "text": text[s:e], "rule": rule}))


_RULES = {"timestamp": "ISO timestamp: the evaluation time", "iso": "ISO date", "ord_part": "calendar quarter or half", "end_quarter": "edge of a calendar quarter",
          "end_month": "edge of a month", "end_year": "edge of a calendar year", "mdy": "month day, year",
          "dmy": "day month year", "quarter": "calendar quarter", "half": "calendar half", "month": "month and year",
          "year": "calendar year"}


_JOINER = re.compile(r"\s*(?:to|through|thru|until|till|-|–|\.\.)\s*$", re.I)


def _join_ranges(text: str, found: list[DateMention]) -> list[DateMention]:
    """'H2 2025 through Q1 2026' is one period from the first start to the second end."""
    out: list[DateMention] = []
    for m in found:
        prev = out[-1] if out else None
        if (prev and prev.kind in ("date", "period") and m.kind in ("date", "period") and not prev.qualifier
                and (_JOINER.fullmatch(text[prev.span[1]:m.span[0]])
                     or (re.fullmatch(r"\s*and\s*", text[prev.span[1]:m.span[0]])
                         and _ends_before(_BETWEEN_BEFORE, text, prev.span[0])))):
            end = m.end if m.kind == "period" else m.start + timedelta(days=1)
            if end > prev.start:
                out[-1] = DateMention("period", start=prev.start, end=end, span=(prev.span[0], m.span[1]),
                                      text=text[prev.span[0]:m.span[1]], rule=f"range: {prev.rule} to {m.rule}")
                continue
        out.append(m)
    return out


def _starts(edge: str) -> bool:
    return edge.lower().split()[0] in ("start", "beginning", "first")


def _build(name: str, m: re.Match, span: tuple[int, int]) -> DateMention | None:
    g = m.groupdict()
    if name == "timestamp":
        return DateMention("timestamp", at=_iso_ts(g["ts"]), span=span)
    if name == "iso":
        return DateMention("date", start=date(int(g["y"]), int(g["m"]), int(g["d"])), span=span)
    if name in ("mdy", "dmy"):
        return DateMention("date", start=date(int(g["y"]), MONTHS[g["mon"].lower()], int(g["d"])), span=span)
    if name == "part_pair":
        year = int(g["y"])
        size_a, a = (3, int(g["a"])) if g.get("qa") else (6, int(g["a2"]))
        size_b, b = (3, int(g["b"])) if g.get("b") else (6, int(g["b2"]))
        start = date(year, size_a * (a - 1) + 1, 1)
        end = _add_months(date(year, size_b * (b - 1) + 1, 1), size_b)
        if end <= start:
            return None
        return DateMention("period", start=start, end=end, span=span, rule="two parts of one year: from the first's start to the second's end")
    if name == "eoy":
        return DateMention("date", start=date(int(g.get("y") or g.get("y2")), 12, 31), span=span, rule="year end")
    if name == "mid_year":
        return DateMention("date", start=date(int(g["y"]), 6, 30), span=span, rule="mid-year: the end of its first half")
    if name == "month_yy":
        year, month = 2000 + int(g["yy"]), MONTHS[g["mon"].lower()]
        return DateMention("period", start=date(year, month, 1), end=_next_month(year, month), span=span,
                           rule="month and two-digit year")
    if name == "dmy_yy":
        return DateMention("date", start=date(2000 + int(g["yy"]), MONTHS[g["mon"].lower()], int(g["d"])), span=span,
                           rule="day month two-digit year")
    if name == "quarter_yy":
        year, size = 2000 + int(g["yy"]), (3 if g.get("q") else 6)
        n = int(g.get("q") or g.get("h"))
        a = date(year, size * (n - 1) + 1, 1)
        return DateMention("period", start=a, end=_add_months(a, size), span=span,
                           rule=f"{'Q' if size == 3 else 'H'}{n} {year} (two-digit year)")
    year = int(g.get("y") or g.get("y2"))
    if name == "ord_part":
        size = 3 if g.get("qord") else 6
        n = _ORD[(g.get("qord") or g.get("hord")).lower()]
        a = date(year, size * (n - 1) + 1, 1)
        return DateMention("period", start=a, end=_add_months(a, size), span=span,
                           rule=f"{'Q' if size == 3 else 'H'}{n} {year}")
    if name == "end_month":
        month = MONTHS[g["mon"].lower()]
        day = date(year, month, 1) if _starts(g["edge"]) else _month_end(year, month)
        return DateMention("date", start=day, span=span)
    if name == "end_quarter":
        q = int(g["q"])
        day = date(year, 3 * q - 2, 1) if g["edge"].lower() in ("start", "beginning") else _month_end(year, 3 * q)
        return DateMention("date", start=day, span=span)
    if name == "end_year":
        day = date(year, 1, 1) if _starts(g["edge"]) else date(year, 12, 31)
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


LAST_DAY = date.max - timedelta(days=1)  # the last day whose half-open [day, day + 1) exists


def check_day(day: date, what: str = "reporting date") -> date:
    """`day` if the calendar has the day after it; otherwise a ValueError every surface shows as its refusal
    (the CLI's argument error, the MCP tool error): resolution works on [day, day + 1)."""
    if day > LAST_DAY:
        raise ValueError(f"{what} {day} is out of range (the last supported day is {LAST_DAY})")
    return day


def parse_period(value: str) -> tuple[date, date]:
    """CLI/form period 'START..END' with an inclusive END, returned half-open."""
    if ".." not in value:
        raise ValueError(f"period must be START..END (inclusive end), got {value!r}")
    a, b = (date.fromisoformat(x.strip()) for x in value.split("..", 1))
    if b < a:
        raise ValueError(f"period end {b} is before its start {a}")
    return a, check_day(b, "period end") + timedelta(days=1)


def age_text(hours: float | None) -> str:
    """'27 h ago', '3 days ago': how old a load is, in the words every answer and the app use."""
    if hours is None:
        return "never"
    if hours < 10:  # to the tenth the freshness table shows: a 3.5 h load is not "4 h ago" beside "3.5 h"
        return f"{hours:.1f}".removesuffix(".0") + " h ago"
    if hours < 48:
        return f"{hours:.0f} h ago"
    return f"{hours / 24:.0f} days ago"
