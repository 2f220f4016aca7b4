"""The lineage walk (store.walk, fed one indexed lookup per step) returns the rows the recursive query it
replaced returned: the same edges, carriers and shortest depths, on graphs with cycles, self-loops, diamonds
and edges carried by two objects, upstream and down, with and without a depth cap."""
from __future__ import annotations

import random

import duckdb
import pytest

from core.catalog.walk import walk

# The recursive query upstream_closure ran before: every path from the starts, never onto a node already on it.
RECURSIVE = """
WITH RECURSIVE up(upstream, downstream, evidence_id, depth, path) AS (
  SELECT upstream, downstream, evidence_id, 1, [{far}, {near}] FROM edges WHERE list_contains(?::VARCHAR[], {far})
  UNION ALL
  SELECT a.upstream, a.downstream, a.evidence_id, up.depth + 1, list_append(up.path, a.{near})
  FROM edges a JOIN up ON a.{far} = up.{near}
  WHERE NOT list_contains(up.path, a.{near}) AND up.depth < ?)
SELECT upstream, downstream, list(DISTINCT evidence_id ORDER BY evidence_id), min(depth) FROM up
GROUP BY upstream, downstream ORDER BY 4, 1, 2
"""


def _graph(rng: random.Random) -> list[tuple[str, str, str]]:
    nodes = [f"n{i}" for i in range(rng.randint(2, 9))]
    edges = set()
    for _ in range(rng.randint(1, 18)):
        up, down = rng.choice(nodes), rng.choice(nodes)  # self-loops and cycles included
        edges.add((up, down, f"lineage.{rng.randint(1, 4)}"))  # an edge may be carried by several objects
    return sorted(edges)


@pytest.mark.parametrize("seed", range(60))
def test_walk_matches_the_recursive_query(seed):
    rng = random.Random(seed)
    edges = _graph(rng)
    con = duckdb.connect()
    con.execute("CREATE TABLE edges (upstream VARCHAR, downstream VARCHAR, evidence_id VARCHAR)")
    con.executemany("INSERT INTO edges VALUES (?, ?, ?)", edges)
    nodes = sorted({n for e in edges for n in e[:2]})
    for upstream in (True, False):
        near, far = ("upstream", "downstream") if upstream else ("downstream", "upstream")
        for depth in (1, 2, 25):
            starts = rng.sample(nodes, rng.randint(1, min(2, len(nodes))))
            expected = [tuple(r) for r in con.execute(RECURSIVE.format(near=near, far=far), [starts, depth]).fetchall()]
            assert walk(edges, starts, depth, upstream=upstream) == expected, (edges, starts, depth, upstream)
