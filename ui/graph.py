"""The lineage graph (vis-network through streamlit-agraph) with a legend, freshness on sources, a height
that follows the graph, and labels readable at 1024 px. Returns the node a user clicked."""
from __future__ import annotations

import html
from typing import NamedTuple

import streamlit as st
from streamlit_agraph import Config, Edge, Node, agraph

from core.resolve.graph import COLOURS, PATH_COLOUR, Graph

FRESH_BORDER = {"pass": "#1a7f37", "warn": "#d4a72c", "error": "#d1242f", "unknown": "#8c959f"}
FRESH_WORD = {"pass": "fresh", "warn": "stale", "error": "failing", "unknown": "no load recorded"}
KIND_WORD = {"metric": "metric", "model": "model", "source": "raw source", "node": "other"}


def _levels(g: Graph) -> dict[str, int]:
    """Longest distance from a node with no upstream; bounded, so a cycle cannot loop forever."""
    level = {n.id: 0 for n in g.nodes}
    for _ in range(len(g.nodes)):
        changed = False
        for e in g.edges:
            if e.source in level and e.target in level and level[e.target] < level[e.source] + 1:
                level[e.target] = level[e.source] + 1
                changed = True
        if not changed:
            break
    return level


# Sizes vis-network draws a node with at font 18 and margin 10 (measured in Chromium: ~9.3 px a character).
CHAR_PX, NODE_PAD, NODE_H = 9.5, 28, 58
# The graph's frame in the wide layout at a 1400 px window. vis-network zooms a graph out until it fits the
# frame's width (never in beyond 100 %), so the height is computed for that zoom: a narrower window only
# leaves some space under a wide graph instead of a tall empty canvas on every screen.
FRAME_PX, EDGE_PX = 900, 16
UD_LEVEL, UD_SPACING = 120, 230


class Fit(NamedTuple):
    direction: str  # "UD" (sources on top) or "LR" (sources on the left)
    height: int  # canvas px: the graph's own height at the zoom it will be drawn with, plus a small edge
    level_separation: int
    node_spacing: int


def fit_layout(g: Graph, level: dict[str, int] | None = None) -> Fit:
    """The canvas size and orientation that fit the graph's content. Top-down by default; left-to-right
    when a level holds more nodes than fit side by side (say eleven metrics reading one model), since
    stacked nodes stay readable where a row of them would be zoomed down to an illegible strip."""
    level = level if level is not None else _levels(g)
    width = {n.id: max(len(line) for line in n.label.split("\n")) * CHAR_PX + NODE_PAD for n in g.nodes}
    rows: dict[int, list[float]] = {}
    for n in g.nodes:
        rows.setdefault(level.get(n.id, 0), []).append(width[n.id])
    depth = max(rows, default=0) + 1
    widest = max(width.values(), default=NODE_PAD)
    # Top-down: each level is a row; nodes sit at least UD_SPACING apart, wide labels further.
    ud_w = max((sum(max(w + 30, UD_SPACING) for w in row) for row in rows.values()), default=widest)
    ud_h = (depth - 1) * UD_LEVEL + NODE_H
    # Left-to-right: each level is a column as wide as the widest label; nodes stack NODE_H + 22 apart.
    lr_sep, lr_spacing = int(widest + 60), NODE_H + 22
    lr_w = (depth - 1) * lr_sep + widest
    lr_h = (max((len(r) for r in rows.values()), default=1) - 1) * lr_spacing + NODE_H
    ud_zoom, lr_zoom = min(1.0, FRAME_PX / ud_w), min(1.0, FRAME_PX / lr_w)
    if ud_zoom >= 1.0 or ud_zoom >= lr_zoom:
        return Fit("UD", int(ud_zoom * ud_h + 2 * EDGE_PX), UD_LEVEL, UD_SPACING)
    return Fit("LR", int(lr_zoom * lr_h + 2 * EDGE_PX), lr_sep, lr_spacing)


def legend(kinds: set[str], fresh: set[str], path_words: str = "path used by the answer") -> None:
    bits = [f"<span style='color:{COLOURS[k]}'>■</span> {KIND_WORD[k]}" for k in ("metric", "model", "source", "node")
            if k in kinds]
    # Fixed strings only (no catalog text), so this HTML is ours.
    bits += [f"<span style='color:{FRESH_BORDER[s]}'>▢</span> {FRESH_WORD[s]}" for s in ("pass", "warn", "error", "unknown")
             if s in fresh]
    bits.append(f"<span style='color:{PATH_COLOUR}'>━</span> {html.escape(path_words)}")
    st.markdown("<small>" + " &nbsp; ".join(bits) + "</small>", unsafe_allow_html=True)


def show_graph(g: Graph, key: str, freshness: dict[str, str] | None = None,
               path_words: str = "path used by the answer") -> str | None:
    freshness = freshness or {}
    level = _levels(g)
    nodes = []
    for n in g.nodes:
        status = freshness.get(n.id)
        label = n.label + (f"\n{FRESH_WORD[status]}" if status else "")
        colour = {"background": n.colour, "border": FRESH_BORDER[status] if status else (PATH_COLOUR if n.on_path else n.colour),
                  "highlight": {"background": n.colour, "border": "#000000"}}
        # vis-network writes the title into the page as HTML: escape it.
        node = Node(id=n.id, label=label, color=colour, shape="box", size=20, borderWidth=4 if status else (3 if n.on_path else 1),
                    title=html.escape(f"{KIND_WORD.get(n.kind, n.kind)}: {n.id}"),
                    font={"size": 18, "color": "#ffffff", "face": "sans-serif"}, margin=10)
        nodes.append(node)
    edges = []
    for e in g.edges:
        edge = Edge(source=e.source, target=e.target, color=PATH_COLOUR if e.on_path else "#8c959f",
                    width=3 if e.on_path else 1, title=html.escape(e.evidence_id))
        del edge.__dict__["source"]  # the frontend reads `from`/`to`; `source` is not a vis edge option
        edges.append(edge)
    fit = fit_layout(g, level)
    # Only options vis-network knows: agraph copies any extra keyword to the top level, where vis logs
    # "Unknown option" errors on every render.
    config = Config(width="100%", height=fit.height, directed=True, physics=False, hierarchical=True)
    config.width = "100%"
    config.__dict__.pop("groups", None)  # None is not a valid vis `groups` option
    config.layout = {"hierarchical": {"enabled": True, "direction": fit.direction, "sortMethod": "directed",
                                      "levelSeparation": fit.level_separation, "nodeSpacing": fit.node_spacing,
                                      "treeSpacing": fit.node_spacing, "shakeTowards": "roots"}}
    config.interaction = {"hover": True, "zoomView": False, "dragView": True}
    legend({n.kind for n in g.nodes}, set(freshness.values()) & {n_status for n_status in FRESH_WORD}, path_words)
    with st.container(key=f"graph_{key}"):
        return agraph(nodes=nodes, edges=edges, config=config)


def pick_node_object(node: str, objs: list):
    """What a clicked node opens: the object with that evidence id, else the entity's own definition
    (a source table, not its freshness policy), else the first object."""
    exact = [o for o in objs if o.evidence_id == node]
    if exact:
        return exact[0]
    main = [o for o in objs if o.kind.value in ("source", "model", "metric_definition") and o.governs]
    return (main or objs)[0]
