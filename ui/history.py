"""Transaction time and the audit log on the Ask page: the "as recorded on" control, the note saying which
catalog state answered, and one audit record per distinct answer."""
from __future__ import annotations

import json
from datetime import date, datetime

import streamlit as st

from core.catalog.envelope import Envelope
from core.read.dates.recorded import end_of
from core.serve import audit
from core.serve.audit_key import AuditKeyError
from ui.resources import settings


def recorded_at_control() -> datetime | None:
    """An optional past catalog state: answers then come from the catalog as it stood at the end of that day."""
    if not st.toggle("As recorded on…", key="as_recorded",
                     help="Answer from the catalog as AsOf had recorded it on a past day (what we knew then). "
                          "Permissions are always today's; the search index is not used for past states."):
        return None
    # Ingests are recorded on the real calendar, so this one day is the calendar's, not the catalog's own clock
    # (which a demo sets to another day): said beside it, since both can read "today".
    day = st.date_input("Catalog as recorded on", key="recorded_day", value=date.today(),
                        min_value=date(2000, 1, 1), max_value=date.today())
    st.caption("A day on the real calendar, when AsOf recorded the catalog's ingests (not the catalog's own clock).")
    return end_of(day.isoformat())


def recorded_note(env: Envelope) -> None:
    if env.recorded and env.recorded.recorded_at:
        st.info(env.recorded.detail, icon="🗂️")


def record_answer(env: Envelope, q, principal: str | None = None) -> None:
    """Append one audit record per distinct answer: Streamlit reruns the page on every click, and a rerun that
    shows the same answer again is not a new answer."""
    inputs = audit.inputs_of(q)  # a steward's widened question records its role and its queue (`grants`)
    key = json.dumps([env.role, inputs, audit.envelope_hash(env)], sort_keys=True)
    if st.session_state.get("_audited") == key:
        return
    model = env.explanation.model if env.explanation else None
    try:
        rec_id = audit.record(settings().db_path, envelope=env, role=env.role, principal=principal, source="app",
                              inputs=inputs, explanation_model=model)
    except AuditKeyError as exc:  # an answer that cannot be audited is not shown
        st.error(f"This answer could not be audited, so it is not shown: {exc}")
        st.stop()
    st.session_state["_audited"] = key
    st.session_state.setdefault("audit_mine", []).append(rec_id)


def asked_here() -> set[str]:
    """Ids of the audit records this browser session wrote: its own questions, even where nobody signs in (demo
    mode has no principal to match a record by), so the Audit page can show and search them."""
    return set(st.session_state.get("audit_mine", []))
