"""Lineage: explore the graph around any visible entity at a chosen date. Click a node to open it."""
import streamlit as st

st.set_page_config(page_title="AsOf · Lineage", page_icon="🕸️", layout="wide")


from core.answer.lineage_start import first_with_lineage, lineage_starts  # noqa: E402
from core.answer.steward import steward_view  # noqa: E402
from core.explain.headline import day_text  # noqa: E402
from core.resolve.freshness import source_freshness  # noqa: E402
from core.resolve.graph import graph  # noqa: E402
from core.resolve.lineage import explore  # noqa: E402
from core.resolve.versions import interval_text  # noqa: E402
from ui.graph import graph_or_table, pick_node_object  # noqa: E402
from ui.resources import sidebar, store  # noqa: E402
from ui.safe import code, inert, md  # noqa: E402
from ui.steward import badge, scope_for  # noqa: E402

s = store()
form = sidebar(s)
role = form["role"]
scope = scope_for(s, role)
ev_view = steward_view(s, role, scope)  # a steward's own objects plus its review queue, read-only
st.title("Lineage")
badge(scope)
entities = {e: ent.label for e, ent in sorted(ev_view.entities.items()) if ent.role in ("metric", "model", "source")}
if not entities:
    st.info("No entities with lineage are visible to this role.")
    st.stop()
linked = st.query_params.get("entity")
if linked and not st.session_state.get("lineage_link_read"):  # a shared link (?entity=) picks the entity once
    st.session_state["lineage_link_read"] = True
    if linked in entities:
        st.session_state["lineage_entity"] = linked
    else:  # said, not silently replaced: the same words for hidden and absent
        st.warning(f"No entity {code(linked)} with lineage is visible to role {md(role)}; showing another.")
day = form["day"] or (form["period"][0] if form["period"] else form["at"].date())
if st.session_state.get("lineage_entity") not in entities:
    # Opens on something with lineage in effect that day (a steward's first entity by name may be a queued page's
    # bare subject), else the first by name.
    st.session_state["lineage_entity"] = first_with_lineage(ev_view, list(entities), day) or next(iter(entities))
entity_id = st.selectbox("Entity", list(entities), key="lineage_entity",
                         format_func=lambda e: inert(f"{entities[e]} ({e})"))
c1, c2 = st.columns(2)
up = c1.slider("Upstream depth", 0, 10, 5, key="up_depth")
down = c2.slider("Downstream depth", 0, 10, 2, key="down_depth")
ent = ev_view.entities[entity_id]
starts, day, moved = lineage_starts(ev_view, entity_id, day)  # the versions the view holds, as Ask starts
if moved:
    st.info(md(moved))
lin = explore(ev_view, starts, day, up, down)
sources = [n.id for n in lin.nodes if n.kind == "source"] or ([entity_id] if ent.role == "source" else [])
fresh = {f.source: f for f in (source_freshness(x, ev_view.freshness_objects(x), form["at"], day) for x in sources) if f}
st.caption(f"As of {day_text(day)}: starting from " + ", ".join(code(x) for x in starts) + f"; {len(lin.edges)} edges. "
           "Click a node to open it.")


def _open(node: str) -> None:
    objs = ev_view.by_ids([node])
    if not objs:
        return
    e = pick_node_object(node, objs)
    with st.container(border=True, key="opened_node"):
        st.markdown(f"**Opened: {md(e.title)}** · {md(e.kind.value.replace('_', ' '))} · {code(e.evidence_id)} · "
                    f"in effect {md(interval_text(e))}")
        if e.metric:
            st.code(inert(e.metric.formula), language="sql", wrap_lines=True)
        if e.text:
            st.text(inert(e.text))
        f = fresh.get(node) or fresh.get(e.entity_id)
        if f:
            st.markdown(f"Freshness: **{f.status}**, last loaded {f.loaded_at or 'never'}")
        if e.entity_id in entities and e.entity_id != entity_id:
            st.button("Center the graph here", key="recenter", on_click=lambda: st.session_state.update(lineage_entity=e.entity_id))


if lin.edges:
    labels = {n.id: n.label for n in lin.nodes}
    rows = [{"from": labels.get(e.upstream, e.upstream), "from id": e.upstream,
             "to": labels.get(e.downstream, e.downstream), "to id": e.downstream,
             "freshness of source": fresh[e.upstream].status if e.upstream in fresh else "",
             "recorded in": e.evidence_id} for e in lin.edges]
    clicked = graph_or_table(graph(lin, starts, {k: f.status for k, f in fresh.items()}), "lineage_page", rows,
                             path_words="path into the chosen entity")
    if clicked:
        _open(clicked)
elif scope is not None:  # the steward's view: its role's objects and its queue, not the lineage around them
    st.info(f"No lineage edges for {md(entities[entity_id])} in your steward view on {day_text(day)}: it holds "
            "your role's objects and your review queue, and no lineage object among them records an edge of it "
            "(Ask answers the same).")
else:
    st.info("No lineage edges in effect on this date for this entity.")
