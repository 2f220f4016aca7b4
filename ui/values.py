"""The Ask page's values: a value card per sub-period (the number, the version and model that computed it, the
period), the sub-period table, the SQL (collapsed), how fresh the inputs were, and a restatement's month-by-month
difference with a chart. Draws core.catalog.values.Values; decides nothing."""
from __future__ import annotations

import streamlit as st

from core.catalog.envelope import Envelope
from core.explain.value_text import as_of_text, number, period_label, period_text, signed
from ui.safe import code, dataframe, inert, md

MAX_CARDS = 4  # more sub-periods than this are shown as the table only


def render(env: Envelope) -> None:
    values = env.values
    if values is None:
        return
    st.markdown("#### Value")
    if values.status != "computed":
        st.info(md(values.message[:1].upper() + values.message[1:]))  # a sentence on its own here
        return
    unit = values.values[0].unit if values.values else None
    if len(values.values) <= MAX_CARDS:
        for col, v in zip(st.columns(len(values.values) or 1), values.values):
            col.metric(md(f"{env.entity_label or v.entity_id} · {period_text(v.start, v.end)}"), number(v.value, v.unit),
                       border=True)
            col.caption(f"{md(v.title)} on {code(v.relation or v.model_evidence_id)}, computed by {md(v.engine)}")
    st.caption(md(as_of_text(values)))
    if len(values.values) > 1 and not values.restatement:  # a restatement's table holds these values too
        dataframe([{"period": period_label(v.start, v.end), "value": v.value, "unit": v.unit or "",
                    "version": v.evidence_id, "model": v.model_evidence_id or ""} for v in values.values],
                  hide_index=True, width="stretch")
    if values.message:
        st.caption(md(values.message))
    if values.restatement:
        _restatement(values.restatement, unit)
    shown = {}
    for v in values.values + ([r.other for r in values.restatement.rows] if values.restatement else []):
        shown.setdefault(v.sql_hash, v)
    # A dbt metric's value comes from MetricFlow: what was run is its `mf query` (pinned by the semantic
    # manifest's hash), not SQL written in the catalog.
    engines = {v.engine for v in shown.values()}
    label = ("MetricFlow query each value was computed with" if engines == {"metricflow"}
             else "SQL each value was computed with" if "metricflow" not in engines
             else "SQL or MetricFlow query each value was computed with")
    with st.expander(label):
        for v in shown.values():
            st.caption(f"{md(v.evidence_id)} on {code(v.relation or '')} · {md(v.engine)} · {code(v.sql_hash)}")
            st.code(inert(v.sql), language="bash" if v.engine == "metricflow" else "sql")


def _restatement(r, unit: str | None) -> None:
    st.markdown(f"**Restated under {md(r.other_title)}** ({md(r.why)})")
    if r.difference is not None:
        pct = f" ({r.percent:+.2f}%)" if r.percent is not None else ""
        st.metric(md(f"Total under {r.other_title}"), number(r.other_total, unit),
                  delta=f"{signed(r.difference, unit)}{pct}", border=True)
    rows = [{"period": period_label(x.start, x.end), "as governed": x.governing.value,
             "governing version": x.governing.evidence_id, f"under {r.other_evidence_id}": x.other.value,
             "difference": x.difference, "difference %": x.percent} for x in r.rows]
    st.altair_chart(_chart(r, unit), width="stretch")
    dataframe(rows, hide_index=True, width="stretch")


def _chart(r, unit: str | None):
    """Both versions side by side per period, in calendar order (a plain bar chart would sort the names)."""
    import altair as alt
    order = [period_label(x.start, x.end) for x in r.rows]
    data = [{"period": period_label(x.start, x.end), "version": name, "value": v.value}
            for x in r.rows for name, v in (("as governed", x.governing), (inert(f"under {r.other_title}"), x.other))]
    return (alt.Chart(alt.Data(values=data)).mark_bar()
            .encode(x=alt.X("period:N", sort=order, title=None, axis=alt.Axis(labelAngle=0)),
                    xOffset=alt.XOffset("version:N"),
                    y=alt.Y("value:Q", title=unit or None),
                    color=alt.Color("version:N", title=None, legend=alt.Legend(orient="bottom")),
                    tooltip=["period:N", "version:N", alt.Tooltip("value:Q", format=",.2f")])
            .properties(height=300))
