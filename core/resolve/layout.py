"""Where each lineage box and each edge goes on the page: a layered (Sugiyama-style) layout, left to right.

A renderer that draws edges as straight lines between box centres (vis-network) cuts through boxes whenever an
edge skips a layer or fans in from a tall column. So every edge is routed here as a polyline that can never
cross a box: it leaves its source horizontally to the right of the source's column, crosses the empty gap
between two columns diagonally, runs horizontally through any column it skips in a lane reserved for it (a
"dummy" slot in that column's stack), and enters its target horizontally from the left. Boxes in one column
are stacked with a gap and never overlap. Pure: the caller gives each node's drawn size.

Steps: layers by longest path from the roots (cycle-safe), a dummy per skipped layer, the order inside each
layer by barycentre sweeps keeping the order with the fewest crossings, positions by weighted isotonic
regression (each node as close as possible to the mean of its neighbours, order and gaps kept).
"""
from __future__ import annotations

from pydantic import BaseModel

COLUMN_GAP = 90.0  # px between two columns: the diagonal part of every edge lives here, and only here
PORT = 14.0  # px outside a column where an edge turns from horizontal to diagonal
BOX_GAP = 26.0  # px between two boxes stacked in one column
LANE = 12.0  # px a skipped column reserves for an edge passing through it
SWEEPS = 12


class Box(BaseModel):
    id: str
    x: float  # centre
    y: float
    width: float
    height: float


class Point(BaseModel):
    id: str
    x: float
    y: float


class Segment(BaseModel):
    """One straight piece of one or more routed edges (pieces shared by edges are drawn once)."""
    start: str  # a Box or Point id
    end: str
    arrow: bool  # the piece that enters a box
    edges: list[int]  # indexes into the edges given to `layered`


class Layout(BaseModel):
    boxes: list[Box]
    points: list[Point]  # the bends of routed edges (invisible)
    segments: list[Segment]
    width: float
    height: float


def layers(ids: list[str], edges: list[tuple[str, str]]) -> dict[str, int]:
    """Longest distance from a node with no upstream; bounded, so a cycle cannot loop forever."""
    level = dict.fromkeys(ids, 0)
    for _ in range(len(ids)):
        changed = False
        for s, t in edges:
            if s in level and t in level and s != t and level[t] < level[s] + 1:
                level[t] = level[s] + 1
                changed = True
        if not changed:
            break
    return level


def _crossings(order: list[list[str]], pos: dict[str, int], succ: dict[str, list[str]]) -> int:
    total = 0
    for layer in order[:-1]:
        pairs = sorted((pos[u], pos[v]) for u in layer for v in succ[u])
        ends = [v for _, v in pairs]
        total += _inversions(ends)
    return total


def _inversions(xs: list[int]) -> int:
    if len(xs) < 2:
        return 0
    mid = len(xs) // 2
    left, right = xs[:mid], xs[mid:]
    count = _inversions(left) + _inversions(right)
    left.sort()
    right.sort()
    j = 0
    for x in left:  # pairs (x in left, y in right) with x > y
        while j < len(right) and right[j] < x:
            j += 1
        count += j
    return count


def _order(level_nodes: list[list[str]], pred: dict[str, list[str]], succ: dict[str, list[str]]) -> list[list[str]]:
    order = [list(layer) for layer in level_nodes]

    def positions() -> dict[str, int]:
        return {n: i for layer in order for i, n in enumerate(layer)}

    def sweep(k: int, neighbours: dict[str, list[str]]) -> None:
        pos = positions()
        def key(n: str) -> float:
            near = [pos[m] for m in neighbours[n]]
            return sum(near) / len(near) if near else pos[n]
        order[k].sort(key=key)  # stable: ties keep their order

    for k in range(1, len(order)):  # a first pass puts each layer under its parents
        sweep(k, pred)
    best, best_cross = [list(x) for x in order], _crossings(order, positions(), succ)
    for _ in range(SWEEPS):
        if best_cross == 0:
            break
        for k in range(1, len(order)):
            sweep(k, pred)
        for k in range(len(order) - 2, -1, -1):
            sweep(k, succ)
        cross = _crossings(order, positions(), succ)
        if cross < best_cross:
            best, best_cross = [list(x) for x in order], cross
    return best


