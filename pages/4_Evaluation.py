"""Evaluation (stewards): run the regression suites here and read the scorecard, with per-case drill-down."""
import tempfile
from pathlib import Path

import streamlit as st

st.set_page_config(page_title="AsOf · Evaluation", page_icon="📏", layout="wide")

import altair as alt  # noqa: E402

from core.serve.evaluate import METHODS, score_suite, suites  # noqa: E402
from ui.resources import _embedder, settings, sidebar, store  # noqa: E402
from ui.safe import dataframe  # noqa: E402

s = store()
form = sidebar(s, dates=False)
st.title("Evaluation")
if not any(r.name == form["role"] and r.steward for r in s.roles()):
    st.warning(f"The evaluation is for catalog stewards; role **{form['role']}** is not one, so it cannot run it "
               "here. If you may use a steward role, choose it in the sidebar's Role box.")
    st.stop()
st.caption("Each suite is ingested into a temporary catalog and every gold case is asked from its question text, "
           "role and form date. Baselines show what plain similarity search would return. A run takes about a "
           "minute.")
chosen = st.multiselect("Suites", ["suite_a", "suite_b", "paraphrase"], default=["suite_a", "suite_b"], key="suites")
if st.button("Run evaluation", key="run_eval", type="primary") and chosen:
    bar = st.progress(0.0, text="Loading the embedding model…")
    embedder, thread = _embedder(settings().embed_model)
    thread.join()
    todo = suites(chosen)
    results = {}
    with tempfile.TemporaryDirectory(prefix="asof-eval-") as tmp:
        for n, suite in enumerate(todo):
            bar.progress(n / len(todo), text=f"Running {suite.name} ({n + 1} of {len(todo)})…")
            results[suite.name] = [{**r.as_dict(), "details": r.details} for r in score_suite(suite, embedder, Path(tmp))]
    bar.progress(1.0, text="Done.")
    st.session_state["scorecard"] = results
results = st.session_state.get("scorecard")
if results:
    for name, rows in results.items():
        pipeline = next((r for r in rows if r["method"] == "pipeline"), None)
        if pipeline and pipeline.get("behavior_accuracy") is not None:
            st.metric(f"{name}: right behavior (full pipeline)", f"{pipeline['behavior_accuracy']:g}%")
    # behavior accuracy is measured for the full pipeline only: shown above, not as empty cells.
    table = [{"suite": name, **{k: v for k, v in row.items() if k not in ("details", "behavior_accuracy")}}
             for name, rows in results.items() for row in rows]
    dataframe(table, hide_index=True, width="stretch")
    long = [{"suite": t["suite"], "method": t["method"], "measure": m, "percent": t[m]}
            for t in table for m in ("authoritative_top1", "recall_at_3")]
    chart = alt.Chart(alt.Data(values=long)).mark_bar().encode(
        x=alt.X("method:N", sort=list(METHODS)), y=alt.Y("percent:Q", scale=alt.Scale(domain=[0, 100])),
        color="measure:N", xOffset="measure:N", column="suite:N", tooltip=["suite:N", "method:N", "measure:N", "percent:Q"])
    st.altair_chart(chart)
    suite = st.selectbox("Drill down: suite", list(results), key="drill_suite")
    method = st.selectbox("Method", list(METHODS), index=len(METHODS) - 1, key="drill_method")
    row = next(r for r in results[suite] if r["method"] == method)
    dataframe(row["details"], hide_index=True, width="stretch")
