"""Evaluation: run the regression suites here and read the scorecard, with per-case drill-down."""
import streamlit as st

st.set_page_config(page_title="AsOf · Evaluation", page_icon="📏", layout="wide")

import altair as alt  # noqa: E402

from core.evaluate import METHODS, scorecard  # noqa: E402
from ui.resources import _embedder, settings, sidebar, store  # noqa: E402

sidebar(store())
st.title("Evaluation")
st.caption("Each suite is ingested into a temporary catalog and every gold case is asked from its question text, "
           "role and form date. Baselines show what plain similarity search would return.")
chosen = st.multiselect("Suites", ["suite_a", "suite_b", "paraphrase"], default=["suite_a", "suite_b"], key="suites")
if st.button("Run evaluation", key="run_eval", type="primary") and chosen:
    with st.spinner("Running suites…"):
        embedder, thread = _embedder(settings().embed_model)
        thread.join()
        st.session_state["scorecard"] = {name: [{**r.as_dict(), "details": r.details} for r in rows]
                                         for name, rows in scorecard(chosen, embedder).items()}
results = st.session_state.get("scorecard")
if results:
    table = [{"suite": name, **{k: v for k, v in row.items() if k != "details"}}
             for name, rows in results.items() for row in rows]
    st.dataframe(table, hide_index=True, width="stretch")
    long = [{"suite": t["suite"], "method": t["method"], "measure": m, "percent": t[m]}
            for t in table for m in ("authoritative_top1", "recall_at_3")]
    chart = alt.Chart(alt.Data(values=long)).mark_bar().encode(
        x=alt.X("method:N", sort=list(METHODS)), y=alt.Y("percent:Q", scale=alt.Scale(domain=[0, 100])),
        color="measure:N", xOffset="measure:N", column="suite:N", tooltip=["suite:N", "method:N", "measure:N", "percent:Q"])
    st.altair_chart(chart)
    suite = st.selectbox("Drill down: suite", list(results), key="drill_suite")
    method = st.selectbox("Method", list(METHODS), index=len(METHODS) - 1, key="drill_method")
    row = next(r for r in results[suite] if r["method"] == method)
    st.dataframe(row["details"], hide_index=True, width="stretch")
