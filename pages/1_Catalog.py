"""Catalog: search what your role can see, a table of its metrics, and one entity's versions over time."""
from datetime import timedelta

import altair as alt
import streamlit as st

st.set_page_config(page_title="AsOf · Catalog", page_icon="📚", layout="wide")

FRESH_WORDS = {"pass": "fresh", "warn": "stale", "error": "failing", "unknown": "unknown"}
STANDING = {"authoritative": "approved", "non_authoritative": "not approved", "untrusted": "untrusted"}

from core.answer.browse import metric_rows, owner_line, queue_rows, search, timeline_rows  # noqa: E402
from core.answer.steward import steward_view  # noqa: E402
from core.explain.headline import day_text  # noqa: E402
from core.resolve.versions import governing_versions, interval_text  # noqa: E402
from ui.resources import catalog_today, searcher, sidebar, store  # noqa: E402
from ui.safe import code, inert, md  # noqa: E402
from ui.safe import table as wrapped_table  # noqa: E402 (the page has its own `table` of rows)
from ui.steward import badge, scope_for  # noqa: E402

s = store()
form = sidebar(s)
role = form["role"]
scope = scope_for(s, role)
view = steward_view(s, role, scope)  # a steward's own objects plus its review queue, read-only; else the role's
st.title("Catalog")
entities = {e: ent.label for e, ent in sorted(view.entities.items()) if ent.is_topic}
if scope is not None:  # every queue object opens, whatever its kind (an empty-ACL glossary, an untrusted note)
    for o in scope.objects(s):
        entities.setdefault(o.entity_id, o.title)
    badge(scope)
if not entities:
    st.info("This role sees no catalog entries.")
    st.stop()

query = st.text_input("Search names, aliases and descriptions", key="catalog_search",
                      placeholder="e.g. repurchase rate, money we keep after refunds")
if query.strip():
    hits = [e for e in search(view, query, searcher(s)) if e in entities]
    if hits:
        st.caption(f"{len(hits)} match(es): choose one below.")
        for i, e in enumerate(hits[:6]):
            st.button(f"{md(entities[e])} · {md(e)}", key=f"hit_{i}", type="tertiary",
                      on_click=lambda e=e: st.session_state.update(catalog_entity=e))
    else:
        st.caption("Nothing you can see matches.")

at = form["at"]  # the catalog's clock (a demo's) unless the sidebar sets another


MAX_OPEN_BUTTONS = 24  # more rows than this open through the Entity box below


def _open_buttons(key: str, table: list[dict], name: str) -> None:
    """One click opens a listed row's entity below. The table itself is static so its text wraps (a grid cuts a cell
    that does not fit its column at 1024 px); these buttons are what a row click was."""
    if not table:
        return
    if len(table) > MAX_OPEN_BUTTONS:
        st.caption("Choose one in the Entity box below to open it.")
        return
    st.caption("Open one below:")
    cols = st.columns(4)
    for i, r in enumerate(table):
        cols[i % 4].button(md(r[name]), key=f"{key}_open_{i}", type="tertiary",
                           on_click=lambda e=r["entity_id"]: st.session_state.update(catalog_entity=e))


rows = [r.model_dump() for r in metric_rows(view, at)]
for r in rows:
    r["freshness"] = FRESH_WORDS.get(r["freshness"], r["freshness"])
    r["team"] = r["owner"].split(" (")[0]  # the table shows the team; the person is on the metric opened below
with st.expander(f"Metrics you can {'see or review' if scope is not None else 'see'} ({len(rows)})", expanded=not query.strip()):
    f1, f2 = st.columns(2)
    owners = sorted({r["owner"] for r in rows})
    statuses = sorted({r["status"] for r in rows})
    pick_owner = f1.multiselect("Owner", owners, key="metric_owner", placeholder="All owners")
    pick_status = f2.multiselect("Status", statuses, key="metric_status", placeholder="All statuses")
    table = [r for r in rows if (not pick_owner or r["owner"] in pick_owner)
             and (not pick_status or r["status"] in pick_status)]
    # Static and wrapping: every cell whole at 1024 px; the id and version count are on the metric opened below.
    wrapped_table([{"metric": r["metric"], "in effect": r["in_effect_today"], "status": r["status"],
                    "owner": r["team"], "data": r["freshness"]} for r in table])
    _open_buttons("metric_table", table, "metric")

if scope is not None:
    qrows = [r.model_dump() for r in queue_rows(s, scope, catalog_today(s))]
    with st.expander(f"Objects in your review queue ({len(qrows)}): each opens read-only", expanded=not query.strip()):
        wrapped_table([{"title": r["title"], "problem": r["problem"], "kind": r["kind"], "standing": r["standing"],
                        "owner": r["owner"], "who may see it": r["may_see"], "id": r["evidence_id"]} for r in qrows])
        _open_buttons("queue_table", qrows, "title")

if st.session_state.get("catalog_entity") not in entities:
    st.session_state["catalog_entity"] = next(iter(entities))
entity_id = st.selectbox("Entity", list(entities), key="catalog_entity",
                         format_func=lambda e: inert(f"{entities[e]} ({e})"))
