"""Ask latency of two versions of AsOf on one kept benchmark catalog, run one after the other, several rounds.

    .venv/bin/python benchmarks/bench.py --sizes 100000 --keep /var/tmp/k           # ingest the catalog once
    git worktree add /tmp/asof-old <commit>                                          # the version to compare with
    .venv/bin/python benchmarks/ask_ab.py /var/tmp/k/bench-100000 /tmp/asof-old .    # old, new, old, new, ...

This machine's speed moves by half within minutes, so two figures taken minutes apart compare the machine as much
as the code; alternating the two versions in rounds shows both. Each run is its own process with that version's
`core` first on the path: it opens the catalog and its index, runs the version's warm-up (core/answer/warm.py) if it has one, asks 25 warm-up questions (one role view per role
built, the model loaded), then times `ask` over the benchmark's questions (benchmarks/bench.py `questions`).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def one(tree: str, kept: str, n: int) -> dict:
    """In this process: `tree`'s core, timed on the kept catalog."""
    sys.path.append(str(HERE))
    from bench import pct, questions, synth_catalog  # the offline environment; puts this checkout on the path

    sys.path.insert(0, str(Path(tree).resolve()))  # ahead of it: `tree`'s core is the one timed

    import core
    from core.answer.ask import Question, ask
    from core.catalog.store import Store
    if Path(core.__file__).resolve().parents[1] != Path(tree).resolve():
        raise SystemExit(f"timed {core.__file__}, not the core of {tree}")
    from core.retrieve.embed import Embedder
    from core.retrieve.search import Searcher
    objects = int(Path(kept).name.rsplit("-", 1)[-1])
    raw = synth_catalog(objects)
    store = Store(Path(kept) / "bench.duckdb")
    searcher = Searcher(store, Embedder())
    try:  # the warm-up the app and the MCP server run, in versions that have one
        from core.answer.warm import warm
    except ImportError:
        pass
    else:
        warm(store, searcher)
    for item in questions(raw, 25, seed=99):
        ask(store, Question(role=item["role"], text=item["question"]), searcher=searcher)
    ms = []
    cpu0 = time.process_time()
    for item in questions(raw, n):
        t0 = time.perf_counter()
        ask(store, Question(role=item["role"], text=item["question"]), searcher=searcher)
        ms.append(1000 * (time.perf_counter() - t0))
    # CPU of every thread of the process per answer: what a replica's cores pay, less moved by other load than
    # the wall clock (an answer's searches run on two threads at once).
    cpu = 1000 * (time.process_time() - cpu0) / n
    return {"p50_ms": round(pct(ms, 50), 1), "p95_ms": round(pct(ms, 95), 1), "cpu_ms": round(cpu, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("kept", help="a folder benchmarks/bench.py --keep left (bench-N: bench.duckdb, bench.lance)")
    parser.add_argument("trees", nargs=2, help="two source trees of AsOf (a worktree of each version)")
    parser.add_argument("--questions", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--one", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(one(args.one, args.kept, args.questions)))
        return
    for r in range(1, args.rounds + 1):
        for tree in args.trees:
            out = subprocess.run([sys.executable, __file__, args.kept, *args.trees, "--questions", str(args.questions),
                                  "--one", tree], capture_output=True, text=True, check=True)
            result = json.loads(out.stdout.strip().splitlines()[-1])
            load = os.getloadavg()[0]
            print(f"round {r} {tree}: ask p50 {result['p50_ms']} ms, p95 {result['p95_ms']} ms, "
                  f"CPU {result['cpu_ms']} ms an answer (load average {load:.1f})", flush=True)


if __name__ == "__main__":
    main()