def _isotonic(targets: list[float], weights: list[float]) -> list[float]:
    """Weighted least squares fit of a non-decreasing sequence (pool adjacent violators)."""
    blocks: list[list[float]] = []  # [mean, weight, count]
    for t, w in zip(targets, weights):
        blocks.append([t, w, 1])
        while len(blocks) > 1 and blocks[-2][0] > blocks[-1][0]:
            m2, w2, c2 = blocks.pop()
            m1, w1, c1 = blocks.pop()
            blocks.append([(m1 * w1 + m2 * w2) / (w1 + w2), w1 + w2, c1 + c2])
    out: list[float] = []
    for m, _, c in blocks:
        out.extend([m] * int(c))
    return out


def _place(layer: list[str], want: dict[str, float], size: dict[str, float], weight: dict[str, float]) -> dict[str, float]:
    """Each node as near its wanted y as the order and the gaps allow."""
    offsets, acc = [], 0.0
    for i, n in enumerate(layer):
        if i:
            prev = layer[i - 1]
            gap = BOX_GAP if size[prev] > LANE and size[n] > LANE else BOX_GAP / 2
            acc += (size[prev] + size[n]) / 2 + gap
        offsets.append(acc)
    z = _isotonic([want[n] - o for n, o in zip(layer, offsets)], [weight[n] for n in layer])
    return {n: zi + o for n, zi, o in zip(layer, z, offsets)}


def layered(sizes: dict[str, tuple[float, float]], edges: list[tuple[str, str]]) -> Layout:
    """`sizes`: each node's drawn (width, height), in input order; `edges`: (upstream, downstream) pairs."""
    ids = list(sizes)
    level = layers(ids, edges)
    forward = [(i, s, t) for i, (s, t) in enumerate(edges) if s in level and t in level and level[t] > level[s]]
    # Chains through the layers an edge skips: one lane (dummy) per skipped layer.
    chains: dict[int, list[str]] = {}
    width = {n: sizes[n][0] for n in ids}
    height = {n: sizes[n][1] for n in ids}
    weight = dict.fromkeys(ids, 1.0)
    for i, s, t in forward:
        chain = [s]
        for k in range(level[s] + 1, level[t]):
            d = f"\x00lane{i}:{k}"
            level[d], width[d], height[d], weight[d] = k, 0.0, LANE, 4.0  # long edges pulled straight
            chain.append(d)
        chains[i] = chain + [t]
    pred: dict[str, list[str]] = {n: [] for n in level}
    succ: dict[str, list[str]] = {n: [] for n in level}
    for chain in chains.values():
        for a, b in zip(chain, chain[1:]):
            if b not in succ[a]:
                succ[a].append(b)
                pred[b].append(a)
    depth = max(level.values(), default=0) + 1
    level_nodes: list[list[str]] = [[] for _ in range(depth)]
    for n in level:  # input order first, then lanes in edge order
        level_nodes[level[n]].append(n)
    order = _order(level_nodes, pred, succ)

    y: dict[str, float] = {}
    for layer in order:
        y.update(_place(layer, dict.fromkeys(layer, 0.0), height, weight))
    for it in range(8):  # alternate pulls towards parents and children, then both
        ks = range(1, depth) if it % 2 == 0 else range(depth - 2, -1, -1)
        for k in ks:
            near = pred if it % 2 == 0 else succ
            want = {}
            for n in order[k]:
                ns = near[n] if it < 6 else pred[n] + succ[n]
                want[n] = sum(y[m] for m in ns) / len(ns) if ns else y[n]
            y.update(_place(order[k], want, height, weight))
    top = min((y[n] - height[n] / 2 for n in y), default=0.0)
    y = {n: v - top for n, v in y.items()}

    col_w = [max((width[n] for n in layer if n in sizes), default=LANE) for layer in order]
    col_x, x = [], 0.0
    for k, w in enumerate(col_w):
        x += (col_w[k - 1] / 2 + COLUMN_GAP + w / 2) if k else w / 2
        col_x.append(x)

    boxes = [Box(id=n, x=col_x[level[n]], y=y[n], width=width[n], height=height[n]) for n in ids]
    points: dict[str, Point] = {}

    def point(pid: str, px: float, py: float) -> str:
        points.setdefault(pid, Point(id=pid, x=px, y=py))
        return pid

    def right(n: str) -> float:
        return col_x[level[n]] + col_w[level[n]] / 2 + PORT

    def left(n: str) -> float:
        return col_x[level[n]] - col_w[level[n]] / 2 - PORT

    segments: dict[tuple[str, str], Segment] = {}

    def seg(a: str, b: str, arrow: bool, i: int) -> None:
        s = segments.setdefault((a, b), Segment(start=a, end=b, arrow=arrow, edges=[]))
        if i not in s.edges:
            s.edges.append(i)

    for i, chain in chains.items():
        s, t = chain[0], chain[-1]
        route = [s, point(f"\x00out:{s}", right(s), y[s])]
        for d in chain[1:-1]:
            route += [point(f"{d}:l", left(d), y[d]), point(f"{d}:r", right(d), y[d])]
        route += [point(f"\x00in:{t}", left(t), y[t]), t]
        for a, b in zip(route, route[1:]):
            seg(a, b, b == t, i)
    for i, (s, t) in enumerate(edges):  # a cycle's back edge or a self-loop: drawn straight, nothing to route
        if i not in chains and s in sizes and t in sizes:
            seg(s, t, True, i)
    total_w = (col_x[-1] + col_w[-1] / 2) if col_x else 0.0
    total_h = max((b.y + b.height / 2 for b in boxes), default=0.0)
    return Layout(boxes=boxes, points=list(points.values()), segments=list(segments.values()),
                  width=total_w, height=total_h)


