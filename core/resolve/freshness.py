"""Data freshness (the second clock): recorded load times against thresholds, computed in code."""
from __future__ import annotations

from datetime import date, datetime

from core.catalog.envelope import FreshnessEntry
from core.catalog.evidence import Authority, Evidence, Kind, Lifecycle
from core.catalog.facts import FreshnessRecord


def status(age_hours: float | None, warn_after: float | None, error_after: float | None) -> str:
    """pass while age <= warn; warn past warn; error past error; unknown without a load time."""
    if age_hours is None:
        return "unknown"
    if error_after is not None and age_hours > error_after:
        return "error"
    if warn_after is not None and age_hours > warn_after:
        return "warn"
    return "pass"


def _trusted(ev: Evidence | FreshnessRecord) -> bool:
    return ev.authority is not Authority.untrusted and ev.lifecycle not in (Lifecycle.draft, Lifecycle.retired)


def source_freshness(source: str, visible: list[Evidence | FreshnessRecord], at: datetime,
                     day: date) -> FreshnessEntry | None:
    """Freshness of one source as known at `at`: the policy valid on `day` and the latest load before `at`.
    `visible` holds the freshness records of this source (Visible.freshness_objects: each object's columns and its
    freshness field, not the parsed object), or the objects themselves."""
    mine = [e for e in visible if e.freshness and _trusted(e)]
    if not mine:
        return None
    policies = [e for e in mine if e.kind is Kind.freshness_policy and e.valid_on(day)
                and (e.freshness.warn_after_hours is not None or e.freshness.error_after_hours is not None)]
    policy = max(policies, key=lambda e: (e.valid_from or date.min), default=None)
    loads = [e for e in mine if e.freshness.loaded_at is not None and e.freshness.loaded_at <= at]
    load = max(loads, key=lambda e: e.freshness.loaded_at, default=None)
    thresholds = policy or load
    warn = thresholds.freshness.warn_after_hours if thresholds else None
    error = thresholds.freshness.error_after_hours if thresholds else None
    age = round((at - load.freshness.loaded_at).total_seconds() / 3600, 2) if load else None
    return FreshnessEntry(source=source, status=status(age, warn, error), age_hours=age,
                          warn_after_hours=warn, error_after_hours=error,
                          loaded_at=load.freshness.loaded_at if load else None, evaluated_at=at,
                          evidence_id=load.evidence_id if load else None,
                          policy_evidence_id=policy.evidence_id if policy else None)


def age_text(hours: float | None) -> str:
    """'27 h ago', '3 days ago': how old a load is, in the words every answer and the app use."""
    if hours is None:
        return "never"
    if hours < 10:  # to the tenth the freshness table shows: a 3.5 h load is not "4 h ago" beside "3.5 h"
        return f"{hours:.1f}".removesuffix(".0") + " h ago"
    if hours < 48:
        return f"{hours:.0f} h ago"
    return f"{hours / 24:.0f} days ago"
