"""Transaction time must not slow today's answers: DuckDB query count and latency of the current-state read
path, catalog-only (no index), on the demo catalog and a synthetic 10k-object catalog.

Run it against the code before and after the history change, from the same script:

    PYTHONPATH=/work/main .venv/bin/python benchmarks/history_read_path.py --label before
    PYTHONPATH=$PWD       .venv/bin/python benchmarks/history_read_path.py --label after

Results are appended to benchmarks/results/history_read_path.json. The after run also reports the re-ingest
cost of carrying the history and the first/repeat latency of an as-recorded answer (a past state is built
once in memory, then reused).
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEMO_QUESTIONS = [
    ("analyst", "For the report dated 2025-03-31, what does net revenue mean, which model backs it, where do its "
                "numbers come from, and is that data fresh?"),
    ("analyst", "What is net revenue?"),
    ("analyst", "The old wiki says revenue includes shipping and tax. Is that right for 2025-03-31?"),
    ("analyst", "How was churn defined in calendar year 2025?"),
    ("marketing", "What is the repeat purchase rate on 2025-09-30?"),
    ("analyst", "Is raw_web.sessions fresh?"),
    ("finance", "What is the official CLV definition?"),
]
AT = datetime(2026, 11, 29, 12, tzinfo=timezone.utc)


class Counting:
    """Wraps a DuckDB connection and counts execute() calls."""

    def __init__(self, con):
        self._con, self.count = con, 0

    def execute(self, *args, **kwargs):
        self.count += 1
        return self._con.execute(*args, **kwargs)

    def __getattr__(self, name):
        return getattr(self._con, name)


def _bench_module():
    # Load benchmarks/bench.py for its synthetic catalog without letting it put this checkout on sys.path.
    saved = list(sys.path)
    spec = importlib.util.spec_from_file_location("asof_bench", HERE / "bench.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    sys.path[:] = saved
    return mod


def measure(db: Path, qs: list[tuple[str, str]], repeats: int) -> dict:
    from core.answer.ask import Question, ask
    from core.catalog.store import Store
    cold_q, warm_q, cold_t, warm_t = [], [], [], []
    for _ in range(repeats):
        for role, text in qs:
            store = Store(db)
            counting = Counting(store.con)
            # Before any view is built, so every read goes through it: the connection itself, or this
            # thread's cursor once Store.con became a per-thread property.
            if isinstance(getattr(type(store), "con", None), property):
                store._local.cursor = counting
            else:
                store.con = counting
            t0 = time.perf_counter()
            ask(store, Question(role=role, text=text, at=AT))
            cold_t.append(time.perf_counter() - t0)
            cold_q.append(counting.count)
            counting.count = 0
            t0 = time.perf_counter()
            ask(store, Question(role=role, text=text, at=AT))
            warm_t.append(time.perf_counter() - t0)
            warm_q.append(counting.count)
            store.close()
    ms = lambda xs, p: round(sorted(xs)[min(len(xs) - 1, int(p / 100 * len(xs)))] * 1000, 1)  # noqa: E731
    return {"questions": len(qs), "repeats": repeats,
            "queries_first_question_per_store": sum(cold_q[:len(qs)]), "queries_repeat_question": sum(warm_q[:len(qs)]),
            "cold_ms_p50": ms(cold_t, 50), "cold_ms_p95": ms(cold_t, 95),
            "warm_ms_p50": ms(warm_t, 50), "warm_ms_p95": ms(warm_t, 95), "warm_ms_mean": round(statistics.mean(warm_t) * 1000, 1)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--label", required=True)
    ap.add_argument("--size", type=int, default=10000, help="synthetic catalog size; 0 = demo only (not saved)")
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    import core
    from core.catalog.store import write_catalog
    from core.ingest.load import load_catalog
    out = {"label": args.label, "code": str(Path(core.__file__).resolve().parents[1]),
           "when": datetime.now(timezone.utc).isoformat(timespec="seconds")}
    bench = _bench_module()
    with tempfile.TemporaryDirectory(prefix="asof-history-bench-") as tmp:
        tmp = Path(tmp)
        demo = tmp / "demo.duckdb"
        catalog = load_catalog(HERE.parent / "data" / "demo")
        write_catalog(catalog, demo)
        write_catalog(catalog, demo)  # a re-ingest: with history, the file now carries two ingests
        out["demo"] = measure(demo, DEMO_QUESTIONS, args.repeats)

        if not args.size:  # demo only: quick interleaved before/after latency runs
            print(json.dumps(out, indent=2))
            return
        raw = bench.synth_catalog(args.size)
        src = tmp / "synth.json"
        src.write_text(json.dumps(raw))
        big = tmp / "synth.duckdb"
        t0 = time.perf_counter()
        write_catalog(load_catalog(src), big)
        out["synthetic_first_ingest_s"] = round(time.perf_counter() - t0, 2)
        for e in raw["evidence"][::100]:  # 1% of objects get new text
            e["text"] = (e.get("text") or "") + " Revised."
        src.write_text(json.dumps(raw))
        t0 = time.perf_counter()
        write_catalog(load_catalog(src), big)
        out["synthetic_reingest_s"] = round(time.perf_counter() - t0, 2)
        qs = [(q["role"], q["question"]) for q in bench.questions(raw, 20)]
        out[f"synthetic_{args.size}"] = measure(big, qs, 2)
        try:
            from core.answer.ask import Question, ask
            from core.catalog import history
            from core.catalog.store import Store
            store = Store(big)
            first = history.ingests(store)[0].ingested_at
            t0 = time.perf_counter()
            ask(store, Question(role=qs[0][0], text=qs[0][1], at=AT, recorded_at=first))
            build = time.perf_counter() - t0
            t0 = time.perf_counter()
            for role, text in qs:
                ask(store, Question(role=role, text=text, at=AT, recorded_at=first))
            out["as_recorded"] = {"first_ms_incl_building_past_state": round(build * 1000, 1),
                                  "repeat_ms_mean": round((time.perf_counter() - t0) / len(qs) * 1000, 1)}
            store.close()
        except ImportError:
            pass  # the code before transaction time
    print(json.dumps(out, indent=2))
    results = HERE / "results" / "history_read_path.json"
    runs = json.loads(results.read_text()) if results.exists() else []
    runs.append(out)
    results.write_text(json.dumps(runs, indent=2) + "\n")


if __name__ == "__main__":
    main()