def crossings(lay: Layout) -> list[tuple[str, str]]:
    """(segment, box) pairs where a drawn segment passes through a box it does not start or end in, and
    (box, box) pairs that overlap: both empty for every layout `layered` makes (the tests check it)."""
    where = {b.id: (b.x, b.y) for b in lay.boxes} | {p.id: (p.x, p.y) for p in lay.points}
    bad = []
    for s in lay.segments:
        for b in lay.boxes:
            if b.id in (s.start, s.end):
                continue
            if segment_hits_box(where[s.start], where[s.end], (b.x - b.width / 2, b.y - b.height / 2,
                                                               b.x + b.width / 2, b.y + b.height / 2)):
                bad.append((f"{s.start}->{s.end}", b.id))
    for i, a in enumerate(lay.boxes):
        for b in lay.boxes[i + 1:]:
            if abs(a.x - b.x) < (a.width + b.width) / 2 and abs(a.y - b.y) < (a.height + b.height) / 2:
                bad.append((a.id, b.id))
    return bad


def segment_hits_box(p: tuple[float, float], q: tuple[float, float], box: tuple[float, float, float, float]) -> bool:
    """Does the segment p-q pass through the open rectangle (x0, y0, x1, y1)? (Liang-Barsky clipping.)"""
    x0, y0, x1, y1 = box
    t0, t1 = 0.0, 1.0
    dx, dy = q[0] - p[0], q[1] - p[1]
    for edge_p, edge_q in ((-dx, p[0] - x0), (dx, x1 - p[0]), (-dy, p[1] - y0), (dy, y1 - p[1])):
        if edge_p == 0:
            if edge_q <= 0:
                return False
            continue
        t = edge_q / edge_p
        if edge_p < 0:
            t0 = max(t0, t)
        else:
            t1 = min(t1, t)
        if t0 >= t1:
            return False
    return t1 - t0 > 1e-9
