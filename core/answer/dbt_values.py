"""dbt metric values for one role, computed by MetricFlow: now, and as the definition was recorded at an ingest.

Permission comes first: a role gets a value only when its view of the catalog (catalog/access.py `visible`,
the one ACL predicate) holds the dbt metric, the models that implement it and every input metric it names;
otherwise the same `MetricNotVisible` as for a metric that does not exist, so nothing about restricted metrics
leaks. Only then is MetricFlow (core/ingest/metricflow.py) handed a semantic manifest.

The definition used is the one the catalog recorded: the semantic manifest kept by the ingest in force
(core/ingest/semantic_history.py), so a value always matches the definition AsOf shows, and a restatement
compares the manifest recorded at an earlier ingest with today's, both over today's warehouse.
"""
from __future__ import annotations

import json
from datetime import date, datetime

from pydantic import BaseModel, ConfigDict

from core.catalog import history
from core.catalog.access import Visible, visible
from core.catalog.evidence import Evidence
from core.catalog.store import Store
from core.ingest.metricflow import DbtTools, Grain, MetricQuery, manifest_metrics, query_metric
from core.ingest.semantic_history import RecordedManifest, manifest_at, recorded_manifests


class MetricNotVisible(LookupError):
    """One message for "does not exist" and "may not be seen", as everywhere else in AsOf."""

    def __init__(self, metric: str, role: str):
        super().__init__(f"no dbt metric {metric!r} among what role {role!r} may see")
        self.metric, self.role = metric, role


class NotRecordedThen(LookupError):
    """The role may see the metric now, but the catalog had no such dbt metric at the ingest asked about."""

    def __init__(self, metric: str, ingest: int, at: datetime):
        super().__init__(f"dbt metric {metric!r} was not in the catalog as recorded at {at.isoformat()} (ingest "
                         f"{ingest}); it was added later")
        self.metric, self.ingest = metric, ingest


class DbtMetricValues(BaseModel):
    """Values of one metric for one role, with the catalog evidence and the recorded manifest they rest on."""
    model_config = ConfigDict(arbitrary_types_allowed=True)
    role: str
    metric: str
    evidence_id: str
    version: str | None
    manifest: RecordedManifest | None  # None: no ingest kept a manifest; the project's own current one was used
    query: MetricQuery


class PeriodChange(BaseModel):
    period_start: date | None
    then: float | None
    now: float | None
    difference: float | None  # now - then
    percent: float | None  # difference / |then| * 100; None when then is 0 or missing


class Restatement(BaseModel):
    """A metric as recorded at one ingest and as it stands now, period by period."""
    metric: str
    definition_changed: bool
    then: DbtMetricValues
    now: DbtMetricValues
    periods: list[PeriodChange]


def _name(e: Evidence) -> str:
    # dbt metrics keep dbt's unique_id (metric.<package>.<name>) as their evidence id.
    return e.evidence_id.rsplit(".", 1)[-1]


def visible_dbt_metric(view: Visible, metric: str) -> Evidence:
    """The dbt metric named `metric` in this view, when its models and input metrics are visible too."""
    for e in view.of_kinds(["metric_definition"]):
        if e.authority_class != "dbt_metric" or _name(e) != metric:
            continue
        needed = set(e.links.get("implemented_by", [])) | set(e.mentions.values())
        if view.visible_ids(needed) == needed:
            return e
    raise MetricNotVisible(metric, view.role)


def _ingest_times(store: Store) -> dict[int, datetime]:
    return {i.number: i.ingested_at for i in history.ingests(store)}


def _recorded(store: Store, ingest: int | None) -> tuple[RecordedManifest | None, str | None]:
    if ingest is None:
        return None, None
    try:
        return manifest_at(store.path, ingest, _ingest_times(store))
    except LookupError:
        return None, None


def kept_manifests(store: Store) -> list[RecordedManifest]:
    """Which semantic manifest (sha256, target folder) each dbt ingest of this catalog kept, oldest first."""
    return recorded_manifests(store.path, _ingest_times(store))


