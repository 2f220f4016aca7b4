"""The lineage layout (core/resolve/layout.py): no routed edge passes through a box, no two boxes overlap, on
the shapes that broke the old drawing and on random DAGs."""
from hypothesis import given, settings
from hypothesis import strategies as st

from core.resolve.layout import crossings, layered, segment_hits_box

BOX = (180.0, 58.0)


def _sizes(ids, wide=()):
    return {n: ((320.0, 58.0) if n in wide else BOX) for n in ids}


def test_an_edge_that_skips_a_layer_goes_around_the_boxes_between():
    # The demo's shape: fct_order_costs feeds contribution margin directly, beside fct_orders -> net revenue.
    ids = ["raw_orders", "fct_orders", "fct_order_costs", "net_revenue", "contribution_margin"]
    edges = [("raw_orders", "fct_orders"), ("fct_orders", "net_revenue"), ("net_revenue", "contribution_margin"),
             ("raw_orders", "fct_order_costs"), ("fct_order_costs", "contribution_margin")]
    lay = layered(_sizes(ids), edges)
    assert crossings(lay) == []
    x = {b.id: b.x for b in lay.boxes}
    assert x["raw_orders"] < x["fct_orders"] < x["net_revenue"] < x["contribution_margin"]
    # The skipping edge bends: it is drawn in more than one straight piece, and ends in an arrow.
    pieces = [s for s in lay.segments if 4 in s.edges]
    assert len(pieces) >= 4 and sum(s.arrow for s in pieces) == 1


def test_a_wide_fan_in_stacks_boxes_without_overlap():
    srcs = [f"stg_orders_{i:02d}_with_a_long_name" for i in range(14)]
    lay = layered(_sizes(srcs + ["fct"], wide=srcs), [(s, "fct") for s in srcs])
    assert crossings(lay) == []
    assert len({round(b.y) for b in lay.boxes if b.id in srcs}) == 14


def test_a_cycle_terminates_and_boxes_still_do_not_overlap():
    lay = layered(_sizes(["a", "b", "c"]), [("a", "b"), ("b", "c"), ("c", "a")])
    assert not [c for c in crossings(lay) if "->" not in c[0]]


def test_segment_box_geometry():
    box = (0, 0, 10, 10)
    assert segment_hits_box((-5, 5), (15, 5), box)
    assert not segment_hits_box((-5, 11), (15, 11), box)
    assert not segment_hits_box((-5, 0), (15, 0), box)  # along the border: touching is not passing through
    assert segment_hits_box((-1, -1), (11, 11), box)
    assert not segment_hits_box((11, 0), (20, 20), box)


@st.composite
def dags(draw):
    n = draw(st.integers(2, 18))
    ids = [f"n{i}" for i in range(n)]
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
    chosen = draw(st.lists(st.sampled_from(pairs), max_size=min(30, len(pairs)), unique=True))
    widths = draw(st.lists(st.floats(40, 400), min_size=n, max_size=n))
    heights = draw(st.lists(st.sampled_from([36.0, 58.0, 80.0]), min_size=n, max_size=n))
    return {k: (w, h) for k, w, h in zip(ids, widths, heights)}, [(ids[i], ids[j]) for i, j in chosen]


@settings(max_examples=150, deadline=None)
@given(dags())
def test_random_dags_never_cross_or_overlap(dag):
    sizes, edges = dag
    lay = layered(sizes, edges)
    assert crossings(lay) == []
    # Every edge is drawn: its pieces run from its upstream box to its downstream box.
    for i, (s, t) in enumerate(edges):
        step = {p.start: p for p in lay.segments if i in p.edges}
        at, walked = s, 0
        while at != t and at in step and walked < 99:
            at, walked = step[at].end, walked + 1
        assert at == t and [p for p in step.values() if p.end == t][0].arrow
