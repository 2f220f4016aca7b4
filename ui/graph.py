"""The lineage graph (vis-network through streamlit-agraph), laid out here, not by vis (core/resolve/layout.py:
no edge through a box, no box over another), with a legend, freshness as the colour of a source, a height
that follows the graph, and labels readable at 1024 px. Returns the node a user clicked."""
from __future__ import annotations

import html

import streamlit as st
from streamlit_agraph import Config, Edge, Node, agraph

from core.resolve.graph import COLOURS, FRESH_FILL, FRESH_WORD, PATH_COLOUR, Graph
from core.resolve.layout import Layout, layered
from ui.safe import table

KIND_WORD = {"metric": "metric", "model": "model", "source": "raw source, freshness not tracked", "node": "other"}

# Boxes are drawn at font 18 with a 10 px margin. vis-network sizes a box to its label; the layout needs the
# size first, so it is estimated generously from the longest line (Chromium draws this font at ~9.3 px a
# character; 10.4 leaves room for wide letters) and given to vis as the box's minimum, so the drawn box is the
# box that was laid out. The browser test measures the drawn boxes.
FONT, MARGIN, CHAR_PX, LINE_PX = 18, 10, 10.4, 22
# The graph's frame in the wide layout at a 1400 px window. vis-network zooms a graph out until it fits the
# frame (never in beyond 100 %), so the height is computed for that zoom.
FRAME_PX, EDGE_PX, MIN_H, MAX_H = 900, 12, 140, 900


def box_size(label: str) -> tuple[float, float]:
    lines = label.split("\n")
    return max(len(line) for line in lines) * CHAR_PX + 2 * MARGIN, len(lines) * LINE_PX + 2 * MARGIN


def layout(g: Graph) -> Layout:
    return layered({n.id: box_size(n.label) for n in g.nodes}, [(e.source, e.target) for e in g.edges])


def canvas_height(lay: Layout) -> int:
    zoom = min(1.0, FRAME_PX / max(lay.width, 1.0))
    return int(min(MAX_H, max(MIN_H, zoom * lay.height + 2 * EDGE_PX)))


def legend(g: Graph, path_words: str = "path used by the answer") -> None:
    kinds = {n.kind for n in g.nodes if not n.status}
    fresh = {n.status for n in g.nodes if n.status}
    bits = [f"<span style='color:{COLOURS[k]}'>■</span> {KIND_WORD[k]}" for k in ("metric", "model", "source", "node")
            if k in kinds]
    # Fixed strings only (no catalog text), so this HTML is ours.
    bits += [f"<span style='color:{FRESH_FILL[s]}'>■</span> source {FRESH_WORD[s]}" for s in ("pass", "warn", "error", "unknown")
             if s in fresh]
    bits.append(f"<span style='color:{PATH_COLOUR}'>━</span> {html.escape(path_words)}")
    st.markdown("<small>" + " &nbsp; ".join(bits) + "</small>", unsafe_allow_html=True)


def show_graph(g: Graph, key: str, path_words: str = "path used by the answer") -> str | None:
    """Boxes at the positions core.resolve.layout computed (physics and vis's own layout off), edges as the
    routed polylines through invisible bend points. Returns the id of a clicked box, never of a bend."""
    lay = layout(g)
    by_id = {n.id: n for n in g.nodes}
    nodes = []
    for b in lay.boxes:
        n = by_id[b.id]
        colour = {"background": n.colour, "border": PATH_COLOUR if n.on_path else n.colour,
                  "highlight": {"background": n.colour, "border": "#000000"},
                  "hover": {"background": n.colour, "border": "#000000"}}
        # vis-network writes the title into the page as HTML: escape it.
        status = f" · {FRESH_WORD[n.status]}" if n.status else ""
        nodes.append(Node(id=n.id, label=n.label, color=colour, shape="box", x=b.x, y=b.y, fixed=True,
                          borderWidth=3 if n.on_path else 1, title=html.escape(f"{KIND_WORD.get(n.kind, n.kind)}: {n.id}{status}"),
                          font={"size": FONT, "color": "#ffffff", "face": "sans-serif"}, margin=MARGIN,
                          # vis adds the margin around a constrained label: the box then measures exactly b.width x b.height.
                          widthConstraint={"minimum": b.width - 2 * MARGIN},
                          heightConstraint={"minimum": b.height - 2 * MARGIN, "valign": "middle"}))
    for p in lay.points:  # a bend: a point nobody sees or can pick
        nodes.append(Node(id=p.id, label=" ", shape="dot", size=0.5, x=p.x, y=p.y, fixed=True, borderWidth=0,
                          color={"background": "rgba(0,0,0,0)", "border": "rgba(0,0,0,0)"}, chosen=False))
        del nodes[-1].__dict__["title"]  # agraph would show the point's id on hover
    edges = []
    for i, s in enumerate(lay.segments):
        on_path = any(g.edges[k].on_path for k in s.edges)
        edge = Edge(source=s.start, target=s.end, color=PATH_COLOUR if on_path else "#8c959f", width=3 if on_path else 1,
                    arrows={"to": {"enabled": s.arrow, "scaleFactor": 0.7}}, smooth=False, id=f"seg{i}",
                    title=html.escape(", ".join(sorted({g.edges[k].evidence_id for k in s.edges}))))
        del edge.__dict__["source"]  # the frontend reads `from`/`to`; `source` is not a vis edge option
        edges.append(edge)
    # Only options vis-network knows: agraph copies any extra keyword to the top level, where vis logs
    # "Unknown option" errors on every render.
    config = Config(width="100%", height=canvas_height(lay), directed=True, physics=False, hierarchical=False)
    config.width = "100%"
    config.__dict__.pop("groups", None)  # None is not a valid vis `groups` option
    config.layout = {"hierarchical": {"enabled": False}}
    config.interaction = {"hover": True, "zoomView": False, "dragView": True, "dragNodes": False}
    legend(g, path_words)
    with st.container(key=f"graph_{key}"):
        clicked = agraph(nodes=nodes, edges=edges, config=config)
    return clicked if clicked in by_id else None


def graph_or_table(g: Graph, key: str, rows: list[dict], path_words: str = "path used by the answer") -> str | None:
    """The graph, or the same edges as a table. One of the two is drawn at a time (not st.tabs): a graph
    drawn inside a hidden tab is laid out in a zero-width frame and comes back as one huge clipped box."""
    view = st.radio("Show lineage as", ["Graph", "Table"], key=f"lineage_view_{key}", horizontal=True,
                    label_visibility="collapsed")
    if view == "Table":
        table(rows)
        return None
    return show_graph(g, key, path_words)


def pick_node_object(node: str, objs: list):
    """What a clicked node opens: the object with that evidence id, else the entity's own definition
    (a source table, not its freshness policy), else the first object."""
    exact = [o for o in objs if o.evidence_id == node]
    if exact:
        return exact[0]
    main = [o for o in objs if o.kind.value in ("source", "model", "metric_definition") and o.governs]
    return (main or objs)[0]
