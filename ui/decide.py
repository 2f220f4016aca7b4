"""The Governance review page's decisions: one item's actions and the form to take one, and the closed items.
Thin: the rules are core/answer/decide.py's, the records the decisions file's and the audit chain's
(core/serve/decision_audit.py)."""
from __future__ import annotations

from datetime import date

import streamlit as st

from core.answer.decide import Decider, Refused, Request, decide
from core.answer.decision_queue import ACTION_LABELS, NEEDS, QueueItem
from core.explain.headline import day_text
from core.read.dates.day_range import FIRST_DAY, LAST_DAY
from core.serve.decision_audit import record_decision, record_refused
from ui.resources import embedder, settings
from ui.safe import code, md


def decider(role: str, principal: str | None) -> Decider:
    """Who decides, and how that is known: the deployment's identity, or in demo mode the role picked."""
    mode = settings().auth.mode.value
    return Decider(principal=None if mode == "demo" else principal, role=role,
                   identity="demo picker" if mode == "demo" else mode)


def _request(q: QueueItem, key: str, revision: str, roles: list[str]) -> Request | None:
    action = st.selectbox("Decision", q.actions, key=f"{key}_action", format_func=ACTION_LABELS.get)
    needs = NEEDS.get(action, ())
    kw: dict = {}
    ids = q.item.evidence_ids
    if "governs" in needs:
        kw["governs"] = st.selectbox("Governs", ids[:2], key=f"{key}_governs", index=min(1, len(ids[:2]) - 1))
    if "from" in needs:
        default = q.item.since if q.item.since and action != "expire" else date.today()
        label = "Expires on" if action == "expire" else "From (the other version ends the day before)" \
            if action == "close_overlap" else "Governs from"
        kw["from_day"] = st.date_input(label, value=default, key=f"{key}_from", min_value=FIRST_DAY, max_value=LAST_DAY)
    if "roles" in needs:
        kw["roles"] = st.multiselect("Roles that may see it", roles, key=f"{key}_roles")
    if "owner" in needs:
        kw["owner"] = st.text_input("Owner", key=f"{key}_owner") or None
    if action in ("retire", "set_owner") and len(ids) > 1 and q.item.category == "overlap":
        kw["object"] = st.selectbox("Which object", ids, key=f"{key}_object")
    reason = st.text_area("Reason (required)", key=f"{key}_reason", placeholder="Why: a record for whoever reads it")
    if not st.button("Record decision", key=f"{key}_go", type="primary"):
        return None
    return Request(item=q.id, action=action, reason=reason or "", seen_revision=revision, **kw)


def decide_form(q: QueueItem, key: str, revision: str, who: Decider, roles: list[str], label: str = "Decide") -> None:
    """The item's actions, a required reason, and the outcome: recorded, or refused (nothing changed)."""
    if not q.actions:
        return
    if settings().catalog_url is not None:
        st.caption("Decisions are taken where the catalog is ingested; this app serves a published replica.")
        return
    with st.expander(label, expanded=False):
        req = _request(q, key, revision, roles)
        if req is None:
            return
        db = settings().db_path
        try:
            d = decide(db, who, req, embedder())
        except Refused as exc:
            record_refused(db, req, who, "app", str(exc))
            st.error(f"Refused, nothing changed: {md(exc)}")
            return
        record_decision(db, d, req, who, "app")
        st.session_state["decided"] = f"Recorded {d.decision}: {d.summary}. New catalog revision {d.revision}."
        st.rerun()


def closed_item(q: QueueItem, key: str, revision: str, who: Decider, roles: list[str]) -> None:
    d = q.decision
    with st.container(border=True, key=f"closed_{key}"):
        st.markdown(f"**{md(q.item.title)}** · :green-badge[{md(q.status)}]")
        st.markdown(f"{md(d.summary)}  \nDecided by **{md(d.by)}** ({md(d.identity)}, role {md(d.role)}) on "
                    f"{day_text(d.at.date())}: “{md(d.reason)}”")
        st.caption(f"Decision {code(d.decision)} · catalog revision {code(d.revision)} · "
                   "Evidence: " + ", ".join(code(e) for e in q.item.evidence_ids))
        decide_form(q, key, revision, who, roles, "Reverse this decision")
