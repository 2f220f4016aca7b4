"""Which version computes which part of a period: pure rules over already-authorized versions.

A period is cut into buckets of the grain asked for (month, quarter, year, or the whole period), and each bucket
again wherever the governing metric version or the model version behind it changes, so that every value is
computed by exactly one version on exactly one model version (brief: a period crossing a definition change is
answered per sub-period).
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from core.catalog.evidence import Evidence
from core.resolve.versions import in_effect

GRAINS = ("month", "quarter", "year")


@dataclass(frozen=True)
class ValuePeriod:
    start: date
    end: date  # exclusive
    version: Evidence | None  # None: no version in effect (or several: a reviewer must decide)


def _next(day: date, grain: str) -> date:
    months = {"month": 1, "quarter": 3, "year": 12}[grain]
    first = date(day.year, day.month, 1)
    if grain == "quarter":
        first = date(day.year, (day.month - 1) // 3 * 3 + 1, 1)
    elif grain == "year":
        first = date(day.year, 1, 1)
    m = first.month - 1 + months
    return date(first.year + m // 12, m % 12 + 1, 1)


def buckets(start: date, end: date, grain: str | None) -> list[tuple[date, date]]:
    """[start, end) cut at calendar month, quarter or year starts; the first and last bucket may be partial."""
    if grain is None:
        return [(start, end)]
    if grain not in GRAINS:
        raise ValueError(f"unknown grain {grain!r}; expected one of {', '.join(GRAINS)}")
    out, a = [], start
    while a < end:
        b = min(_next(a, grain), end)
        out.append((a, b))
        a = b
    return out


def value_periods(versions: list[Evidence], start: date, end: date, grain: str | None,
                  model_cuts: list[date] = ()) -> list[ValuePeriod]:
    """Buckets of the grain, each cut at every version boundary and every backing-model boundary inside it."""
    out: list[ValuePeriod] = []
    edges = {e for v in versions for e in (v.valid_from, v.valid_to) if e} | set(model_cuts)
    for a, b in buckets(start, end, grain):
        points = sorted({a, b} | {e for e in edges if a < e < b})
        for lo, hi in zip(points, points[1:]):
            here = in_effect(versions, lo)
            out.append(ValuePeriod(lo, hi, here[0] if len(here) == 1 else None))
    return out


def percent_change(base: float | None, other: float | None) -> tuple[float | None, float | None]:
    """(other - base, the same as a percentage of |base|); None where it cannot be said."""
    if base is None or other is None:
        return None, None
    diff = round(other - base, 6)
    return diff, (round(diff / abs(base) * 100, 2) if base else None)
