"""Lineage: explore the graph around any visible entity at a chosen date."""
import streamlit as st

st.set_page_config(page_title="AsOf · Lineage", page_icon="🕸️", layout="wide")

from datetime import date  # noqa: E402

from core.graph import graph  # noqa: E402
from core.lineage import explore  # noqa: E402
from core.resolve import governing_versions, in_effect  # noqa: E402
from ui.answer import show_graph  # noqa: E402
from ui.resources import sidebar, store  # noqa: E402

s = store()
form = sidebar(s)
view = s.visible(form["role"])
st.title("Lineage")
entities = {e: ent for e, ent in sorted(view.entities.items()) if ent.role in ("metric", "model", "source")}
if not entities:
    st.info("No entities with lineage are visible to this role.")
    st.stop()
entity_id = st.selectbox("Entity", list(entities), key="lineage_entity",
                         format_func=lambda e: f"{entities[e].label} ({e})")
day = form["day"] or (form["period"][0] if form["period"] else date.today())
c1, c2 = st.columns(2)
up = c1.slider("Upstream depth", 0, 10, 5, key="up_depth")
down = c2.slider("Downstream depth", 0, 10, 2, key="down_depth")
ent = entities[entity_id]
versions = in_effect(governing_versions(view.entity_objects(entity_id), ent.role), day)
starts = [v.evidence_id for v in versions] or [entity_id]
if ent.role == "source":
    starts = [entity_id]
lin = explore(view, starts, day, up, down)
st.caption(f"As of {day}: starting from {', '.join(f'`{x}`' for x in starts)}; {len(lin.edges)} edges.")
if lin.edges:
    show_graph(graph(lin, starts), key="lineage_page")
    st.dataframe([{"upstream": e.upstream, "downstream": e.downstream, "evidence": e.evidence_id} for e in lin.edges],
                 hide_index=True, width="stretch")
else:
    st.info("No lineage edges in effect on this date for this entity.")
