"""Two periods' values side by side: "net revenue in 2023 vs 2024" compares the numbers, not only the versions.

The comparison flow (core/answer/intents/compare.py) already chose and diffed the versions in effect; this computes each
period's value under the versions that governed it, with the same permission checks as any value (a side the
role may not compute answers the whole question as not found), and the difference between the two.
"""
from __future__ import annotations

from datetime import timedelta
from typing import Callable

from core.catalog.envelope import Envelope
from core.catalog.values import MetricValue, PeriodComparison, PeriodSide, Values
from core.resolve.values import percent_change, rolled_up

# Fields a reader compares two definitions by; dates and the owner are not the definition.
_NOT_DEFINITION = ("effective", "owner", "description")


def _name(v: MetricValue) -> str:
    label = v.version or ""
    return f"v{label}" if label[:1].isdigit() else label or v.evidence_id


def _side(values: list[MetricValue], start, end, how: str | None) -> PeriodSide:
    unit = values[0].unit if values else None
    # One figure from the pieces as the metric rolls up over time (a sum, the last, an average); a rate's pieces
    # make no one figure: each is shown.
    total = values[0].value if len(values) == 1 else rolled_up([(v.start, v.end, v.value) for v in values], how)
    return PeriodSide(start=start, end=end, value=total, unit=unit, pieces=len(values),
                      versions=list(dict.fromkeys(_name(v) for v in values)))


def compared_values(env: Envelope, intent, compute: Callable[..., Values]) -> Values | None:
    """The two periods a comparison question names, each computed with `compute(start, end)`; None when the
    question does not compare two periods of one metric (two versions by name, two metrics)."""
    c = env.comparison
    if c is None or c.right_label:
        return None
    dated = sorted((m for m in intent.reporting if m.start), key=lambda m: m.start)[:2]
    if len(dated) < 2:
        return None
    spans = [(m.start, m.end or m.start + timedelta(days=1)) for m in dated]
    each = [compute(a, b) for a, b in spans]
    failed = next((v for v in each if v.status != "computed"), None)
    if failed is not None:
        return failed
    sides = [_side(v.values, a, b, v.time_aggregation) for v, (a, b) in zip(each, spans)]
    diff, pct = percent_change(sides[0].value, sides[1].value)
    changed = ([f.field.replace("_", " ") for f in c.changed if f.field not in _NOT_DEFINITION]
               if sides[0].versions != sides[1].versions else [])
    inputs = {}
    for v in each:  # a source holds what both periods needed only when it does for each
        for i in v.inputs:
            seen = inputs.get(i.source)
            inputs[i.source] = i if seen is None else seen.model_copy(
                update={"covers_period": seen.covers_period and i.covers_period})
    loads = [i.loaded_at for i in inputs.values() if i.loaded_at is not None]
    return Values(status="computed", start=spans[0][0], end=spans[1][1],
                  values=[x for v in each for x in v.values], inputs=list(inputs.values()),
                  as_of=min(loads) if loads else None, message="; ".join(v.message for v in each if v.message),
                  time_aggregation=each[0].time_aggregation,
                  compared=PeriodComparison(sides=sides, difference=diff, percent=pct, changed=changed))
