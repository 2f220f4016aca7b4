"""Two month names and one year: "Feb-Apr 2024", "from may to october 2023", "between June and August last year".

People write the year once, after the second month, and mean it for both ends. Read month by month, the first
month took the evaluation year (or was dropped, "may" being a verb) and the second alone was the reporting period,
so a definition change inside the range was never seen. Here the whole phrase is one period, from the first day of
the first month to the end of the second. A range that wraps the year end ("Nov-Jan 2025") ends in the year
written, as people say it. Kept apart from core/read/dates/written.py, which calls `read` from its scan.
"""
from __future__ import annotations

import calendar
import re
from datetime import date

_NAMES = {name.lower(): i for i, name in enumerate(calendar.month_name) if name}
_NAMES.update({name.lower(): i for i, name in enumerate(calendar.month_abbr) if name})
_NAMES["sept"] = 9
_MON = "|".join(sorted(_NAMES, key=len, reverse=True))
_REL_YEAR = {"this": 0, "current": 0, "last": -1, "previous": -1, "prior": -1, "next": 1, "coming": 1}

# "and" joins two months only after "between": "revenue Jan and Feb 2024" compares two months, it is no range.
PATTERN = re.compile(
    r"\b(?P<lead>(?:between|from|for|in|during|over|across)\s+)?(?:the\s+)?"
    r"(?P<m1>" + _MON + r")\.?\s*(?P<joiner>-|–|—|to|through|thru|until|till|and)\s*"
    r"(?P<m2>" + _MON + r")\b\.?(?:\s*,?\s*(?:(?P<y>(?:19|20)\d{2})\b(?![-/.]\d)|['’](?P<yy>\d{2})\b"
    r"|(?:of\s+)?(?P<rel>" + "|".join(_REL_YEAR) + r")\s+year\b))?", re.I)


# "Jan and Feb 2024", "March vs April 2025": two months compared, the year written once. Only the first month is
# matched (the second reads as a month with its year); the year ahead is looked at, not consumed.
PAIRED = re.compile(r"\b(?P<m1>" + _MON + r")\.?(?=\s*(?:and|vs\.?|versus|or|&|against)\s*(?:" + _MON
                    + r")\b\.?\s*,?\s*(?P<y>(?:19|20)\d{2})\b)", re.I)


def read_paired(m: re.Match) -> tuple[date, date, str]:
    """The first month of a compared pair, in the year written after the second."""
    month, year = _NAMES[m.group("m1").lower()], int(m.group("y"))
    return (date(year, month, 1), date(year + (month == 12), month % 12 + 1, 1),
            f"{calendar.month_name[month]} with no year of its own: {year}, the year of the month it is paired with")


def read(m: re.Match, today: date | None) -> tuple[date, date, str] | None:
    """The period [start, end) the match names and how it was read; None when it names no range (the months are
    then read one by one, as before)."""
    g = m.groupdict()
    lead = (g["lead"] or "").strip().lower()
    if g["joiner"].lower() == "and" and lead != "between":
        return None
    m1, m2 = _NAMES[g["m1"].lower()], _NAMES[g["m2"].lower()]
    if m1 == m2:
        return None
    if g["y"] or g["yy"]:
        year, how = (int(g["y"]) if g["y"] else 2000 + int(g["yy"])), "the year written once, for both ends"
    elif g["rel"] and today is not None:
        year = today.year + _REL_YEAR[g["rel"].lower()]
        how = f"'{g['rel'].lower()} year' ({year}) for both ends"
    elif lead and not g["rel"] and today is not None:
        # No year at all ("from may to october"): the latest such range that has begun, as for one month alone.
        year = (today.year if m1 <= today.month else today.year - 1) + (m1 > m2)
        how = f"no year written: the latest such range that has begun, ending in {year}"
    else:
        return None
    start_year = year - 1 if m1 > m2 else year  # "Nov-Jan 2025": November 2024 to January 2025
    start = date(start_year, m1, 1)
    end = date(year + (m2 == 12), m2 % 12 + 1, 1)
    last = calendar.month_name[m2]
    return start, end, f"month range: {calendar.month_name[m1]} {start_year} to {last} {year} ({how})"


PATTERNS = [("month_range", PATTERN), ("paired_month", PAIRED)]
