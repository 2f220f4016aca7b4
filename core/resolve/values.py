"""Which version computes which part of a period: pure rules over already-authorized versions.

A period is cut into buckets of the grain asked for (month, quarter, year, or the whole period), and each bucket
again wherever the governing metric version or the model version behind it changes, so that every value is
computed by exactly one version on exactly one model version (brief: a period crossing a definition change is
answered per sub-period).
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from core.catalog.evidence import Evidence, MetricSpec
from core.resolve.versions import in_effect

GRAINS = ("month", "quarter", "year")
# Units whose values add up over time when the metric declares nothing: money and counts; never a rate ("USD per
# order", "percent") or a measurement.
_COUNTED = ("customers", "orders", "count")


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


def over_time(spec: MetricSpec | None) -> str | None:
    """How a metric's values over several periods make one (`metric.time_aggregation`): `sum`, `last` or `average`
    as declared; undeclared, `sum` for a currency or a count and None (each piece shown, none made up) for a rate
    or a measurement. A stock (pass holders, subscribers, recurring revenue at month end) declares `last`, so a
    quarter's value is its last day's, never three month ends added up."""
    if spec is None:
        return None
    if spec.time_aggregation:
        return spec.time_aggregation
    unit = (spec.unit or "").strip()
    return "sum" if unit in _COUNTED or (unit.startswith("USD") and "per" not in unit) else None


def rolled_up(pieces: list[tuple[date, date, float | None]], how: str | None) -> float | None:
    """One value from consecutive pieces (start, end exclusive, value), as `over_time` says: their sum, the last
    piece's value, or their average weighted by days (a piece cut short by a definition change counts for its
    days). None when a piece has no value or the metric's values are not rolled up."""
    if not pieces or how is None or any(v is None for _, _, v in pieces):
        return None
    if how == "last":
        return pieces[-1][2]
    if how == "average":
        days = [(b - a).days for a, b, _ in pieces]
        return round(sum(d * v for d, (_, _, v) in zip(days, pieces)) / sum(days), 2) if sum(days) else None
    return round(sum(v for _, _, v in pieces), 2)


def last_bucket(start: date, end: date) -> date:
    """The start of the last calendar month of [start, end) (never before `start`): where a stock's value at the
    period's end is read when no grain was asked for."""
    last = date(end.year, end.month, 1) if end.day > 1 else date(end.year - (end.month == 1), (end.month - 2) % 12 + 1, 1)
    return max(start, last)
