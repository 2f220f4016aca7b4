"""Values under the version that governed: the number a metric gives for a period, computed by a value engine with
the governing version's own SQL on its backing model version, one value per sub-period where the definition (or
the model behind it) changes, and, for a restatement, the same periods under another version with the difference.

Permissions come first: a role gets a value only if it may see the metric version, the model version behind it and
every source upstream of them (a lineage chain that continues beyond the role's view counts as a source it may not
see). Otherwise the answer is the same not-found as for an object that does not exist, and no SQL runs.
"""
from __future__ import annotations

from datetime import date, datetime, timedelta

from core.answer.value_compare import compared_values
from core.catalog.access import Visible
from core.catalog.envelope import NOT_FOUND, Behavior, Envelope, TraceStep
from core.catalog.evidence import Evidence, Kind
from core.catalog.values import InputLoad, MetricValue, Restatement, RestatementRow, Values
from core.compute.engine import EngineError, ValueEngine
from core.resolve import lineage as lineage_mod
from core.resolve.freshness import source_freshness
from core.resolve.period_loads import covers
from core.resolve.values import last_bucket, over_time, percent_change, rolled_up, value_periods
from core.resolve.versions import backing_model, by_version, governing_versions, in_effect, version_name

MAX_VALUES = 240  # 20 years by month: more is a mistake in the period, refused before anything runs


class _Hidden(Exception):
    """Something the value needs is not visible to the role: answered exactly as a missing object."""


def _model_cuts(view: Visible, versions: list[Evidence]) -> list[date]:
    """Days a linked model entity changes version: a value is never computed across two model versions."""
    cuts: set[date] = set()
    for v in versions:
        for target in v.links.get("implemented_by", []):
            models = [e for e in view.entity_objects(target) if e.kind is Kind.model and e.governs]
            cuts |= {d for m in models for d in (m.valid_from, m.valid_to) if d}
    return sorted(cuts)


class _Checked:
    """Per (version, day) the backing model and the sources, checked once per value request."""

    def __init__(self, view: Visible):
        self.view = view
        self.sources: dict[str, None] = {}
        self._seen: dict[tuple[str, str], Evidence] = {}

    def model(self, version: Evidence, day: date) -> Evidence:
        if version.authority_class == "dbt_metric":
            # A dbt metric built from other metrics (ratio, derived) computes them all: each must be visible,
            # as in core/answer/dbt_values.visible_dbt_metric.
            inputs = set(version.mentions.values())
            if self.view.visible_ids(inputs) != inputs:
                raise _Hidden(f"{version.evidence_id}: an input metric is not visible to the role")
        model, _ = backing_model(version, day, self.view)
        if model is None:
            raise _Hidden(f"{version.evidence_id}: no visible backing model on {day}")
        key = (version.evidence_id, model.evidence_id)
        if key not in self._seen:
            chain = lineage_mod.upstream(self.view, [version.evidence_id, model.evidence_id], day)
            if chain.continues_beyond_view:
                raise _Hidden(f"{model.evidence_id}: its lineage continues beyond the role's view")
            self.sources.update(dict.fromkeys(chain.raw_sources))
            self._seen[key] = model
        return model


def _restate_target(view: Visible, versions: list[Evidence], labels: list[str], at: datetime,
                    previous_of: date | None = None) -> tuple[Evidence | None, str]:
    if previous_of is not None:
        # "under the old definition": the version before the one that governed the period (at its start), never
        # today's against itself
        now = in_effect(versions, previous_of)
        if len(now) == 1 and versions.index(now[0]) > 0:
            before = versions[versions.index(now[0]) - 1]
            return before, f"the old definition ({version_name(before)}, before {version_name(now[0])})"
        return None, ""
    for label in labels:
        named = by_version(versions, label)
        if named is not None:
            return named, f"{version_name(named)}, named in the question"
    now = in_effect(versions, at.date())
    return (now[0], f"today's definition ({version_name(now[0])}, in effect on {at.date()})") if len(now) == 1 else (None, "")


