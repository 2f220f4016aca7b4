"""Three example questions for a role's landing view, each showing a different strength of AsOf:
a definition that changed (a split), a disagreeing page caught (a conflict), and data that is not fresh.

Built from what the role may see, so they work on any catalog (the demo, a dbt project) and never name
a hidden object. A kind with no candidate in the role's view is left out.
"""
from __future__ import annotations

from datetime import datetime, timedelta

from pydantic import BaseModel

from core.catalog.access import Visible
from core.catalog.evidence import Lifecycle
from core.resolve.freshness import source_freshness
from core.resolve.versions import governing_versions


class Example(BaseModel):
    kind: str  # version_change | conflict | stale_data
    label: str
    question: str


def examples(view: Visible, at: datetime) -> list[Example]:
    out: list[Example] = []
    metrics = [e for e in sorted(view.entities.values(), key=lambda e: e.entity_id) if e.role == "metric"]
    for ent in metrics:
        versions = sorted((v for v in governing_versions(view.entity_objects(ent.entity_id), "metric")
                           if v.valid_from), key=lambda v: v.valid_from)
        if len(versions) >= 2:
            change = versions[-1].valid_from
            if change.month > 1:
                period = f"in calendar year {change.year}"
            else:  # a change on 1 January: a period across the year boundary
                period = f"from {change - timedelta(days=92)} to {change + timedelta(days=89)}"
            out.append(Example(kind="version_change", label="A definition that changed",
                               question=f"How was {ent.label.lower()} defined {period}?"))
            break
    for ent in metrics:
        objs = view.entity_objects(ent.entity_id)
        pages = [o for o in view.documents_about(ent.entity_id) if o.lifecycle is Lifecycle.superseded]
        current = [v for v in governing_versions(objs, "metric") if v.valid_from and v.valid_to is None]
        if pages and current:
            day = current[0].valid_from + timedelta(days=89)
            noun = "wiki" if "wiki" in pages[0].title.lower() else "page"
            out.append(Example(kind="conflict", label="An outdated page caught",
                               question=f"The old {noun} describes {ent.label.lower()} differently. "
                                        f"Is it right for {day}?"))
            break
    sources = [e for e in sorted(view.entities.values(), key=lambda e: e.entity_id) if e.role == "source"]
    for ent in sources:
        f = source_freshness(ent.entity_id, view.freshness_objects(ent.entity_id), at, at.date())
        if f and f.status in ("warn", "error"):
            name = ent.label if "." in ent.label else ent.entity_id.split(".", 1)[-1]
            out.append(Example(kind="stale_data", label="Data that is not fresh", question=f"Is {name} fresh?"))
            break
    return out
