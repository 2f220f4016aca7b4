"""Lineage as graph data for display: nodes coloured by kind, the answer's path highlighted. Pure."""
from __future__ import annotations

from pydantic import BaseModel

from core.catalog.envelope import Lineage

COLOURS = {"metric": "#1f6feb", "model": "#8250df", "source": "#1a7f37", "node": "#6e7781"}
# Cyan, not red: a red border marks failing data on the graph, and the two must never be confused.
PATH_COLOUR = "#0598bc"


class GraphNode(BaseModel):
    id: str
    label: str
    kind: str
    colour: str
    on_path: bool


class GraphEdge(BaseModel):
    source: str
    target: str
    evidence_id: str
    on_path: bool


class Graph(BaseModel):
    nodes: list[GraphNode]
    edges: list[GraphEdge]


def graph(lineage: Lineage, path_from: list[str] | None = None) -> Graph:
    """`path_from`: nodes whose upstream closure is the path used for the answer (all edges when None)."""
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
    nodes = [GraphNode(id=n.id, label=f"{n.label}\nv{n.version}" if n.version else n.label, kind=n.kind,
                       colour=COLOURS.get(n.kind, COLOURS["node"]), on_path=n.id in on_path)
             for n in lineage.nodes]
    edges = [GraphEdge(source=e.upstream, target=e.downstream, evidence_id=e.evidence_id,
                       on_path=e.upstream in on_path and e.downstream in on_path) for e in lineage.edges]
    return Graph(nodes=nodes, edges=edges)