def metric_values(view: Visible, entity_id: str, start: date, end: date, engine: ValueEngine | None, at: datetime,
                  grain: str | None = None, restate: bool = False, version_labels: list[str] = (),
                  previous: bool = False) -> Values:
    """Values of one metric over [start, end) for the role whose view this is (see the module's docstring)."""
    versions = governing_versions([e for e in view.entity_objects(entity_id) if e.kind is Kind.metric_definition],
                                  "metric")
    if not versions:
        return Values(status="not_found_or_not_authorized", message=NOT_FOUND, start=start, end=end)
    if end <= start:
        return Values(status="unavailable", message=f"the period {start} to {end} is empty", start=start, end=end)
    today = at.date()
    if start > today:
        return Values(status="unavailable", start=start, end=end, grain=grain,
                      message=f"the period has not happened yet: it starts on {start}, after today ({today})")
    how = _over_time(versions)
    # A period still running is computed up to the clock's day: a later day has nothing recorded yet (the headline
    # says "so far"), and a month after it is no month to list.
    upto = min(end, today + timedelta(days=1))
    first = start
    if grain is None and not restate and upto - start > timedelta(days=31):
        if how == "last":  # a stock's value for the period is its value at the end: the last month's
            first = last_bucket(start, upto)
        elif how == "average":  # the average of its months, each computed
            grain = "month"
    periods = value_periods(versions, first, upto, grain, _model_cuts(view, versions))
    if first > start:
        periods = periods[-1:]
    if len(periods) > MAX_VALUES:
        return Values(status="unavailable", start=start, end=end, grain=grain,
                      message=f"{len(periods)} values asked for; at most {MAX_VALUES} are computed at once")
    other, why = (_restate_target(view, versions, list(version_labels), at, start if previous else None)
                  if restate else (None, ""))
    if restate and previous and other is None:
        return Values(status="unavailable", start=start, end=end, grain=grain,
                      message="there is no older definition: the version that governed the period is the first")
    checked = _Checked(view)
    try:
        plan = [(p, p.version, checked.model(p.version, p.start)) for p in periods if p.version is not None]
        alt = [(p, checked.model(other, p.start)) for p, _, _ in plan] if other is not None else []
    except _Hidden:
        return Values(status="not_found_or_not_authorized", message=NOT_FOUND, start=start, end=end, grain=grain)
    if engine is None:
        # Said to whoever asked (an analyst): how an operator connects one is in docs/values.md, not here.
        return Values(status="unavailable", start=start, end=end, grain=grain,
                      message="values cannot be computed here: no warehouse is connected to this AsOf to compute them on; "
                              "whoever runs it can connect one")
    skipped = [p for p in periods if p.version is None]
    if not plan:
        return Values(status="unavailable", start=start, end=end, grain=grain,
                      message="no single authoritative version is in effect on any day of the period, so there is "
                              "no value to compute")
    try:
        values = _compute(engine, [(v, m, p.start, p.end) for p, v, m in plan])
        others = _compute(engine, [(other, m, p.start, p.end) for p, m in alt])
    except EngineError as exc:
        return Values(status="unavailable", message=f"the value could not be computed: {exc}", start=start,
                      end=end, grain=grain)
    notes = []
    if skipped:
        spans: list[list[date]] = []
        for p in skipped:  # adjacent pieces read as one span
            if spans and spans[-1][1] == p.start:
                spans[-1][1] = p.end
            else:
                spans.append([p.start, p.end])
        notes.append("no single authoritative version is in effect from "
                     + "; ".join(f"{a} to {b - timedelta(days=1)}" for a, b in spans)
                     + ", so no value is given there")
    restatement = _restatement(other, why, values, others, how) if other is not None else None
    inputs, as_of = _inputs(view, list(checked.sources), at, start, upto)
    return Values(status="computed", message="; ".join(notes), grain=grain, start=start, end=end, values=values,
                  restatement=restatement, inputs=inputs, as_of=as_of, time_aggregation=how)


def _compute(engine: ValueEngine, items: list) -> list[MetricValue]:
    """Every (version, model, start, end) in order; an engine that batches (MetricFlow: one `mf query` per
    version at a shared grain, seconds each) gets them all at once."""
    if not items:
        return []
    many = getattr(engine, "compute_many", None)
    return many(items) if many is not None else [engine.compute(*item) for item in items]


