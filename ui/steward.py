"""The steward's review scope for the current session's role, cached per catalog file and day."""
from __future__ import annotations

from datetime import date

import streamlit as st

from core.answer.review import StewardScope, steward_scope
from ui.resources import store


@st.cache_resource(show_spinner=False, max_entries=32)
def _scope(path: str, mtime: float, role: str, today: date) -> StewardScope | None:
    return steward_scope(store(), role, today)


def scope_for(role: str) -> StewardScope | None:
    path = store().path  # the revision's own file (a replica's downloaded one): a new revision is a new key
    return _scope(str(path), path.stat().st_mtime, role, date.today())


def badge(scope: StewardScope | None) -> None:
    if scope is None:
        return
    st.markdown(":violet-badge[steward view] read-only: your role's objects and the objects in your review queue, "
                "even where their ACL leaves you out; nothing around them")
