"""Audit: every answer AsOf gave, and a replay that says whether it would be the same today and why not.
Catalog stewards only: the log names every role's questions."""
import streamlit as st

st.set_page_config(page_title="AsOf · Audit", page_icon="🧾", layout="wide")

from core.answer.steward import steward_view  # noqa: E402
from core.serve import audit_view  # noqa: E402
from core.serve.audit import audit_path, read_log, verify  # noqa: E402
from core.serve.audit_cli import NO_KEY, filtered  # noqa: E402
from core.serve.audit_key import AuditKeyError  # noqa: E402
from core.serve.decision_audit import DECISION, replay_decision  # noqa: E402
from core.serve.replay import replay  # noqa: E402
from ui.history import asked_here  # noqa: E402
from ui.resources import searcher, settings, sidebar, store  # noqa: E402
from ui.safe import inert  # noqa: E402
from ui.safe import table as wrapped  # noqa: E402 (the page has its own `table` of rows)
from ui.steward import scope_for  # noqa: E402

s = store()
form = sidebar(s, dates=False)  # the log is not about a reporting date
role = next(r for r in s.roles() if r.name == form["role"])
st.title("Audit")
if not role.steward:
    st.warning(f"The audit log is for catalog stewards; role **{role.name}** is not one, so it may not read it. "
               "If you may use a steward role, choose it in the sidebar's Role box.")
    st.stop()

cfg = settings()
db = cfg.db_path
reader = form.get("principal")
# Every id, entity and formula below is read through the steward's own view (its role's objects and its
# review queue); other principals' questions only where the deployment allows it (core/serve/audit_view.py).
view = steward_view(s, role.name, scope_for(s, role.name))
others = cfg.audit_show_questions
mine = frozenset(asked_here())  # this session's own questions (audit_view.question_shown reads them)

st.caption("Every answer AsOf gave, as an append-only log: each record holds ids and hashes, never evidence text. "
           "Ids outside your steward view are left out; other principals' questions are "
           + ("shown." if others else "withheld.")
           + ("" if others or reader else " Nobody is signed in, so your questions are the ones asked in this "
              "browser session; \"Question contains\" searches those."))
everything = filtered(db)
skipped = read_log(db).skipped
if skipped:  # a torn or edited line costs only itself; the others are listed
    st.warning(f"{len(skipped)} line(s) of the log are not audit records and are left out: "
               + "; ".join(skipped[:5]) + (" ..." if len(skipped) > 5 else ""))
try:
    chain = verify(db)
except AuditKeyError as exc:  # a configured key that cannot be used: said, not a traceback
    st.error(f"The audit log cannot be verified: {exc}")
    st.stop()
if not chain.intact:
    st.error(f"The audit log's hash chain is broken at line {chain.broken_line}: {chain.broken} "
             "Records from that line on are not verified.")
# File paths, settings and commands are for whoever runs AsOf, not for a business audience: kept in one place.
with st.expander("For operators: where the log is and how it is set up", expanded=False):
    st.markdown(f"- Log file: `{audit_path(db)}` (beside the catalog)\n"
                f"- Other principals' questions: {'shown' if others else 'withheld'} "
                "(`ASOF_AUDIT_SHOW_QUESTIONS=1` shows them)\n"
                f"- Signature: {'an audit key signs each record' if chain.key else NO_KEY}\n"
                "- Check the chain from a terminal: `python -m core audit verify`")
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
records = filtered(db, f_role or None, f_principal or None, f_behavior or None, f_source or None)
if f_text:
    # Only over questions this reader may read, so the filter is no oracle for the others.
    records = [r for r in records if audit_view.question_shown(r, reader, others, mine)
               and f_text.lower() in r.question.lower()]
st.metric("Records", len(records))
# What a steward reads first (when, who, what was asked, what came back) on the left; the ids and
# revisions that identify the record for a replay to the right.
table = [audit_view.rows([r], view, reader, others, mine)[0].model_dump() for r in records[:500]]
# A static table that wraps (a grid cuts a cell that does not fit at 1024 px); who asked from where, and the ids and
# revisions a replay needs, are under the record chosen below.
SHOWN = 100
if len(table) > SHOWN:
    st.caption(f"The latest {SHOWN} of {len(table)} are listed; filter above, or choose any in the Record box below.")
wrapped([{k: r[k] for k in ("when", "role", "question", "behavior", "governs")} for r in table[:SHOWN]])

if records:
    shown = {r["id"]: r for r in table}
    chosen = st.selectbox("Record", [r.id for r in records[:500]], key="audit_record",
                          format_func=lambda i: inert(f"{i} · {shown[i]['role']} · {shown[i]['question'][:80]}"))
    rec = next(r for r in records if r.id == chosen)
    wrapped([{"field": k.replace("_", " "), "value": str(shown[chosen].get(k) or "—")}
             for k in ("question", "governs", "principal", "source", "id", "ingest", "revision", "as_recorded", "index",
                       "explanation")])
    with st.expander("The whole record (JSON)", expanded=False):
        st.json(audit_view.readable(rec, view, reader, others, mine).model_dump(mode="json"))
    replayable = rec.behavior not in ("refused", "error", DECISION)
    if rec.behavior == DECISION and st.button("Replay", key="audit_replay_decision", type="primary"):
        # A steward decision replays against the catalog's history (core/serve/decision_audit.py).
        decided = replay_decision(db, rec.id)
        (st.success if decided.reproduced else st.error)(
            ("Reproduced" if decided.reproduced else "Not reproduced") + f"; audit chain: {decided.verification}")
        st.code(decided.report(), language=None)
    if rec.behavior in ("refused", "error"):
        message = audit_view.readable(rec, view, reader, others, mine).message
        st.info(f"A {rec.behavior} call: {message or 'no message'}. There is no answer to replay.")
    if replayable and st.button("Replay", key="audit_replay", type="primary"):
        result = replay(db, rec.id, searcher=searcher(s, wait=True) if rec.searched else None, store=s)
        reasons, text = audit_view.report(result, view, reader, others, mine)
        (st.success if result.reproduced and result.verified else st.error)(
            ("Reproduced" if result.reproduced else "Not reproduced") + f" at the recorded revision: {result.how}"
            + ("" if result.verified else f". But this record did not pass audit log verification: "
               f"{result.verification}"))
        if reasons:
            st.markdown("**What changed and why**\n" + "\n".join(f"- {x}" for x in reasons))
        else:
            st.markdown("Today's answer is the same as the recorded one, in what you may see.")
        st.code(text, language=None)