def _over_time(versions: list[Evidence]) -> str | None:
    """How the metric's values roll up over time: as its latest version declares or, undeclared, by its unit."""
    latest = max(versions, key=lambda v: v.valid_from or date.min)
    declared = next((v.metric.time_aggregation for v in sorted(versions, key=lambda v: v.valid_from or date.min,
                                                                 reverse=True)
                     if v.metric is not None and v.metric.time_aggregation), None)
    return declared or over_time(latest.metric)


def _restatement(other: Evidence, why: str, values: list[MetricValue], others: list[MetricValue],
                 how: str | None) -> Restatement:
    rows = []
    for base, alt in zip(values, others):
        alt.governing = base.evidence_id == alt.evidence_id
        diff, pct = percent_change(base.value, alt.value)
        rows.append(RestatementRow(start=base.start, end=base.end, governing=base, other=alt, difference=diff,
                                   percent=pct))
    out = Restatement(other_evidence_id=other.evidence_id, other_title=other.title, why=why, rows=rows,
                      additive=how == "sum", time_aggregation=how)
    then = rolled_up([(r.start, r.end, r.governing.value) for r in rows], how)
    now = rolled_up([(r.start, r.end, r.other.value) for r in rows], how)
    if then is not None and now is not None:
        out.governing_total, out.other_total = then, now
        out.difference, out.percent = percent_change(then, now)
    return out


def _inputs(view: Visible, sources: list[str], at: datetime, day: date,
            end: date) -> tuple[list[InputLoad], datetime | None]:
    loads = []
    for s in sources:
        f = source_freshness(s, view.freshness_objects(s), at, day)
        loaded = f.loaded_at if f else None
        loads.append(InputLoad(source=s, loaded_at=loaded, status=f.status if f else "unknown",
                               covers_period=covers(loaded, end)))
    known = [x.loaded_at for x in loads if x.loaded_at is not None]
    return loads, (min(known) if known else None)


def restated_metrics(view: Visible, intent) -> list[tuple[str, str]]:
    """(entity id, label) of the visible metrics that have the version a restatement names ("how much did the v2
    change move 2024?" names a version and no metric): the question is asked back with these, not guessed."""
    if not intent.restate or not intent.versions:
        return []
    out = []
    for ent in sorted(view.entities.values(), key=lambda e: e.label.lower()):
        if ent.role != "metric":
            continue
        versions = governing_versions(view.entity_objects(ent.entity_id), "metric")
        if any(by_version(versions, label) for label, _ in intent.versions):
            out.append((ent.entity_id, ent.label))
    return out


def attach(view: Visible, env: Envelope, intent, engine: ValueEngine | None) -> None:
    """Add values to an answer about a metric when its question asks for numbers (core/read/intents/intent.py
    value_reading). The answer's own behavior is unchanged: values are computed under what it resolved."""
    if not intent.value or env.entity_id is None or env.behavior not in (Behavior.answer, Behavior.split):
        return
    ent = view.entities.get(env.entity_id)
    if ent is None or ent.role != "metric":
        return
    if env.comparison is not None:  # "X in 2023 vs 2024": each period's value and the difference
        both = compared_values(env, intent, lambda a, b: metric_values(view, env.entity_id, a, b, engine,
                                                                       env.evaluated_at))
        if both is not None:
            env.values = both
            env.trace.append(TraceStep(rule="values", detail=f"{both.status}: two periods compared"))
            return
    if env.period_start and env.period_end:
        start, end = env.period_start, env.period_end
    elif env.reporting_date:
        start, end = env.reporting_date, env.reporting_date + timedelta(days=1)
    else:
        env.values = Values(status="unavailable", message="a value needs a period or a reporting date")
        return
    grain = intent.value_grain
    if intent.grain_word and any(intent.grain_word in name for name in ent.names):
        grain = "month" if intent.restate else None  # "monthly" is the metric's name, not a grain asked for
    env.values = metric_values(view, env.entity_id, start, end, engine, env.evaluated_at, grain=grain,
                               restate=intent.restate, version_labels=[label for label, _ in intent.versions],
                               previous=intent.restate_previous)
    n = len(env.values.values)
    env.trace.append(TraceStep(rule="values", detail= f"{env.values.status}: {n} value(s)"
                                     + (f" with {engine.name}" if engine is not None and n else "")
                                     + (f"; restated under {env.values.restatement.other_evidence_id}"
                                        if env.values.restatement else "")))