ent = view.entities.get(entity_id)
objs = view.entity_objects(entity_id)
kind = ent.role if ent else (objs[0].kind.value if objs else "")
versions = governing_versions(objs, kind)
aliases = sorted({a for o in objs for a in o.aliases})
owner, draft_authors = owner_line(objs, kind)
st.markdown(f"**{md(entities[entity_id])}** · {md(kind)} · owner: {md(owner)}"
            + (f" · draft authors: {', '.join(md(a) for a in draft_authors)}" if draft_authors else ""))
st.caption("Also called: " + (", ".join(md(a) for a in aliases) or "—"))

st.subheader("Versions over time")
day = form["day"] or (form["period"][0] if form["period"] else form["at"].date())
trows = timeline_rows(objs, max(catalog_today(s), day) + timedelta(days=365))
if trows:
    palette = {"governs": "#1f6feb", "draft": "#d4a72c", "superseded": "#8c959f", "historical": "#8c959f",
               "deprecated": "#8c959f", "current": "#8c959f"}
    shown = [k for k in palette if any(r["status"] == k for r in trows)]  # the legend lists only what is drawn
    base = alt.Chart(alt.Data(values=trows))
    bars = base.mark_bar(height=20, cornerRadius=3).encode(
        # Years only, and Vega drops labels that would collide: no overlapping axis text at 1024 px.
        x=alt.X("start:T", title=None, axis=alt.Axis(format="%Y", labelOverlap=True, tickCount="year")),
        x2="end:T",
        y=alt.Y("version:N", title=None, axis=alt.Axis(labelLimit=320)),
        color=alt.Color("status:N", title="status", scale=alt.Scale(domain=shown, range=[palette[k] for k in shown]),
                        legend=alt.Legend(orient="top", title=None)),
        opacity=alt.condition("datum.governs", alt.value(1.0), alt.value(0.35)),
        strokeDash=alt.condition("datum.governs", alt.value([1, 0]), alt.value([4, 3])),
        stroke=alt.value("#57606a"), strokeWidth=alt.condition("datum.governs", alt.value(0), alt.value(1.5)),
        tooltip=["evidence:N", "start:T", "end:T", "status:N"])
    rule = alt.Chart(alt.Data(values=[{"day": day.isoformat(), "label": f"reporting date {day_text(day)}"}])).mark_rule(
        color="#d1242f", strokeWidth=2).encode(x="day:T", tooltip=["label:N"])
    # No text label on the chart: with one or two rows it lands on a bar. The caption names the date.
    # One 34 px step per version row, whatever the legend takes: rows and their labels never squeeze together.
    st.altair_chart((bars + rule).properties(height=alt.Step(34)), width="stretch")
    st.caption("Solid: approved versions that govern. Pale and dashed: drafts and pages that never govern. "
               f"Red line: {day_text(day)}, " + ("the reporting date in the sidebar." if form["day"] or form["period"]
                                                 else "today on the sidebar's clock (no reporting date is set in the sidebar)."))
else:
    st.caption("No effective dates recorded.")
wrapped_table([{"version": o.evidence_id, "title": o.title, "in effect": interval_text(o),
        "standing": STANDING.get(o.authority.value, o.authority.value),
        "lifecycle": o.lifecycle.value, "owner": o.owner or ""} for o in objs])

if len(versions) >= 2:
    st.subheader("Compare two versions")
    ids = [v.evidence_id for v in versions]
    c1, c2 = st.columns(2)
    a_id = c1.selectbox("From", ids, index=len(ids) - 2, key="diff_a")
    b_id = c2.selectbox("To", ids, index=len(ids) - 1, key="diff_b")
    a, b = (next(v for v in versions if v.evidence_id == x) for x in (a_id, b_id))
    spec = lambda v: v.metric or v.model  # noqa: E731
    fields = ["formula", "grain", "unit", "time_dimension", "exclusions", "filters"] if a.metric else \
        ["relation", "grain", "primary_key", "columns"]
    for f in fields:
        va = getattr(spec(a), f, None) if spec(a) else None
        vb = getattr(spec(b), f, None) if spec(b) else None
        if not va and not vb:
            continue
        same = va == vb
        st.markdown(f"**{f.replace('_', ' ')}** · " + ("same" if same else ":orange-badge[changed]"))
        if isinstance(va, list) or isinstance(vb, list):
            sa, sb = set(va or []), set(vb or [])
            if sb - sa:
                st.markdown("added: " + ", ".join(md(x) for x in sorted(sb - sa)))
            if sa - sb:
                st.markdown("removed: " + ", ".join(md(x) for x in sorted(sa - sb)))
            if same:
                st.caption(", ".join(md(x) for x in va or []))
        elif same:
            st.code(inert(va), language="sql" if f == "formula" else None, wrap_lines=True)
        else:
            d1, d2 = st.columns(2)
            d1.caption(a_id)
            d1.code(str(va or "—"), language="sql" if f == "formula" else None, wrap_lines=True)
            d2.caption(b_id)
            d2.code(str(vb or "—"), language="sql" if f == "formula" else None, wrap_lines=True)
    st.markdown(f"**in effect** · {code(a_id)}: {md(interval_text(a))} → {code(b_id)}: {md(interval_text(b))}")
