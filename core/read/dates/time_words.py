"""A time of day written in words beside a day: "at 6 pm UTC on 3 May", "as of 08:30 yesterday", "June 14 at 7:15 pm".

An ISO timestamp in a question sets when freshness is evaluated; the same moment written the way people write it was
read as its day alone, so "was the feed late at 6 pm on 12 June?" was judged at the clock's time. Here the time and
the day beside it become one timestamp mention (the day kept on it, for a question that asks nothing of freshness,
core/read/dates/when.py). A time with no day beside it ("as of 08:30") is on the evaluation date. No zone, or UTC/GMT/Z,
is UTC; a few common zone abbreviations and written offsets ("UTC+2") are honoured.
"""
from __future__ import annotations

import re
from datetime import date, datetime, time, timedelta, timezone

_ZONES = {"utc": 0, "gmt": 0, "z": 0, "bst": 1, "cet": 1, "cest": 2, "eet": 2, "eest": 3, "est": -5, "edt": -4,
          "cst": -6, "cdt": -5, "mst": -7, "mdt": -6, "pst": -8, "pdt": -7}

# A time needs "at"/"as of"/"by" before it or a day beside it: "3:1", a score or "the 9 am batch" is no moment.
CLOCK = re.compile(
    r"(?<![\w:./-])(?:(?P<lead>at|as\s+of|as\s+at|by)\s+)?"
    r"(?:(?P<h>1[0-2]|0?[1-9])(?::(?P<mi>[0-5]\d))?\s*(?P<ampm>[ap])\.?m\.?(?![a-z])"
    r"|(?P<h24>[01]?\d|2[0-3])[:h](?P<mi24>[0-5]\d)(?![\d:])"
    r"|(?P<word>noon|midday|midnight))"
    r"(?:\s*(?P<tz>" + "|".join(sorted(_ZONES, key=len, reverse=True)) + r")\b"
    r"(?:\s*(?P<off>[+-](?:1[0-4]|0?\d)(?::?[0-5]\d)?))?)?", re.I)
_DAY_AFTER = re.compile(r"\s*,?\s*(?:on|of)?\s*(?:the\s+)?", re.I)  # "6 pm on 3 May", "08:30 yesterday"
_DAY_BEFORE = re.compile(r"\s*,?\s*(?:at|@)?\s*", re.I)  # "yesterday at 23:00", "13 June 2027, 9am"


def _clock(m: re.Match) -> tuple[time, timezone] | None:
    g = m.groupdict()
    if g["word"]:
        if not g["lead"]:
            return None
        clock = time(12) if g["word"].lower() in ("noon", "midday") else time(0)
    elif g["ampm"]:
        hour = int(g["h"]) % 12 + (12 if g["ampm"].lower() == "p" else 0)
        clock = time(hour, int(g["mi"] or 0))
    else:
        clock = time(int(g["h24"]), int(g["mi24"]))
    hours = _ZONES[g["tz"].lower()] if g["tz"] else 0
    if g["off"]:
        sign = -1 if g["off"][0] == "-" else 1
        digits = g["off"][1:].replace(":", "")
        hours += sign * (int(digits[:-2] or 0) + int(digits[-2:]) / 60 if len(digits) > 2 else int(digits))
    return clock, timezone(timedelta(hours=hours))


def attach(text: str, found: list, today: date | None, mention) -> list:
    """`found` (mentions, in text order) with each time of day joined to the day beside it as one timestamp;
    `mention` builds one (core/read/dates/written.py's DateMention, passed in because that module calls this one)."""
    out = list(found)
    for m in CLOCK.finditer(text):
        if any(d.span[0] < m.end() and m.start() < d.span[1] for d in out):
            continue
        read = _clock(m)
        if read is None:
            continue
        day = next((d for d in out if d.kind == "date" and not d.qualifier and (
            (d.span[0] >= m.end() and _DAY_AFTER.fullmatch(text, m.end(), d.span[0]))
            or (d.span[1] <= m.start() and _DAY_BEFORE.fullmatch(text, d.span[1], m.start())))), None)
        if day is None and (today is None or not m.group("lead")):  # "the 9 am batch" names a batch
            continue
        on = day.start if day else today
        span = (min(m.start(), day.span[0]), max(m.end(), day.span[1])) if day else m.span()
        said = m.group().strip()
        rule = (f"time of day {said!r} on {day.text!r} ({on}): the evaluation time" if day else
                f"time of day {said!r} with no day: on the evaluation date {on}, the evaluation time")
        stamp = mention("timestamp", start=on, at=datetime.combine(on, read[0], read[1]).astimezone(timezone.utc),
                        span=span, text=text[span[0]:span[1]], rule=rule)
        if day:
            out.remove(day)
        out.append(stamp)
    return sorted(out, key=lambda d: d.span)
