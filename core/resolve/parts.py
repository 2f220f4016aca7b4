"""Lineage and freshness for each part of a split or human-review answer.

The envelope's top-level lineage and freshness describe a single governing version; a split answer has
one per sub-period and a human-review answer one per overlapping version. Each part is expanded the same
way an answer is: upstream lineage of the definition and its backing model on the part's first day, and
the freshness of the raw sources it reaches, all through the role's view.
"""
from __future__ import annotations

from datetime import date, datetime

from core.catalog.access import Visible
from core.catalog.envelope import EvidenceRef, FreshnessEntry, Lineage
from core.resolve import lineage as lineage_mod
from core.resolve.freshness import source_freshness


def part_details(view: Visible, refs: list[EvidenceRef], day: date | None,
                 at: datetime) -> tuple[Lineage, list[FreshnessEntry]]:
    starts = [r.evidence_id for r in refs if r.role_in_answer in ("definition", "model", "overlap")]
    day = day or next((r.valid_from for r in refs if r.valid_from), None)
    lin = lineage_mod.upstream(view, starts, day)
    fresh = [f for f in (source_freshness(s, view.freshness_objects(s), at, day or at.date())
                         for s in lin.raw_sources) if f]
    return lin, fresh
