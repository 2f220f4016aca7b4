"""Bounded work per question (issue 23, item 4): answer time by question length, catalog only (no index).

    python benchmarks/question_length.py [--sizes 1000,10000,100000] [--uncapped] [--timeout 120]

For each size and shape, `core.answer.ask` as every surface calls it (over core.settings.budget.MAX_QUESTION_CHARS it is
refused before anything reads it). With --uncapped, the reading itself is timed past the cap (the cap lifted
and the time budget off), which shows the reading is linear in the question's length. Each run is a fresh
subprocess with a timeout, so a quadratic reading shows as "> timeout". Run from the repository root.
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHAPES = {
    "words": "What does net revenue mean for Q3 2025 as of March 31? ",
    "one long word": "a",
    "identifier run": "a_",
    "quoted dates": "'Q3 2025' ",
    "document claims": "wiki says 2024, ",
}
PROBE = """
import sys, time
from datetime import datetime, timezone
from core.answer import ask as A
from core.catalog.store import Store
from core.catalog.access import visible
db, n, shape, uncapped = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4] == "1"
text = (shape * (n // len(shape) + 1))[:n]
try:
    from core.settings import budget
    if uncapped:
        budget.MAX_QUESTION_CHARS, budget.ANSWER_BUDGET_S = 10**9, 10**9
except ImportError:
    budget = None
store = Store(db)
visible(store, "analyst")  # open the catalog first: the figure is the question's own work
q = A.Question(role="analyst", text=text, at=datetime(2026, 11, 29, 12, tzinfo=timezone.utc))
t, cpu = time.perf_counter(), time.thread_time()
try:
    out = A.ask(store, q).behavior.value
except ValueError as exc:
    out = "refused: " + str(exc)[:70]
print(f"{time.perf_counter() - t:7.2f}s wall {time.thread_time() - cpu:7.2f}s cpu  {out}")
"""


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="1000,10000,100000")
    ap.add_argument("--uncapped", action="store_true")
    ap.add_argument("--timeout", type=float, default=120)
    args = ap.parse_args()
    sys.path.insert(0, str(ROOT))
    from core.catalog.store import write_catalog
    from core.ingest.load import load_catalog
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "demo.duckdb"
        write_catalog(load_catalog(ROOT / "data" / "demo"), db)
        for n in (int(x) for x in args.sizes.split(",")):
            for name, shape in SHAPES.items():
                try:
                    r = subprocess.run([sys.executable, "-c", PROBE, str(db), str(n), shape,
                                        "1" if args.uncapped else "0"], cwd=ROOT, capture_output=True, text=True,
                                       timeout=args.timeout)
                    line = r.stdout.strip() or r.stderr.strip().splitlines()[-1]
                except subprocess.TimeoutExpired:
                    line = f"> {args.timeout:g}s (killed)"
                print(f"{n:>9,} chars  {name:16s} {line}", flush=True)


if __name__ == "__main__":
    main()
