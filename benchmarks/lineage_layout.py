"""How long laying out a lineage graph takes (core/resolve/layout.py), on layered random DAGs shaped like dbt
lineage (sources, staging, joins, facts, metrics), and the lineage of every model of the generated 1,000-model
project as the Lineage page asks for it (5 up, 2 down).

    python benchmarks/lineage_layout.py            # writes benchmarks/results/lineage_layout.md

Run from the repository root. Each figure is the median of 5 runs.
"""
from __future__ import annotations

import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from core.resolve.layout import crossings, layered  # noqa: E402


def dag(n: int, seed: int) -> tuple[dict, list]:
    rnd = random.Random(seed)
    tiers = 6
    nodes = [f"n{i}" for i in range(n)]
    tier = {v: min(tiers - 1, i * tiers // n) for i, v in enumerate(nodes)}
    edges = []
    for v in nodes:
        earlier = [u for u in nodes if tier[u] < tier[v]]
        for u in rnd.sample(earlier, min(len(earlier), rnd.randint(1, 3))) if earlier else []:
            edges.append((u, v))
    sizes = {v: (rnd.uniform(120, 300), rnd.choice([42.0, 64.0, 86.0])) for v in nodes}
    return sizes, edges


def timed(sizes, edges) -> tuple[float, int]:
    runs = []
    for _ in range(5):
        t = time.perf_counter()
        lay = layered(sizes, edges)
        runs.append(time.perf_counter() - t)
    return statistics.median(runs) * 1000, len(crossings(lay))


def main() -> None:
    lines = ["# Lineage layout (core/resolve/layout.py)", "", "Produced by `python benchmarks/lineage_layout.py`.", "",
             "| graph | nodes | edges | layout ms (median of 5) | edges through a box or boxes overlapping |",
             "|---|---|---|---|---|"]
    for n in (15, 50, 150, 400):
        sizes, edges = dag(n, n)
        ms, bad = timed(sizes, edges)
        lines.append(f"| random layered DAG | {n} | {len(edges)} | {ms:.1f} | {bad} |")
    acme = ROOT / "tests" / "fixtures" / "generated" / "acme-analytics"
    if acme.exists():
        import tempfile
        from datetime import date

        from core.catalog.access import visible
        from core.catalog.store import Store, write_catalog
        from core.ingest.ingest import read_inputs
        from core.resolve.graph import graph
        from core.resolve.lineage import explore
        from core.resolve.versions import governing_versions, in_effect
        from ui.graph import box_size  # the sizes the page draws boxes at
        db = Path(tempfile.mkdtemp()) / "acme.duckdb"
        catalog, _ = read_inputs(db, dbt=acme, overlay=ROOT / "data" / "dbt" / "acme-analytics.overlay.yml")
        write_catalog(catalog, db)
        view, day = visible(Store(db), "analyst"), date(2026, 11, 29)
        times, worst, bad = [], (0, ""), 0
        for e, ent in view.entities.items():
            if ent.role not in ("model", "metric"):
                continue
            starts = [v.evidence_id for v in in_effect(governing_versions(view.entity_objects(e), ent.role), day)] or [e]
            g = graph(explore(view, starts, day, 5, 2), starts)
            if not g.edges:
                continue
            sizes = {n.id: box_size(n.label) for n in g.nodes}
            pairs = [(x.source, x.target) for x in g.edges]
            t = time.perf_counter()
            lay = layered(sizes, pairs)
            times.append((time.perf_counter() - t) * 1000)
            worst = max(worst, (len(g.nodes), e))
            bad += len(crossings(lay))
        times.sort()
        lines.append(f"| every model and metric of the 1,000-model dbt project (5 up, 2 down) | up to {worst[0]} "
                     f"({worst[1]}) | {len(times)} graphs | p50 {times[len(times) // 2]:.1f}, "
                     f"p95 {times[int(len(times) * 0.95)]:.1f}, max {times[-1]:.1f} | {bad} |")
    out = ROOT / "benchmarks" / "results" / "lineage_layout.md"
    out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
