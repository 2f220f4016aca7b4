"""The lineage graph (vis-network through streamlit-agraph) with a legend, freshness on sources, a height
that follows the graph, and labels readable at 1024 px. Returns the node a user clicked."""
from __future__ import annotations

import html

import streamlit as st
from streamlit_agraph import Config, Edge, Node, agraph

from core.graph import COLOURS, PATH_COLOUR, Graph

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
    depth = max(level.values(), default=0) + 1
    # Only options vis-network knows: agraph copies any extra keyword to the top level, where vis logs
    # "Unknown option" errors on every render.
    config = Config(width="100%", height=max(220, 130 * depth + 60), directed=True, physics=False, hierarchical=True)
    config.width = "100%"
    config.__dict__.pop("groups", None)  # None is not a valid vis `groups` option
    config.layout = {"hierarchical": {"enabled": True, "direction": "UD", "sortMethod": "directed",
                                      "levelSeparation": 120, "nodeSpacing": 230, "treeSpacing": 230,
                                      "shakeTowards": "roots"}}
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
