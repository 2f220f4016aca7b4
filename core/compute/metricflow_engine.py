"""The MetricFlow value engine: a dbt metric version computed by `mf query` (core/ingest/metricflow.py), with the
semantic manifest the catalog kept for the ingest the version belongs to (core/ingest/semantic_history.py).

It plugs into the same seam as DuckDBEngine (`name`, `compute(version, model, start, end)`), so permissions,
sub-periods, audit and replay are the ones core/answer/values.py applies to every value. Two things differ:

- Each `mf query` starts dbt and MetricFlow (seconds), so `compute_many` answers a whole request with as few
  queries as possible: periods that are each one calendar day, month, quarter or year go into one query at that
  grain; any other period is its own query with no grain (a ratio cannot be summed from parts).
- The manifest: an engine is bound to one catalog state (`bind(store)`): the current ingest, or the past
  ingest a recorded-at question reads, so a value always matches the definition the answer shows.

A catalog item that is not a dbt metric goes to `fallback` (the DuckDB warehouse engine, when there is one).
"""
from __future__ import annotations

from datetime import date, timedelta
from pathlib import Path

from core.catalog import history
from core.catalog.evidence import Evidence
from core.catalog.metric_sql import sql_hash
from core.catalog.store import Store
from core.catalog.values import MetricValue
from core.compute.engine import EngineError, ValueEngine, result_hash
from core.ingest.metricflow import DbtTools, MetricFlowError, query_metric
from core.ingest.semantic_history import manifest_at

Item = tuple[Evidence, Evidence | None, date, date]


