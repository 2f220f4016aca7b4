"""Build the jaffle-shop MetricFlow fixture: a dbt project on DuckDB whose metric values MetricFlow computes.

    .venv/bin/python scripts/jaffle_mf.py OUT_DIR [--orders N] [--seed S]

Copies tests/fixtures/metricflow/jaffle-shop to OUT_DIR/jaffle-shop, writes its six seed CSVs (jaffle-shop's
raw tables and headers: raw_customers, raw_orders, raw_items, raw_products, raw_stores, raw_supplies), a
profiles.yml pointing at OUT_DIR/jaffle-shop/jaffle.duckdb, then runs `dbt seed`, `dbt run` (which also writes
target/semantic_manifest.json) from the dbt toolchain venv. The data is generated here, seeded, so every build is
identical: jaffle-shop's own seeds are not in this repository (upstream keeps the large ones in Git LFS).
Used by tests/values/ and benchmarks/metricflow_latency.py.
"""
from __future__ import annotations

import argparse
import csv
import random
import shutil
import sys
from datetime import date, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from core.ingest.metricflow import DbtTools, run_dbt  # noqa: E402

FIXTURE = ROOT / "tests" / "fixtures" / "metricflow" / "jaffle-shop"
FIRST_DAY, LAST_DAY = date(2024, 1, 1), date(2025, 12, 31)
# jaffle-shop's menu: jaffles are food, the rest beverages (stg_products: is_food_item / is_drink_item).
PRODUCTS = [("JAF-001", "nutellaphone who dis?", "jaffle", 1100), ("JAF-002", "doctor stew", "jaffle", 1100),
            ("JAF-003", "the krautback", "jaffle", 1200), ("JAF-004", "flame impala", "jaffle", 1400),
            ("JAF-005", "mel-bun", "jaffle", 1200), ("BEV-001", "tangaroo", "beverage", 600),
            ("BEV-002", "chai and mighty", "beverage", 500), ("BEV-003", "vanilla ice", "beverage", 600),
            ("BEV-004", "for richer or pourover", "beverage", 700), ("BEV-005", "adele-ade", "beverage", 400)]
STORES = [(1, "Philadelphia", "2023-03-01T00:00:00", 0.06), (2, "Brooklyn", "2023-06-15T00:00:00", 0.04),
          (3, "Chicago", "2024-05-01T00:00:00", 0.0625)]


def _write(path: Path, header: list[str], rows: list[tuple]) -> None:
    with open(path, "w", newline="", encoding="utf-8") as fh:
        out = csv.writer(fh)
        out.writerow(header)
        out.writerows(rows)


def write_seeds(folder: Path, orders: int = 3000, seed: int = 21) -> None:
    """Deterministic jaffle-shop raw tables (amounts in cents, as upstream)."""
    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    customers = max(20, orders // 8)
    _write(folder / "raw_customers.csv", ["id", "name"], [(f"c{i:05d}", f"Customer {i}") for i in range(customers)])
    _write(folder / "raw_products.csv", ["sku", "name", "type", "price", "description"],
           [(s, n, t, p, f"{n} ({t})") for s, n, t, p in PRODUCTS])
    _write(folder / "raw_stores.csv", ["id", "name", "opened_at", "tax_rate"], STORES)
    supplies = []
    for sku, _, kind, price in PRODUCTS:
        for k in range(2):
            supplies.append((f"SUP-{len(supplies):03d}", f"{sku} supply {k}", rng.randint(20, price // 4),
                             kind == "jaffle" and k == 0, sku))
    _write(folder / "raw_supplies.csv", ["id", "name", "cost", "perishable", "sku"], supplies)
    price = {s: p for s, _, _, p in PRODUCTS}
    days = (LAST_DAY - FIRST_DAY).days + 1
    order_rows, item_rows = [], []
    for i in range(orders):
        day = FIRST_DAY + timedelta(days=rng.randrange(days))
        store_id, _, opened, tax_rate = rng.choice([s for s in STORES if s[2][:10] <= day.isoformat()])
        skus = [rng.choice(PRODUCTS)[0] for _ in range(rng.choice((1, 1, 2, 2, 3, 4)))]
        subtotal = sum(price[s] for s in skus)
        tax = round(subtotal * tax_rate)
        at = datetime.combine(day, datetime.min.time()) + timedelta(minutes=rng.randrange(7 * 60, 22 * 60))
        order_id = f"o{i:06d}"
        order_rows.append((order_id, f"c{rng.randrange(customers):05d}", at.isoformat(), store_id, subtotal, tax,
                           subtotal + tax))
        item_rows += [(f"i{len(item_rows) + k:07d}", order_id, s) for k, s in enumerate(skus)]
    _write(folder / "raw_orders.csv", ["id", "customer", "ordered_at", "store_id", "subtotal", "tax_paid",
                                       "order_total"], order_rows)
    _write(folder / "raw_items.csv", ["id", "order_id", "sku"], item_rows)


def copy_project(out: Path, source: Path = FIXTURE) -> Path:
    """The fixture project in `out/<name>`, with a profiles.yml whose DuckDB file sits beside it."""
    project = out / source.name
    shutil.copytree(source, project, ignore=shutil.ignore_patterns("target", "logs", "seeds", "*.duckdb", "*.wal"))
    (project / "profiles.yml").write_text(
        "asof_jaffle_mf:\n  target: dev\n  outputs:\n    dev:\n      type: duckdb\n"
        f"      path: '{(project / 'jaffle.duckdb').as_posix()}'\n      schema: main\n      threads: 1\n",
        encoding="utf-8")
    return project


def build(out: Path, orders: int = 3000, seed: int = 21, tools: DbtTools | None = None) -> Path:
    """Copy, seed and build the project under `out`; returns the project folder."""
    project = copy_project(out)
    write_seeds(project / "seeds", orders, seed)
    run_dbt(project, ["seed", "--quiet"], tools)
    run_dbt(project, ["run", "--quiet"], tools)
    return project


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--orders", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=21)
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    print(build(args.out, args.orders, args.seed))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
