"""Lineage as graph data for display: a node's fill says its freshness when it has one (a raw source), else its
kind; the answer's path highlighted. Pure."""
from __future__ import annotations

from pydantic import BaseModel

from core.catalog.envelope import Lineage

COLOURS = {"metric": "#1f6feb", "model": "#8250df", "source": "#0b6e75", "node": "#57606a"}
# One colour per freshness verdict, used for the whole box (never a green box with a red border): a source
# with no freshness recorded keeps its kind's teal. Dark enough for white text on light and dark themes.
FRESH_FILL = {"pass": "#1a7f37", "warn": "#9a6700", "error": "#cf222e", "unknown": "#6e7781"}
FRESH_WORD = {"pass": "fresh", "warn": "stale", "error": "failing", "unknown": "no load recorded"}
# Cyan, not red: a red border marks failing data on the graph, and the two must never be confused.
PATH_COLOUR = "#0598bc"


class GraphNode(BaseModel):
    id: str
    label: str
    kind: str
    colour: str
    on_path: bool
    status: str | None = None  # pass | warn | error | unknown, for a node with freshness


class GraphEdge(BaseModel):
    source: str
    target: str
    evidence_id: str
    on_path: bool


class Graph(BaseModel):
    nodes: list[GraphNode]
    edges: list[GraphEdge]


def graph(lineage: Lineage, path_from: list[str] | None = None, freshness: dict[str, str] | None = None) -> Graph:
    """`path_from`: nodes whose upstream closure is the path used for the answer (all edges when None);
    `freshness`: node id -> status, which then decides the node's colour and adds a line to its label."""
    freshness = {k: v for k, v in (freshness or {}).items() if v in FRESH_FILL}
    on_path = set(path_from or [])
    if path_from is not None:
        changed = True
        while changed:  # walk upstream from the answer's own nodes
            changed = False
            for e in lineage.edges:
                if e.downstream in on_path and e.upstream not in on_path:
                    on_path.add(e.upstream)
                    changed = True
    else:
        on_path = {n.id for n in lineage.nodes}
    nodes = []
    for n in lineage.nodes:
        status = freshness.get(n.id)
        label = (f"{n.label}\nv{n.version}" if n.version else n.label) + (f"\n{FRESH_WORD[status]}" if status else "")
        nodes.append(GraphNode(id=n.id, label=label, kind=n.kind, on_path=n.id in on_path, status=status,
                               colour=FRESH_FILL[status] if status else COLOURS.get(n.kind, COLOURS["node"])))
    edges = [GraphEdge(source=e.upstream, target=e.downstream, evidence_id=e.evidence_id,
                       on_path=e.upstream in on_path and e.downstream in on_path) for e in lineage.edges]
    return Graph(nodes=nodes, edges=edges)
