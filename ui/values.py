"""The Ask page's values: a value card per sub-period (the number, the version and model that computed it, the
period), the sub-period table, the SQL (collapsed), how fresh the inputs were, and a restatement's month-by-month
difference with a chart. Draws core.catalog.values.Values; decides nothing."""
from __future__ import annotations

import streamlit as st

from core.catalog.envelope import Envelope
from core.explain.value_headline import period_verdict
from core.explain.value_text import as_of_text, number, period_label, signed
from ui.safe import code, inert, md, table

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
    # Fixed CSS (no catalog text): a card's label and number wrap instead of ending in "…" in a narrow column.
    st.html("<style>[data-testid=stMetricLabel], [data-testid=stMetricLabel] *, [data-testid=stMetricValue], "
            "[data-testid=stMetricValue] * { white-space: normal !important; overflow: visible !important; "
            "text-overflow: clip !important; overflow-wrap: anywhere; }</style>")
    if values.compared is not None:
        _compared(env, values.compared)
    elif len(values.values) <= MAX_CARDS:
        for col, v in zip(st.columns(len(values.values) or 1), values.values):
            col.metric(md(f"{env.entity_label or v.entity_id} · {period_label(v.start, v.end)}"), number(v.value, v.unit),
                       border=True)
            col.caption(f"{md(v.title)} on {code(v.relation or v.model_evidence_id)}, computed by {md(v.engine)}")
    st.caption(md(as_of_text(values)))
    verdict = period_verdict(env)  # judged on the loads the period needed, as the status line says
    if verdict:
        st.caption(md(verdict[1]))
    # A restatement's table holds these values too; two periods compared one value each are their two cards.
    pieces = values.compared is None or any(side.pieces > 1 for side in values.compared.sides)
    if len(values.values) > 1 and not values.restatement and pieces:
        # Formatted as the single values are (currency, percent, units), and named as an analyst names them.
        table([{"period": period_label(v.start, v.end), "value": number(v.value, v.unit),
                "version": version_name(v), "table": v.relation or ""} for v in values.values])
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


def version_name(v) -> str:
    """'v2', as the headline says it, never the evidence id."""
    label = v.version or ""
    return f"v{label}" if label[:1].isdigit() else label or v.title


def _compared(env: Envelope, c) -> None:
    """Two periods side by side: each value as a card, the later with its difference from the earlier."""
    unit = c.sides[0].unit or c.sides[1].unit
    for i, (col, side) in enumerate(zip(st.columns(2), c.sides)):
        shown = number(side.value, unit) if side.value is not None or side.pieces == 1 else "several values"
        delta = (f"{signed(c.difference, unit)}" + (f" ({c.percent:+.2f}%)" if c.percent is not None else "")
                 if i == 1 and c.difference is not None else None)
        col.metric(md(f"{env.entity_label or ''} · {period_label(side.start, side.end)}"), shown, delta=delta,
                   border=True)
        col.caption("under " + ", then ".join(md(v) for v in side.versions))
    if c.changed:
        st.caption(f"The two periods' definitions differ in {md(', '.join(c.changed))} (compared below).")


def _restatement(r, unit: str | None) -> None:
    st.markdown(f"**Restated under {md(r.other_title)}** ({md(r.why)})")
    if r.difference is not None:
        pct = f" ({r.percent:+.2f}%)" if r.percent is not None else ""
        st.metric(md(f"Total under {r.other_title}"), number(r.other_total, unit),
                  delta=f"{signed(r.difference, unit)}{pct}", border=True)
    other = version_name(r.rows[0].other) if r.rows else r.other_title
    rows = [{"period": period_label(x.start, x.end), "as governed": number(x.governing.value, unit),
             "governing version": version_name(x.governing), f"under {other}": number(x.other.value, unit),
             "difference": signed(x.difference, unit),
             "difference %": f"{x.percent:+.2f}%" if x.percent is not None else "n/a"} for x in r.rows]
    st.altair_chart(_chart(r, unit), width="stretch")
    table(rows)


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
