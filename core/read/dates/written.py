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

import calendar
import re
from datetime import date, datetime, timedelta, timezone

from core.catalog.text import furthest_reach
from core.read.dates import month_range, time_words
from core.read.dates.day_range import RANGE, check_day, out_of_range
from core.read.dates.mention import (
    _EDGE,
    _MON,
    _ORD,
    MONTHS,
    DateMention,
    _add_months,
    _month_end,
    _next_month,
    _starts,
    _unit_start,
)
from core.read.dates.relative import RELATIVE, _from_relative
from core.settings import budget

_DOC_NOUNS = r"(?:draft|wiki|memo|page|note|proposal|doc|document|handbook|version|deck|slide|email|thread|glossary)"


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
    """A test whether a span lies inside one of `spans`."""
    reach = furthest_reach(spans)
    return lambda span: reach(span[0]) >= span[1]


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


NOT_A_DATE = "not a date in the calendar"


def _month_named(g: dict) -> tuple[date, ...]:
    """The last day of the month a day-too-large date names ("feb 30 2024": 29 Feb 2024), when it names one."""
    try:
        year = int(g.get("y") or g.get("y2") or 0) or (2000 + int(g["yy"]) if g.get("yy") else 0)
        month = int(g["m"]) if g.get("m") else MONTHS.get((g.get("mon") or "").lower(), 0)
        return (_month_end(year, month),) if year and month else ()
    except (ValueError, OverflowError, KeyError):
        return ()


def _beyond(mention: DateMention) -> bool:
    """A date written in the question outside the days AsOf answers for: asked back, with the range."""
    if mention.kind == "timestamp":
        return mention.at is not None and out_of_range(mention.at.date())
    last = mention.end - timedelta(days=1) if mention.end else mention.start
    return any(d is not None and out_of_range(d) for d in (mention.start, last))


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
            if mention is not None and _beyond(mention):
                raise OverflowError(f"out of range: {RANGE}")
        except (ValueError, OverflowError) as exc:
            # "2025-02-30" is not a date, and its year must not be read as one either; nor is it dropped unsaid,
            # which answered as of today (core/read/dates/when.py asks which day was meant).
            if isinstance(exc, ValueError) and str(exc).startswith("year "):  # "Q4 9999" ends in year 10000
                exc = OverflowError(f"out of range: {RANGE}")
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


def parse_period(value: str) -> tuple[date, date]:
    """CLI/form period 'START..END' with an inclusive END, returned half-open."""
    if ".." not in value:
        raise ValueError(f"period must be START..END (inclusive end), got {value!r}")
    a, b = (date.fromisoformat(x.strip()) for x in value.split("..", 1))
    if b < a:
        raise ValueError(f"period end {b} is before its start {a}")
    return check_day(a, "period start"), check_day(b, "period end") + timedelta(days=1)
