"""Where the Lineage page starts for an entity on a day: the versions the view holds that are in effect then, as an
Ask answer on that day starts. When the view holds versions of it but none in effect that day (a steward's queued
version that ended, a metric not yet begun), the page starts from the latest of those on its own first day and
says so, rather than drawing nothing from a bare entity id no edge names."""
from __future__ import annotations

from datetime import date

from core.catalog.access import Visible
from core.resolve.lineage import explore
from core.resolve.versions import governing_versions, in_effect, version_name

MAX_TRIED = 60  # entities tried for a first page with lineage: each is a short walk, and the first usually has some


def lineage_starts(view: Visible, entity_id: str, day: date) -> tuple[list[str], date, str | None]:
    """(start node ids, the day to walk on, a note when that is not the day asked)."""
    ent = view.entities[entity_id]
    if ent.role == "source":
        return [entity_id], day, None
    held = governing_versions(view.entity_objects(entity_id), ent.role)
    now = in_effect(held, day)
    if now or not held:
        return [v.evidence_id for v in now] or [entity_id], day, None
    latest = held[-1]
    first = latest.valid_from or day
    return [latest.evidence_id], first, (f"No version of {ent.label} your view holds is in effect on {day}; showing "
                                         f"{version_name(latest)}, the latest it holds, as of its first day ({first})")


def first_with_lineage(view: Visible, entity_ids: list[str], day: date) -> str | None:
    """The entity the Lineage page opens on: the first (metrics first, then models, then sources) with a lineage
    edge in effect on `day` in this view, so a steward's page (whose queue may come first by name) never opens on a
    bare node; None when none of the first MAX_TRIED has one."""
    order = {"metric": 0, "model": 1, "source": 2}
    ranked = sorted(entity_ids, key=lambda e: order.get(view.entities[e].role, 3))
    for entity_id in ranked[:MAX_TRIED]:
        starts, on, _ = lineage_starts(view, entity_id, day)
        if on == day and explore(view, starts, day, 1, 1).edges:
            return entity_id
    return None
