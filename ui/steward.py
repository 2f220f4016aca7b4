"""The steward's review scope for the current session's role, cached per catalog file and day."""
from __future__ import annotations

from datetime import date

import streamlit as st

from core.answer.intents.review import StewardScope, steward_scope
from core.answer.steward import queue_day
from core.catalog.store import Store


@st.cache_resource(show_spinner=False, max_entries=32)
def _scope(path: str, mtime: float, role: str, today: date, _s: Store) -> StewardScope | None:
    return steward_scope(_s, role, today)


def scope_for(s: Store, role: str) -> StewardScope | None:
    """The queue of the revision this page run reads (`s`), never of a newer one published meanwhile: a page that
    took its Store before a publish and its queue after would show one revision's objects through the other's grants."""
    # A new revision is a new file: a new key. The queue's day is the one every surface uses (core/answer/steward.py).
    return _scope(str(s.path), s.path.stat().st_mtime, role, queue_day(s), s)


def badge(scope: StewardScope | None) -> None:
    if scope is None:
        return
    st.markdown(":violet-badge[steward view] read-only: your role's objects and the objects in your review queue, "
                "even where their ACL leaves you out; nothing around them")
