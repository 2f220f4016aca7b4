"""Build the Lumen Outfitters demo warehouse (DuckDB) that metric values are computed on.

    python scripts/build_warehouse.py [PATH] [--seed N] [--scale X]

Deterministic: the same seed and scale give the same data. The logic is core/compute/warehouse.py (so tests
build the same warehouse); scripts/run.sh calls this on first run.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core.compute.warehouse import SEED, build  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", nargs="?", default="data/build/warehouse.duckdb")
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--scale", type=float, default=1.0, help="row-count multiplier (10 for the benchmark)")
    args = parser.parse_args()
    t = time.perf_counter()
    path = build(args.path, seed=args.seed, scale=args.scale)
    print(f"built {path} (seed {args.seed}, scale {args.scale:g}) in {time.perf_counter() - t:.1f} s")


if __name__ == "__main__":
    main()