def _values(view: Visible, store: Store, ingest: int | None, project, metric: str, start: date, end: date,
            grain: Grain | None, tools: DbtTools | None) -> DbtMetricValues:
    evidence = visible_dbt_metric(view, metric)
    recorded, text = _recorded(store, ingest)
    q = query_metric(project, metric, start, end, grain, manifest=text, tools=tools)
    return DbtMetricValues(role=view.role, metric=metric, evidence_id=evidence.evidence_id, version=evidence.version,
                           manifest=recorded, query=q)


def dbt_metric_values(store: Store, role: str, project, metric: str, start: date, end: date,
                      grain: Grain | None = "month", grants: frozenset[str] = frozenset(),
                      tools: DbtTools | None = None) -> DbtMetricValues:
    """`metric` per `grain` from `start` to `end` (inclusive) for `role`, with today's recorded definition."""
    return _values(visible(store, role, grants), store, history.current_ingest(store), project, metric, start, end,
                   grain, tools)


def definition(manifest: str, metric: str) -> str:
    """A metric's whole definition in a manifest, canonical: the metric, its input metrics and every measure
    they aggregate (with its semantic model), so two manifests can be compared for this metric alone."""
    metrics = manifest_metrics(manifest)
    measures = {m.get("name"): {"semantic_model": sm.get("name"), "relation": sm.get("node_relation"), **m}
                for sm in json.loads(manifest).get("semantic_models") or [] for m in sm.get("measures") or []}
    seen: dict[str, dict] = {}

    def walk(name: str) -> None:
        if name in seen or name not in metrics:
            return
        m = seen[name] = metrics[name]
        tp = m.get("type_params") or {}
        for ref in [tp.get("measure"), tp.get("numerator"), tp.get("denominator"), *(tp.get("input_measures") or [])]:
            if isinstance(ref, dict) and ref.get("name") in measures:
                seen[f"measure:{ref['name']}"] = measures[ref["name"]]
            if isinstance(ref, dict) and ref.get("name") in metrics:
                walk(ref["name"])
        for ref in tp.get("metrics") or []:
            walk(ref.get("name"))

    walk(metric)
    return json.dumps(seen, sort_keys=True, default=str)


def _change(p: date | None, then: float | None, now: float | None) -> PeriodChange:
    diff = None if then is None or now is None else now - then
    pct = None if diff is None or not then else diff / abs(then) * 100
    return PeriodChange(period_start=p, then=then, now=now, difference=diff, percent=pct)


def restatement(store: Store, role: str, project, metric: str, start: date, end: date, recorded_at: datetime,
                grain: Grain | None = "month", grants: frozenset[str] = frozenset(),
                tools: DbtTools | None = None) -> Restatement:
    """`metric` as its definition was recorded at `recorded_at` and as it is now, both over today's data, with
    the difference per period. The role must see the metric in both states; permissions are today's (as for
    every as-recorded answer, core/catalog/history.py)."""
    past = history.state_at(store, recorded_at)
    then_view = visible(history.past_store(store, past.number), role, grants)
    now_view = visible(store, role, grants)
    now_evidence = visible_dbt_metric(now_view, metric)  # refused before anything runs
    try:
        visible_dbt_metric(then_view, metric)
    except MetricNotVisible:
        # Visible now with today's permissions, so saying it did not exist then reveals nothing.
        raise NotRecordedThen(metric, past.number, past.ingested_at) from None
    then = _values(then_view, store, past.number, project, metric, start, end, grain, tools)
    then_text = _recorded(store, past.number)[1]
    now_manifest, now_text = _recorded(store, history.current_ingest(store))
    changed = then_text is None or now_text is None or definition(then_text, metric) != definition(now_text, metric)
    if not changed:
        # The same definition over the same warehouse gives the same numbers: one MetricFlow run serves both.
        now = then.model_copy(update={"manifest": now_manifest, "evidence_id": now_evidence.evidence_id,
                                      "version": now_evidence.version})
    else:
        now = _values(now_view, store, history.current_ingest(store), project, metric, start, end, grain, tools)
    by_then = {v.period_start: v.value for v in then.query.rows}
    by_now = {v.period_start: v.value for v in now.query.rows}
    periods = [_change(p, by_then.get(p), by_now.get(p))
               for p in sorted(by_then.keys() | by_now.keys(), key=lambda d: d or date.min)]
    return Restatement(metric=metric, definition_changed=changed, then=then, now=now, periods=periods)
