"""Transaction time must not slow today's answers: DuckDB query count and latency of the current-state read
path, catalog-only (no index), on the demo catalog and a synthetic 10k-object catalog.

Run it against the code before and after the history change, from the same script:

    PYTHONPATH=/work/main .venv/bin/python benchmarks/history_read_path.py --label before
    PYTHONPATH=$PWD       .venv/bin/python benchmarks/history_read_path.py --label after

Results are appended to benchmarks/results/history_read_path.json. The after run also reports the re-ingest
cost of carrying the history and the first/repeat latency of an as-recorded answer.

`--as-recorded 10000 100000` measures the as-recorded path alone at those sizes (catalog-only, no index): the
first ingest, a re-ingest that changes 1% of texts, narrows 1% of ACLs and removes some drafts and notes, the file's
size, then, in a fresh process per size, the time and peak RSS of the first as-recorded answer (which opens
the past state) and of a repeat. Results go to benchmarks/results/history_read_path_as_recorded.json and .md:

    PYTHONPATH=/work/main .venv/bin/python benchmarks/history_read_path.py --label before --as-recorded 10000 100000
    PYTHONPATH=$PWD       .venv/bin/python benchmarks/history_read_path.py --label after --as-recorded 10000 100000
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import resource
import statistics
import subprocess
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


def _status_mb(field: str) -> float:
    # VmRSS: resident now; VmHWM: the process's peak resident set so far.
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return round(int(line.split()[1]) / 1024, 1)
    return float("nan")


def probe(db: Path, role: str, text: str) -> dict:
    """One as-recorded question at the first ingest, asked twice, in this (fresh) process."""
    from core.answer.ask import Question, ask
    from core.catalog import history
    from core.catalog.store import Store
    store = Store(db)
    first = history.ingests(store)[0].ingested_at
    q = Question(role=role, text=text, at=AT, recorded_at=first)
    out = {"rss_before_mb": _status_mb("VmRSS"), "peak_before_mb": _status_mb("VmHWM")}
    t0 = time.perf_counter()
    env = ask(store, q)
    out["first_ms"] = round((time.perf_counter() - t0) * 1000, 1)
    out["peak_after_first_mb"] = _status_mb("VmHWM")
    t0 = time.perf_counter()
    again = ask(store, q)
    out["repeat_ms"] = round((time.perf_counter() - t0) * 1000, 1)
    out["peak_after_repeat_mb"] = _status_mb("VmHWM")
    out["behavior"], out["same_answer"] = env.behavior.value, env.model_dump_json() == again.model_dump_json()
    out["repeat_behavior"] = again.behavior.value
    out["ingest"] = env.recorded.ingest if env.recorded else None
    store.close()
    return out


def probe_open(db: Path, role: str) -> dict:
    """Opening the first ingest's past state alone, and one narrow read through it, in this (fresh) process:
    what an as-recorded question pays before the answer path (the reader's per-view indexes) starts."""
    from core.catalog import history
    from core.catalog.access import visible
    from core.catalog.store import Store
    store = Store(db)
    out = {"rss_before_mb": _status_mb("VmRSS")}
    t0 = time.perf_counter()
    past = history.past_store(store, history.ingests(store)[0].number)
    out["open_ms"] = round((time.perf_counter() - t0) * 1000, 1)
    some = [i for (i,) in store.con.execute("SELECT evidence_id FROM evidence ORDER BY evidence_id LIMIT 3").fetchall()]
    view = visible(past, role)
    t0 = time.perf_counter()
    view.by_ids(some)
    out["by_ids_ms"] = round((time.perf_counter() - t0) * 1000, 1)
    out["peak_after_open_mb"] = _status_mb("VmHWM")
    store.close()
    return out


def _child(label: str, *args: str) -> dict:
    proc = subprocess.run([sys.executable, __file__, "--label", label, *args], capture_output=True, text=True,
                          env=os.environ.copy())
    if proc.returncode:
        raise SystemExit(proc.stderr)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def as_recorded(sizes: list[int], label: str) -> None:
    import core
    from core.catalog.store import write_catalog
    from core.ingest.load import load_catalog
    bench = _bench_module()
    run = {"label": label, "code": str(Path(core.__file__).resolve().parents[1]),
           "when": datetime.now(timezone.utc).isoformat(timespec="seconds"), "sizes": {},
           "load_average_1min_at_start": round(os.getloadavg()[0], 1)}
    for n in sizes:
        with tempfile.TemporaryDirectory(prefix="asof-as-recorded-") as tmp:
            tmp = Path(tmp)
            raw = bench.synth_catalog(n)
            src, db = tmp / "synth.json", tmp / "synth.duckdb"
            src.write_text(json.dumps(raw))
            t0 = time.perf_counter()
            catalog = load_catalog(src)
            load_s = time.perf_counter() - t0
            t0 = time.perf_counter()
            write_catalog(catalog, db)
            first_s = time.perf_counter() - t0
            size1 = db.stat().st_size
            del catalog
            role, text = next((q["role"], q["question"]) for q in bench.questions(raw, 1))
            ev = raw["evidence"]
            for e in ev[::100]:  # 1% of objects get new text
                e["text"] = (e.get("text") or "") + " Revised."
            narrowed = 0
            for e in ev[50::100]:  # 1% lose a role (when they have more than one)
                if len(e["acl"]) > 1:
                    e["acl"], narrowed = e["acl"][1:], narrowed + 1
            # Some drafts, wiki pages and notes removed (nothing links to them, so the catalog stays valid).
            raw["evidence"] = [e for i, e in enumerate(ev) if i % 10 or e["kind"] not in ("documentation", "note")]
            removed = len(ev) - len(raw["evidence"])
            src.write_text(json.dumps(raw))
            catalog = load_catalog(src)
            t0 = time.perf_counter()
            write_catalog(catalog, db)
            re_s = time.perf_counter() - t0
            del catalog
            opened = _child(label, "--probe-open", str(db), role)
            answered = _child(label, "--probe", str(db), role, text)
            run["sizes"][str(n)] = {
                "objects": n, "load_catalog_s": round(load_s, 2), "first_write_s": round(first_s, 2),
                "reingest_write_s": round(re_s, 2),
                "changed": len(ev[::100]), "narrowed": narrowed, "removed": removed,
                "file_mb_after_first": round(size1 / 2**20, 1),
                "file_mb_after_reingest": round(db.stat().st_size / 2**20, 1),
                "question": [role, text], **answered, "open_past_state_ms": opened["open_ms"],
                "open_by_ids_ms": opened["by_ids_ms"], "open_rss_before_mb": opened["rss_before_mb"],
                "open_peak_mb": opened["peak_after_open_mb"]}
            print(json.dumps(run["sizes"][str(n)]), flush=True)
    run["ingest_process_peak_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    results = HERE / "results" / "history_read_path_as_recorded.json"
    runs = json.loads(results.read_text()) if results.exists() else []
    runs.append(run)
    results.write_text(json.dumps(runs, indent=2) + "\n")
    lines = ["# As-recorded answers: past state opened per question",
             "",
             "Written by `benchmarks/history_read_path.py --as-recorded` (catalog-only, `write_catalog` without "
             "the LanceDB index). First answer includes opening the past state; peak RSS is the probe process's "
             "(imports, the open catalog and the answer).",
             "",
             "Validating the catalog (`load_catalog`, code no run changes) is the machine-load gauge: on the shared "
             "2-core machine, compare runs whose gauge is alike.",
             "",
             "| run | objects | load_catalog s (gauge) | first write s | re-ingest write s | file MB (1 / 2 ingests) | open past state ms "
             "| peak RSS after open MB | first answer ms | behavior | repeat ms (behavior) | RSS before MB | peak after first MB "
             "| peak after repeat MB | when |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in runs:
        for s in r["sizes"].values():
            lines.append(f"| {r['label']} | {s['objects']:,} | {s['load_catalog_s']} | {s['first_write_s']} | {s['reingest_write_s']} | "
                         f"{s['file_mb_after_first']} / {s['file_mb_after_reingest']} | "
                         f"{s.get('open_past_state_ms', float('nan')):,} | {s.get('open_peak_mb', float('nan')):,} | "
                         f"{s['first_ms']:,} | {s['behavior']} | {s['repeat_ms']:,} ({s.get('repeat_behavior', 'n/a')}) | {s['rss_before_mb']:,} | {s['peak_after_first_mb']:,} | "
                         f"{s['peak_after_repeat_mb']:,} | {r['when']} |")
    (HERE / "results" / "history_read_path_as_recorded.md").write_text("\n".join(lines) + "\n")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--label", required=True)
    ap.add_argument("--as-recorded", type=int, nargs="+", metavar="SIZE",
                    help="measure only the as-recorded path at these synthetic sizes")
    ap.add_argument("--probe", nargs=3, metavar=("DB", "ROLE", "QUESTION"), help=argparse.SUPPRESS)
    ap.add_argument("--probe-open", nargs=2, metavar=("DB", "ROLE"), help=argparse.SUPPRESS)
    ap.add_argument("--size", type=int, default=10000, help="synthetic catalog size; 0 = demo only (not saved)")
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    if args.probe_open:
        print(json.dumps(probe_open(Path(args.probe_open[0]), args.probe_open[1])))
        return
    if args.probe:
        print(json.dumps(probe(Path(args.probe[0]), args.probe[1], args.probe[2])))
        return
    if args.as_recorded:
        as_recorded(args.as_recorded, args.label)
        return
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
