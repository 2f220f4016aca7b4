"""Metric values: what a value engine computed, with what, for which period (the envelope's `values`).

A value is a separate, audited step (brief section 2: numbers come from an engine, never from the LLM): each
carries the version and model it was computed with, the exact SQL (and its hash) and a hash of the result rows,
so the audit log can record it and a replay can reproduce it.
"""
from __future__ import annotations

from datetime import date, datetime
from typing import Literal

from pydantic import BaseModel, Field


class MetricValue(BaseModel):
    """One value: one metric version over one half-open period [start, end), on one backing model version."""
    entity_id: str
    evidence_id: str  # the metric version whose SQL computed it
    version: str | None = None
    title: str
    model_evidence_id: str | None = None
    relation: str | None = None
    start: date
    end: date  # exclusive
    value: float | None  # None: the SQL returned NULL (nothing in the period to divide by, no rows)
    unit: str | None = None
    engine: str
    sql: str  # as run, with the model's relation in place of {{ model }}
    sql_hash: str
    result_hash: str
    governing: bool = True  # False: computed under another version than the one in effect (a restatement)


class RestatementRow(BaseModel):
    start: date
    end: date
    governing: MetricValue  # under the version in effect then
    other: MetricValue  # under the version asked about
    difference: float | None  # other - governing
    percent: float | None  # difference / |governing| * 100


class Restatement(BaseModel):
    """The same periods computed under the versions in effect and under one other version."""
    other_evidence_id: str
    other_title: str
    why: str  # "today's definition" | "version named in the question"
    rows: list[RestatementRow] = Field(default_factory=list)
    governing_total: float | None = None
    other_total: float | None = None
    difference: float | None = None
    percent: float | None = None
    additive: bool = True  # totals are sums (a currency or count metric); False: the last, an average or none
    time_aggregation: str | None = "sum"  # how the totals were made from the rows (core/resolve/values.py)


class InputLoad(BaseModel):
    source: str
    loaded_at: datetime | None
    status: str  # today's freshness, at the evaluation time
    # Loaded after the period asked for ended: the value holds every load that period needed, whatever today's
    # load does (core/resolve/period_loads.py).
    covers_period: bool = False


class PeriodSide(BaseModel):
    """"net revenue in 2023 vs 2024": one period's value. Several pieces (a version or model change inside it) are
    summed for a currency or count; a rate's pieces are not added up (`value` is None, the pieces are listed)."""
    start: date
    end: date  # exclusive
    value: float | None
    unit: str | None = None
    versions: list[str] = Field(default_factory=list)  # version names, in order ("v1", "v2")
    pieces: int = 1


class PeriodComparison(BaseModel):
    sides: list[PeriodSide]
    difference: float | None = None  # later - earlier
    percent: float | None = None
    changed: list[str] = Field(default_factory=list)  # fields the two sides' definitions differ in


class Values(BaseModel):
    status: Literal["computed", "not_found_or_not_authorized", "unavailable"]
    message: str = ""
    grain: str | None = None  # month | quarter | year | None (the whole period)
    start: date | None = None
    end: date | None = None
    values: list[MetricValue] = Field(default_factory=list)
    restatement: Restatement | None = None
    inputs: list[InputLoad] = Field(default_factory=list)  # the sources the values read, their last load
    as_of: datetime | None = None  # the oldest of the inputs' last loads: the values are as of then
    compared: PeriodComparison | None = None  # two periods' values side by side
    # How the metric's values make one over time (sum | last | average; None: a rate, never rolled up), from its
    # `metric.time_aggregation` or its unit (core/resolve/values.py: over_time)
    time_aggregation: str | None = None

    @property
    def loaded_in_full(self) -> bool:
        """Every input was loaded after the period ended: the value is complete, however late today's loads are."""
        return bool(self.inputs) and all(i.covers_period for i in self.inputs)
