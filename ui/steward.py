"""The steward's review scope for the current session's role, cached per catalog file and day."""
from __future__ import annotations

from datetime import date

import streamlit as st

from core.review import StewardScope, steward_scope
from ui.resources import settings, store


@st.cache_resource(show_spinner=False, max_entries=32)
def _scope(path: str, mtime: float, role: str, today: date) -> StewardScope | None:
    return steward_scope(store(), role, today)


def scope_for(role: str) -> StewardScope | None:
    path = settings().db_path
    return _scope(str(path), path.stat().st_mtime, role, date.today())


def badge(scope: StewardScope | None, audience: str | None = None) -> None:
    if scope is None:
        return
    text = ":violet-badge[steward view] read-only: the objects in your review queue are shown "
    text += f"as role {audience} sees them" if audience else "even where their ACL leaves you out"
    st.markdown(text)


def queue_metric_labels(scope: StewardScope | None) -> list[str]:
    """The metrics of a steward's review queue, named as the role the steward reads each one as sees them
    (the same audience the Ask page answers as): what a steward with no metrics of its own can ask about."""
    if scope is None:
        return []
    out = []
    for entity_id, audience in scope.audiences.items():
        entity = store().visible(audience).entities.get(entity_id) if audience else None
        if entity is not None and entity.role == "metric":
            out.append(entity.label)
    return sorted(out, key=str.lower)
