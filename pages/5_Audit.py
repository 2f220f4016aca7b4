"""Audit: every answer AsOf gave, and a replay that says whether it would be the same today and why not.
Catalog stewards only: the log names every role's questions."""
import streamlit as st

st.set_page_config(page_title="AsOf · Audit", page_icon="🧾", layout="wide")

from core.audit import audit_path  # noqa: E402
from core.audit_cli import filtered  # noqa: E402
from core.replay import format_report, replay  # noqa: E402
from ui.resources import searcher, settings, sidebar, store  # noqa: E402

s = store()
form = sidebar(s, dates=False)  # the log is not about a reporting date
role = next(r for r in s.roles() if r.name == form["role"])
st.title("Audit")
if not role.steward:
    st.warning(f"The audit log is for catalog stewards; role **{role.name}** may not read it.")
    st.stop()

db = settings().db_path
st.caption(f"Append-only log beside the catalog: `{audit_path(db)}`. Each record holds ids and hashes, "
           "never evidence text.")
everything = filtered(db)
# Two rows: five filters side by side cut their own labels at 1024 px.
cols = st.columns(3) + st.columns(2)
anyone = {"format_func": lambda v: v or "any"}
f_role = cols[0].selectbox("Role", [""] + sorted({r.role for r in everything}), key="audit_role", **anyone)
f_principal = cols[1].selectbox("Principal", [""] + sorted({r.principal for r in everything if r.principal}),
                                key="audit_principal", **anyone)
f_behavior = cols[2].selectbox("Behavior", [""] + sorted({r.behavior for r in everything}), key="audit_behavior",
                               **anyone)
f_source = cols[3].selectbox("Source", ["", "app", "cli", "mcp"], key="audit_source", **anyone)
f_text = cols[4].text_input("Question contains", key="audit_text")
records = filtered(db, f_role or None, f_principal or None, f_behavior or None, f_source or None, f_text or None)
st.metric("Records", len(records))
# What a steward reads first (when, who, what was asked, what came back) on the left; the ids and
# revisions that identify the record for a replay to the right.
st.dataframe([{"when": r.at.strftime("%Y-%m-%d %H:%M:%S"), "role": r.role, "question": r.question,
               "behavior": r.behavior, "governs": ", ".join(r.governing_ids), "source": r.source,
               "principal": r.principal or "", "id": r.id, "ingest": r.ingest, "revision": r.catalog_revision,
               "as recorded": r.recorded_at.isoformat() if r.recorded_at else "",
               "index": r.index, "explanation": r.explanation_model or ""}
              for r in records[:500]], hide_index=True, width="stretch")

if records:
    chosen = st.selectbox("Record", [r.id for r in records], key="audit_record",
                          format_func=lambda i: next(f"{i} · {r.role} · {r.question[:80]}" for r in records if r.id == i))
    rec = next(r for r in records if r.id == chosen)
    with st.expander("The whole record (JSON)", expanded=False):
        st.json(rec.model_dump(mode="json"))
    if st.button("Replay", key="audit_replay", type="primary"):
        result = replay(db, rec.id, searcher=searcher(s, wait=True) if rec.searched else None, store=s)
        (st.success if result.reproduced else st.error)(
            ("Reproduced" if result.reproduced else "Not reproduced") + f" at the recorded revision: {result.how}")
        if result.reasons:
            st.markdown("**What changed and why**\n" + "\n".join(f"- {x}" for x in result.reasons))
        else:
            st.markdown("Today's answer is the same as the recorded one.")
        st.code(format_report(result), language=None)
