"""Whether several candidate entities are one lineage chain: a model, the staging model it reads and the raw source
under them. A freshness question naming "the sessions data" matches all three, and their freshness is one answer
(that of the sources the chain reads), so asking back which one is meant asks for nothing. Read over the role's
view only: an edge to an object the role may not see does not join a chain."""
from __future__ import annotations

from datetime import date

from core.catalog.access import Visible
from core.resolve import lineage as lineage_mod
from core.resolve.versions import backing_model, governing_versions, in_effect


def _starts(view: Visible, entity_id: str, day: date) -> list[str]:
    ent = view.entities.get(entity_id)
    if ent is None:
        return []
    versions = in_effect(governing_versions(view.entity_objects(entity_id), ent.role), day)
    starts = [v.evidence_id for v in versions]
    if ent.role == "metric":  # a metric reads its sources through the model behind it
        for v in versions:
            model, _ = backing_model(v, day, view)
            if model is not None:
                starts.append(model.evidence_id)
    return starts


def chain_head(view: Visible, entity_ids: list[str], day: date) -> str | None:
    """The candidate every other candidate is upstream of on `day` (the chain's most downstream object, whose
    lineage reaches every source the others read), or None when the candidates are not one chain."""
    if len(entity_ids) < 2:
        return None
    for head in entity_ids:
        reached = _upstream(view, head, day)
        if reached and all(other in reached for other in entity_ids if other != head):
            return head
    return None


def reads(view: Visible, entity_id: str, source: str, day: date) -> bool:
    """Whether `entity_id`'s lineage on `day` reaches `source` (through the model behind a metric)."""
    return source in _upstream(view, entity_id, day)


def _upstream(view: Visible, entity_id: str, day: date) -> set[str]:
    """The entities upstream of `entity_id` on `day`, as the role's view draws its lineage."""
    starts = _starts(view, entity_id, day)
    if not starts:
        return set()
    ids = {n.id for n in lineage_mod.upstream(view, starts, day).nodes}
    return {e.entity_id for e in view.by_ids(sorted(ids))} | (ids & set(view.entities))
