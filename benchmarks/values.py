"""Metric value latency: p50/p95 per metric on the demo warehouse and on a 10x warehouse.

Two figures per metric and warehouse:
- `engine`: DuckDBEngine.compute alone (one version's SQL over one quarter, on its backing model version);
- `values`: core.answer.values.metric_values for the same quarter, end to end (the role's view, permission checks
  over the model and the lineage to every source, the split by version, the SQL, the inputs' freshness).

Each metric is computed for every quarter from 2024 to 2026-Q3 (11 quarters), each quarter `--repeat` times, as a
role that may see it; the first call per warehouse (opening the file) is left out of the figures and reported as
`open_ms`. Builds the warehouses into a temporary folder (the 10x one takes about ten times the 1x build).

    PYTHONPATH=. .venv/bin/python benchmarks/values.py [--repeat 5] [--scales 1 10]

Results: benchmarks/results/values.json and values.md.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from datetime import date, datetime, timezone
from pathlib import Path

import duckdb

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from core.answer.values import metric_values  # noqa: E402
from core.catalog.access import visible  # noqa: E402
from core.catalog.store import Store, write_catalog  # noqa: E402
from core.compute import warehouse  # noqa: E402
from core.compute.engine import CONNECT, DuckDBEngine  # noqa: E402
from core.ingest.load import load_catalog  # noqa: E402
from core.resolve.versions import backing_model, governing_versions, in_effect  # noqa: E402

AT = datetime(2026, 11, 29, 12, tzinfo=timezone.utc)
ROLE = {"metric.conversion_rate": "marketing", "metric.customer_acquisition_cost": "finance",
        "metric.contribution_margin": "finance"}
QUARTERS = [(date(y, m, 1), date(y + (m == 10), (m + 2) % 12 + 1, 1)) for y in (2024, 2025, 2026)
            for m in (1, 4, 7, 10)][:11]


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))]


def bench(store: Store, engine: DuckDBEngine, repeat: int) -> dict:
    out = {}
    entities = sorted({e.entity_id for e in load_catalog(HERE.parent / "data" / "demo").evidence
                       if e.metric and e.metric.sql})
    for entity in entities:
        view = visible(store, ROLE.get(entity, "analyst"))
        versions = governing_versions(view.entity_objects(entity), "metric")
        eng_ms, val_ms = [], []
        for start, end in QUARTERS:
            here = in_effect(versions, start)
            if len(here) != 1:  # repeat purchase rate: two versions overlap from 2025-06 (a reviewer decides)
                continue
            model, _ = backing_model(here[0], start, view)
            for _ in range(repeat):
                t = time.perf_counter()
                engine.compute(here[0], model, start, end)
                eng_ms.append((time.perf_counter() - t) * 1000)
                t = time.perf_counter()
                got = metric_values(view, entity, start, end, engine, AT)
                val_ms.append((time.perf_counter() - t) * 1000)
                assert got.status == "computed", (entity, start, got.message)
        out[entity] = {"n": len(eng_ms),
                       "engine_p50_ms": round(statistics.median(eng_ms), 1), "engine_p95_ms": round(pct(eng_ms, .95), 1),
                       "values_p50_ms": round(statistics.median(val_ms), 1), "values_p95_ms": round(pct(val_ms, .95), 1)}
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--scales", type=float, nargs="+", default=[1, 10])
    args = parser.parse_args()
    results = {"run_at": datetime.now(timezone.utc).isoformat(timespec="seconds"), "machine": platform.machine(),
               "cpus": os.cpu_count(), "repeat": args.repeat, "quarters": len(QUARTERS),
               # other work on the machine slows both figures: the 1-minute load average at start and end
               "load_start": round(os.getloadavg()[0], 1), "warehouses": {}}
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "demo.duckdb"
        write_catalog(load_catalog(HERE.parent / "data" / "demo"), db)
        store = Store(db)
        for scale in args.scales:
            t = time.perf_counter()
            path = warehouse.build(Path(tmp) / f"warehouse_{scale:g}x.duckdb", scale=scale)
            built = time.perf_counter() - t
            engine = DuckDBEngine(path)
            t = time.perf_counter()
            engine.run("SELECT 1 AS value", {})
            opened = (time.perf_counter() - t) * 1000
            con = duckdb.connect(str(path), **CONNECT)  # the engine's own settings: DuckDB requires equal ones
            orders, lines = (con.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
                             for t in ("raw_shop.orders", "raw_shop.order_lines"))
            con.close()
            results["warehouses"][f"{scale:g}x"] = {
                "build_s": round(built, 1), "size_mb": round(path.stat().st_size / 2**20, 1), "orders": orders,
                "order_lines": lines, "open_ms": round(opened, 1), "metrics": bench(store, engine, args.repeat)}
            print(f"{scale:g}x: built in {built:.1f} s, {orders:,} orders, {lines:,} order lines", flush=True)
    results["load_end"] = round(os.getloadavg()[0], 1)
    out = HERE / "results"
    (out / "values.json").write_text(json.dumps(results, indent=2) + "\n")
    lines = [f"# Metric value latency ({results['run_at']}, {results['cpus']} CPUs, {args.repeat} runs x "
             f"{len(QUARTERS)} quarters per metric; load average {results['load_start']} at start, "
             f"{results['load_end']} at end)", "",
             "`engine`: the version's SQL alone; `values`: end to end (permissions, lineage, split, SQL, freshness: about",
             "nine catalog reads per version and model, besides the SQL).", ""]
    for name, w in results["warehouses"].items():
        lines += [f"## {name} warehouse: {w['orders']:,} orders, {w['order_lines']:,} order lines, {w['size_mb']} MB, "
                  f"built in {w['build_s']} s", "",
                  "| metric | n | engine p50 ms | engine p95 ms | values p50 ms | values p95 ms |",
                  "|---|---:|---:|---:|---:|---:|"]
        lines += [f"| {m} | {r['n']} | {r['engine_p50_ms']} | {r['engine_p95_ms']} | {r['values_p50_ms']} | "
                  f"{r['values_p95_ms']} |" for m, r in w["metrics"].items()]
        lines.append("")
    (out / "values.md").write_text("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
