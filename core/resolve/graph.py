"""Lineage as graph data for display: a node's fill says its freshness when it has one (a raw source), else its
kind; the answer's path highlighted. Pure."""
from __future__ import annotations

import re

from pydantic import BaseModel

from core.catalog.envelope import Lineage

COLOURS = {"metric": "#1f6feb", "model": "#8250df", "source": "#0b6e75", "node": "#57606a"}
# One colour per freshness verdict, used for the whole box (never a green box with a red border): a source
# with no freshness recorded keeps its kind's teal. Dark enough for white text on light and dark themes.
FRESH_FILL = {"pass": "#1a7f37", "warn": "#9a6700", "error": "#cf222e", "unknown": "#6e7781"}
FRESH_WORD = {"pass": "fresh", "warn": "stale", "error": "failing", "unknown": "no load recorded"}
# Cyan, not red: a red border marks failing data on the graph, and the two must never be confused.
PATH_COLOUR = "#0598bc"


LINE_CHARS = 24  # a label line longer than this is wrapped: a 48-character dbt relation would zoom the graph out


def wrap_label(text: str, width: int = LINE_CHARS) -> str:
    """Long identifiers on several lines, broken after a '.', a '__' or a space first, after a '_' only inside
    a piece still too long, never inside a word (acme.main. / int_marketing__ / campaigns_joined_clicks):
    nothing is cut, it is only folded."""
    lines = []
    for line in text.split("\n"):
        pieces = []
        for piece in (p for p in re.split(r"(?<=\.)|(?<=__)|(?<= )", line) if p):
            pieces += [q for q in re.split(r"(?<=[^_]_)(?=[^_])", piece) if q] if len(piece) > width else [piece]
        current = ""
        for piece in pieces:
            if current and len(current) + len(piece.rstrip()) > width:
                lines.append(current.rstrip())
                current = ""
            current += piece
        lines.append(current.rstrip())
    return "\n".join(lines)


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
        label = wrap_label(n.label) + (f"\nv{n.version}" if n.version else "") + (f"\n{FRESH_WORD[status]}" if status else "")
        nodes.append(GraphNode(id=n.id, label=label, kind=n.kind, on_path=n.id in on_path, status=status,
                               colour=FRESH_FILL[status] if status else COLOURS.get(n.kind, COLOURS["node"])))
    edges = [GraphEdge(source=e.upstream, target=e.downstream, evidence_id=e.evidence_id,
                       on_path=e.upstream in on_path and e.downstream in on_path) for e in lineage.edges]
    return Graph(nodes=nodes, edges=edges)
