"""Governance review: the queue a reviewer works through. Scoped to your role, or the whole catalog
for catalog stewards."""
from datetime import date

import streamlit as st

st.set_page_config(page_title="AsOf · Governance review", page_icon="🧑‍⚖️", layout="wide")

from core.review import CATEGORIES, review_queue  # noqa: E402
from ui.resources import searcher, sidebar, store  # noqa: E402

s = store()
form = sidebar(s)
role = next(r for r in s.roles() if r.name == form["role"])
st.title("Governance review")
if role.steward:
    evidence = s.all_evidence_for_review()
    st.caption("You are a catalog steward: the queue covers the whole catalog.")
else:
    evidence = s.visible(role.name).all()
    st.caption(f"Limited to what role **{role.name}** may see.")
srch = searcher(s)
index = srch.status_for(role.name) if srch else None
items = review_queue(evidence, date.today(), index)
st.metric("Open items", len(items))


def _open_in_ask(question: str, day) -> None:
    st.session_state["asked"] = {"question": question}
    st.session_state["question"] = question
    if day:
        st.session_state["date_mode"] = "Date"
        st.session_state["day"] = day
    st.session_state["go_ask"] = True


if st.session_state.pop("go_ask", False):
    st.switch_page("app.py")
for category, title in CATEGORIES.items():
    mine = [i for i in items if i.category == category]
    with st.expander(f"{title} ({len(mine)})", expanded=bool(mine)):
        if not mine:
            st.caption("Nothing here.")
        for n, item in enumerate(mine):
            with st.container(border=True):
                st.markdown(f"**{item.title}**  \n{item.detail}")
                st.caption(f"Owner: {item.owner or '—'} · Evidence: " + ", ".join(f"`{e}`" for e in item.evidence_ids))
                if item.ask_question:
                    st.button("Open in Ask", key=f"review_{category}_{n}", on_click=_open_in_ask,
                              args=(item.ask_question, item.ask_date))
