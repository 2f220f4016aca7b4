"""Value engines: compute one metric version over one period on its backing model version.

`ValueEngine` is the seam a second engine plugs into (MetricFlow for dbt projects): anything with a `name` and
a `compute(version, model, start, end) -> MetricValue` is one. `DuckDBEngine` runs the version's own SQL on the
warehouse file, opened read-only with external access (files, URLs) switched off, stopped by `interrupt()` from
a timer after `timeout_s`, and refused when it returns more than `row_limit` rows.
"""
from __future__ import annotations

import hashlib
import json
import math
import threading
from datetime import date
from decimal import Decimal
from functools import lru_cache
from pathlib import Path
from typing import Protocol, runtime_checkable

import duckdb

from core.catalog.evidence import Evidence
from core.catalog.metric_sql import reads, render, sql_hash
from core.catalog.values import MetricValue

TIMEOUT_S = 10.0
ROW_LIMIT = 1000
# read_only: a metric's SQL can never change the warehouse; no external access: nor read a file or a URL.
# DuckDB refuses a second connection to one file with another configuration, so every reader uses this one.
CONNECT = {"read_only": True, "config": {"enable_external_access": False}}


class EngineError(Exception):
    """A value could not be computed; the message says which version, which period and why."""


@runtime_checkable
class ValueEngine(Protocol):
    name: str

    def compute(self, version: Evidence, model: Evidence | None, start: date, end: date) -> MetricValue:
        ...


@lru_cache(maxsize=1024)
def _parameters(sql: str) -> frozenset[str]:
    try:
        return frozenset(reads(sql).parameters)
    except ValueError as exc:
        raise EngineError(str(exc)) from None


def number(raw, where: str) -> float | None:
    """The SQL's `value` as a float. Text, a date, a boolean, NaN or an infinity is no number to show: the answer
    then says the value could not be computed (and still gives the definition), instead of the whole question
    failing on a float() of whatever the SQL returned. The value itself is not quoted: it is warehouse data."""
    if raw is None:
        return None
    if isinstance(raw, bool) or not isinstance(raw, (int, float, Decimal)):
        kind = "text" if isinstance(raw, str) else type(raw).__name__
        raise EngineError(f"{where}: the SQL's column value is {kind}, not a number")
    value = float(raw)
    if not math.isfinite(value):
        raise EngineError(f"{where}: the SQL's column value is {value}, not a finite number")
    return value


def result_hash(columns: list[str], rows: list[tuple]) -> str:
    body = json.dumps({"columns": columns, "rows": rows}, sort_keys=True, default=str)
    return "sha256:" + hashlib.sha256(body.encode()).hexdigest()[:32]


class DuckDBEngine:
    name = "duckdb"

    def __init__(self, path: str | Path, timeout_s: float = TIMEOUT_S, row_limit: int = ROW_LIMIT):
        self.path = Path(path)
        if not self.path.is_file():
            raise EngineError(f"no warehouse at {self.path} (scripts/build_warehouse.py builds the demo's)")
        self.timeout_s, self.row_limit = timeout_s, row_limit
        self._lock = threading.Lock()
        self._con: duckdb.DuckDBPyConnection | None = None

    @property
    def con(self) -> duckdb.DuckDBPyConnection:
        with self._lock:
            if self._con is None:
                self._con = duckdb.connect(str(self.path), **CONNECT)
            return self._con

    def run(self, sql: str, params: dict) -> tuple[list[str], list[tuple]]:
        """Run one read-only query on this thread's cursor within the timeout and row limit."""
        cur = self.con.cursor()
        timer = threading.Timer(self.timeout_s, cur.interrupt)
        timer.start()
        try:
            res = cur.execute(sql, params)
            columns = [d[0] for d in res.description or []]
            rows = res.fetchmany(self.row_limit + 1)
        except duckdb.InterruptException:
            raise EngineError(f"stopped after {self.timeout_s:g} s (the value timeout)") from None
        except duckdb.Error as exc:
            raise EngineError(f"DuckDB refused it: {str(exc).splitlines()[0]}") from None
        finally:
            timer.cancel()
            cur.close()
        if len(rows) > self.row_limit:
            raise EngineError(f"returned more than the row limit of {self.row_limit} rows")
        return columns, rows

    def compute(self, version: Evidence, model: Evidence | None, start: date, end: date) -> MetricValue:
        where = f"{version.evidence_id} for {start} to {end}"
        if version.metric is None or not version.metric.sql:
            raise EngineError(f"{version.evidence_id} carries no SQL (metric.sql), so it has no value to compute")
        relation = model.model.relation if model is not None and model.model else None
        try:
            sql = render(version.metric.sql, relation)
        except ValueError as exc:
            raise EngineError(f"{where}: {exc}") from None
        try:
            used = _parameters(sql)  # DuckDB refuses a bound parameter the SQL does not use
            columns, rows = self.run(sql, {k: v for k, v in (("start", start), ("end", end)) if k in used})
        except EngineError as exc:
            raise EngineError(f"{where}: {exc}") from None
        if "value" not in columns or len(rows) != 1:
            raise EngineError(f"{where}: the SQL must return one row with a column named value; it returned "
                              f"{len(rows)} row(s) with columns {', '.join(columns) or 'none'}")
        value = number(rows[0][columns.index("value")], where)
        return MetricValue(
            entity_id=version.entity_id, evidence_id=version.evidence_id, version=version.version,
            title=version.title, model_evidence_id=model.evidence_id if model is not None else None,
            relation=relation, start=start, end=end, value=value,
            unit=version.metric.unit, engine=self.name, sql=sql, sql_hash=sql_hash(sql),
            result_hash=result_hash(columns, [list(r) for r in rows]))


def open_engine(path: str | Path | None, timeout_s: float = TIMEOUT_S) -> DuckDBEngine | None:
    """The DuckDB engine on the warehouse at `path`, or None when there is none (answers then say so)."""
    if path is None or not Path(path).is_file():
        return None
    return DuckDBEngine(path, timeout_s=timeout_s)
