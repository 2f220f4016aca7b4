"""Relative dates, read against the evaluation date: "last quarter", "YTD", "the last 12 months", "two quarters
ago", "end of Q3 last fiscal year", "since jan", "yesterday". Without an evaluation date none is read. "last
quarter" is a calendar quarter; "last fiscal quarter" (and "last FY") follows the catalog's fiscal year."""
from __future__ import annotations

import calendar
import re
from datetime import date, timedelta

from core.read.dates.mention import _EDGE, _MON, _ORD, MONTHS, DateMention, _add_months, _unit_start

_REL = r"(?P<rel>this|current|last|previous|prior|past|next|coming)"
_UNIT = r"(?P<unit>week|month|quarter|qtr|half|half[- ]year|year|fy|quater|quartre|qaurter|quarer|mnth|moth|yr|yeat|wk)"
_UNIT_TYPOS = {"quater": "quarter", "quartre": "quarter", "qaurter": "quarter", "quarer": "quarter", "mnth": "month",
               "moth": "month", "yr": "year", "yeat": "year", "wk": "week"}
_FISCAL = r"(?P<fiscal>fiscal\s+)?"
_COUNT = r"(?P<n>\d{1,3}|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"
_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
            "nine": 9, "ten": 10, "eleven": 11, "twelve": 12}
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
    # "last Friday": the Friday before the evaluation date (a week back when that date is itself a Friday)
    ("last_weekday", re.compile(r"\b(?:last|previous|this\s+past)\s+(?P<wd>monday|tuesday|wednesday|thursday|friday|"
                                r"saturday|sunday)\b", re.I)),
    ("rel_day", re.compile(r"\b(?P<word>today|yesterday|tomorrow)\b", re.I)),
]


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


_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")


def _last_weekday(g, today: date, fy_start: int):
    back = (today.weekday() - _WEEKDAYS.index(g["wd"].lower())) % 7 or 7
    d = today - timedelta(days=back)
    return "date", d, None, f"last {g['wd'].capitalize()}: the one before the evaluation date {today}"


_EXTRA = {"last_weekday": _last_weekday, "rel_part": _rel_part, "same_day": _same_day, "rolling": _rolling, "ago": _ago,
          "before_last": _before_last, "since_month": _since_month}


def _from_relative(name, m, today, fy_start) -> DateMention:
    kind, start, end, rule = _relative(name, m, today, fy_start)
    return DateMention(kind, start=start, end=end, rule=rule,
                       now=name == "rel_day" and m.group("word").lower() == "today")
