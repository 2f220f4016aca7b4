"""Governance review: the queue a reviewer works through. Scoped to your role, or the whole catalog
for catalog stewards, who may open every item read-only."""
import streamlit as st

st.set_page_config(page_title="AsOf · Governance review", page_icon="🧑‍⚖️", layout="wide")

from core.answer.decide import read_queue  # noqa: E402
from core.answer.decision_queue import CATEGORY_LABELS  # noqa: E402
from core.answer.intents.review import queue_csv, review_queue  # noqa: E402
from core.answer.steward import grants  # noqa: E402
from core.catalog.access import visible  # noqa: E402
from core.explain.headline import clock_text, day_text  # noqa: E402
from ui.decide import closed_item, decide_form, decider  # noqa: E402
from ui.resources import catalog_today, searcher, sidebar, store  # noqa: E402
from ui.safe import code, md  # noqa: E402
from ui.steward import scope_for  # noqa: E402

s = store()
form = sidebar(s, dates=False)
role = next(r for r in s.roles() if r.name == form["role"])
scope = scope_for(s, role.name)
st.title("Governance review")
if role.steward:
    evidence = s.all_evidence_for_review()
    st.markdown(":violet-badge[steward view] The queue covers the whole catalog; every item opens read-only in Ask, "
                "where your view holds your role's objects and the queue's, nothing around them.")
else:
    evidence = visible(s, role.name).all()
    st.caption(f"Limited to what role {md(role.name)} may see.")
srch = searcher(s)
index = srch.status_for(role.name, grants(scope)) if srch else None
# A steward works the queue: each item has a stable id and offers its actions (ui/decide.py; the rules are
# core/answer/decide.py's); decided items are listed apart, with who decided and why.
queue = read_queue(s, catalog_today(s), index) if role.steward else None
items = [q.item for q in queue.open] if queue else review_queue(evidence, catalog_today(s), index)
if done := st.session_state.pop("decided", None):
    st.success(md(done))
# The queue's "today" (a draft or page past its expiry leaves it) is the catalog's, as in Ask: said, so a demo's own
# clock is never mistaken for the calendar's.
st.caption(f"Queue as of {day_text(catalog_today(s))}. {clock_text(s.now(), s.clock)}.")


def _open_in_ask(n: int) -> None:
    item = items[n]
    if item.ask_question:
        asked = {"question": item.ask_question}
        if item.ask_date:  # the item's own date, for this question only: the sidebar stays as it is
            asked.update(day=item.ask_date, period=None, date_from_form=True)
    else:
        asked = {"question": item.title, "open": item.evidence_ids}
    st.session_state["asked"] = asked
    st.session_state["question"] = asked["question"]
    st.session_state["go_ask"] = True


if st.session_state.pop("go_ask", False):
    st.switch_page("pages/0_Ask.py")

c1, c2, c3 = st.columns([2, 2, 1], vertical_alignment="bottom")
kinds = c1.multiselect("Kind", list(CATEGORY_LABELS), format_func=CATEGORY_LABELS.get, key="review_kinds",
                       placeholder="All kinds")
status = st.segmented_control("Show", ["Open", "Closed", "All"], key="review_show", default="Open") \
    if queue else "Open"
closed = [q for q in queue.closed if not kinds or q.item.category in kinds] if queue else []
owners = sorted({i.owner or "no owner" for i in items})
chosen_owners = c2.multiselect("Owner", owners, key="review_owners", placeholder="All owners")
shown = [(n, i) for n, i in enumerate(items)
         if (not kinds or i.category in kinds) and (not chosen_owners or (i.owner or "no owner") in chosen_owners)]
c3.download_button("Export CSV", queue_csv([i for _, i in shown], CATEGORY_LABELS), file_name="asof-review-queue.csv", mime="text/csv",
                   key="review_csv", icon=":material/download:", width="stretch")
st.metric("Open items", len(shown), help="After the filters above." if kinds or chosen_owners else None)
who = decider(role.name, form["principal"]) if queue else None
if status == "Closed":
    shown = []

for category, title in CATEGORY_LABELS.items() if status != "Closed" else ():
    mine = [(n, i) for n, i in shown if i.category == category]
    if not mine:
        continue
    st.subheader(f"{title} ({len(mine)})")
    for n, item in mine:
        with st.container(border=True, key=f"item_{n}"):
            st.markdown(f"**{md(item.title)}**")
            st.markdown(f"What is wrong: {md(item.detail)}  \nWhat to do: {md(item.action)}")
            st.caption(" · ".join(x for x in (
                f"Since {day_text(item.since)}" if item.since else "",
                f"Owner: {md(item.owner)}" if item.owner else "No owner recorded",
                "Evidence: " + ", ".join(code(e) for e in item.evidence_ids)) if x))
            st.button("Open in Ask", key=f"review_{category}_{n}", on_click=_open_in_ask, args=(n,))
            if queue:
                st.caption(f"Item {code(queue.open[n].id)}")
                decide_form(queue.open[n], f"decide_{n}", queue.revision, who, [r.name for r in s.roles()])
if status in ("Closed", "All") and queue:
    st.subheader(f"Closed items ({len(closed)})")
    for n, q in enumerate(closed):
        closed_item(q, f"closed_{n}", queue.revision, who, [r.name for r in s.roles()])
    if not closed:
        st.info("No decision recorded yet." if not queue.closed else "No closed item matches these filters.")
if not shown and status != "Closed":
    st.success("Nothing to review." if not items else "No item matches these filters.")