def _next(day: date, grain: str) -> date:
    if grain == "day":
        return day + timedelta(days=1)
    months = {"month": 1, "quarter": 3, "year": 12}[grain]
    m = day.month - 1 + months
    return date(day.year + m // 12, m % 12 + 1, 1)


def _aligned(start: date, end: date, grain: str) -> bool:
    """Whether [start, end) is exactly one calendar period of `grain`, as MetricFlow's metric_time__<grain> buckets."""
    if grain == "day":
        return end == start + timedelta(days=1)
    first_months = {"month": range(1, 13), "quarter": (1, 4, 7, 10), "year": (1,)}[grain]
    return start.day == 1 and start.month in first_months and end == _next(start, grain)


def shared_grain(periods: list[tuple[date, date]]) -> str | None:
    """The grain every period is exactly one bucket of (finest first), or None."""
    for grain in ("day", "month", "quarter", "year"):
        if all(_aligned(s, e, grain) for s, e in periods):
            return grain
    return None


def dbt_metric_name(version: Evidence) -> str | None:
    """dbt's metric name for a dbt metric (its evidence id is dbt's unique_id, metric.<package>.<name>)."""
    if version.authority_class != "dbt_metric":
        return None
    return version.evidence_id.rsplit(".", 1)[-1]


class MetricFlowEngine:
    name = "metricflow"

    def __init__(self, project: str | Path, tools: DbtTools, fallback: ValueEngine | None = None,
                 problem: str | None = None, db_path: Path | None = None, ingest: int | None = None,
                 ingest_times: dict | None = None):
        self.project, self.tools, self.fallback, self.problem = Path(project), tools, fallback, problem
        self.db_path, self.ingest, self.ingest_times = db_path, ingest, ingest_times or {}

    def bind(self, store: Store) -> "MetricFlowEngine":
        """This engine for one catalog state: a past state (core/catalog/history.PastStore) computes with the
        manifest kept at its ingest, the current catalog with its latest one."""
        if isinstance(store, history.PastStore):
            # A past state holds only its own objects, not the file's ingest log: the times come from the binding
            # to the current catalog (core/compute/choose.py binds there first), plus the past state's own.
            ingest, times = store.ingest.number, {**self.ingest_times, store.ingest.number: store.ingest.ingested_at}
        else:
            ingest, times = history.current_ingest(store), {i.number: i.ingested_at for i in history.ingests(store)}
        return MetricFlowEngine(self.project, self.tools, self.fallback, self.problem, Path(store.path), ingest, times)

    def _manifest(self) -> tuple[str, str]:
        if self.db_path is None or self.ingest is None:
            raise EngineError("the MetricFlow engine is not bound to a catalog (MetricFlowEngine.bind)")
        try:
            rec, text = manifest_at(self.db_path, self.ingest, self.ingest_times)
        except LookupError as exc:
            raise EngineError(str(exc)) from None
        return text, f"semantic manifest sha256 {rec.sha256[:12]}, kept at ingest {rec.ingest}"

    def compute(self, version: Evidence, model: Evidence | None, start: date, end: date) -> MetricValue:
        return self.compute_many([(version, model, start, end)])[0]

    def compute_many(self, items: list[Item]) -> list[MetricValue]:
        """Values for each (version, model, start, end), in order; dbt metrics batched per version and grain."""
        out: list[MetricValue | None] = [None] * len(items)
        groups: dict[str, list[int]] = {}
        for i, (version, model, start, end) in enumerate(items):
            if dbt_metric_name(version) is None:
                if self.fallback is None:
                    # Said to an analyst (core/answer/values.py): how an operator connects one is in docs/values.md.
                    raise EngineError(f"{version.evidence_id} is not a dbt metric, and no warehouse is connected to "
                                      "compute the catalog's own SQL metrics on; whoever runs AsOf can connect one")
                out[i] = self.fallback.compute(version, model, start, end)
            else:
                groups.setdefault(version.evidence_id, []).append(i)
        if groups and self.problem:
            raise EngineError(self.problem)
        manifest = self._manifest() if groups else None
        for indexes in groups.values():
            periods = [(items[i][2], items[i][3]) for i in indexes]
            grain = shared_grain(periods)
            if grain is not None:
                got = self._query(items[indexes[0]][0], min(s for s, _ in periods), max(e for _, e in periods),
                                  grain, manifest)
                for i in indexes:
                    out[i] = self._value(items[i], got, grain)
            else:
                for i in indexes:
                    got = self._query(items[i][0], items[i][2], items[i][3], None, manifest)
                    out[i] = self._value(items[i], got, None)
        return out  # type: ignore[return-value]

    def _query(self, version: Evidence, start: date, end: date, grain: str | None, manifest: tuple[str, str]):
        metric = dbt_metric_name(version)
        try:
            # mf's --end-time is inclusive; AsOf's periods end the day before `end`.
            q = query_metric(self.project, metric, start, end - timedelta(days=1), grain, manifest=manifest[0],
                             tools=self.tools)
        except MetricFlowError as exc:
            raise EngineError(f"{version.evidence_id} for {start} to {end}: {exc}") from None
        return q, manifest[1]

    def _value(self, item: Item, got, grain: str | None) -> MetricValue:
        version, model, start, end = item
        q, which = got
        if grain is None:
            rows = q.rows
        else:
            rows = [r for r in q.rows if r.period_start == start]
        if len(rows) > 1:
            raise EngineError(f"{version.evidence_id} for {start} to {end}: MetricFlow returned {len(rows)} rows "
                              "for one period")
        value = rows[0].value if rows else None  # no row: nothing in the period (no orders that month)
        # The query MetricFlow ran, pinned by its manifest: what the audit log records and a replay compares.
        command = " ".join(q.command) + f"  -- {which}, manifest {q.manifest_sha256}"
        return MetricValue(
            entity_id=version.entity_id, evidence_id=version.evidence_id, version=version.version,
            title=version.title, model_evidence_id=model.evidence_id if model is not None else None,
            relation=model.model.relation if model is not None and model.model else None, start=start, end=end,
            value=value, unit=version.metric.unit if version.metric else None, engine=self.name, sql=command,
            sql_hash=sql_hash(command),
            result_hash=result_hash(["period_start", q.metric], [[start.isoformat(), value]]))
