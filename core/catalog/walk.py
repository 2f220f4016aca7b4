"""Walking lineage edges from a set of nodes, up or down, as the store reads them one indexed lookup per step:
each path is extended one edge at a time and never onto a node already on it, so cycles end."""
from __future__ import annotations


def walk(edges: list[tuple[str, str, str]], starts: list[str], max_depth: int, upstream: bool = True) -> list[tuple]:
    """Every (upstream, downstream, [evidence ids], depth) reached from `starts` along (upstream, downstream,
    evidence id) edges, walking upstream or down: each path extended one edge at a time, never onto a node
    already on it (so cycles end), up to max_depth edges; an edge's depth is the shortest path's."""
    by_far: dict[str, list[tuple[str, str, str]]] = {}
    for edge in dict.fromkeys(edges):
        by_far.setdefault(edge[1] if upstream else edge[0], []).append(edge)
    near = 0 if upstream else 1
    found: dict[tuple[str, str], tuple[set[str], int]] = {}
    paths = [((s,), s) for s in dict.fromkeys(starts)]
    for depth in range(1, max_depth + 1):
        longer = []
        for path, end in paths:
            for edge in by_far.get(end, ()):
                nxt = edge[near]
                if depth > 1 and nxt in path:
                    continue
                ids, first = found.get(edge[:2], (set(), depth))
                ids.add(edge[2])
                found[edge[:2]] = (ids, min(first, depth))
                longer.append(((*path, nxt), nxt))
        paths = list(dict.fromkeys(longer))  # two edges of one pair (two objects carry it) lead on alike
        if not paths:
            break
    return sorted(((u, d, sorted(ids), depth) for (u, d), (ids, depth) in found.items()),
                  key=lambda row: (row[3], row[0], row[1]))
