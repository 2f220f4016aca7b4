"""App replicas behind nginx over one catalog in object storage, driven by sessions with mixed principals
while a new revision is published (the set-up of tests/app/test_replicas.py: SeaweedFS, nginx, Streamlit in
header mode; all on 127.0.0.1). Two kinds of client: websocket sessions speaking Streamlit's own protocol
(tests/streamlit_ws.py), which measure what the replicas serve, and real browsers (Playwright + Debian's
Chromium), whose rendering on the same 2 CPUs is most of their cost.

    .venv/bin/python benchmarks/replicas.py                          # both drivers, 1 and 3 replicas
    .venv/bin/python benchmarks/replicas.py --drivers websocket --replicas 1,2 --ws-sessions 300
    .venv/bin/python benchmarks/replicas.py --switch 10000,100000   # a replica's switch, with and without checks

For each driver and replica count: answers per second (all, and per replica: the answers each replica served
over the measured wall time), end-to-end latency p50/p95 (request to the answer's headline), and the answers
that mixed revisions, crossed principals or failed (must be 0).
Replicas are warmed first (one answer each, the embedding model loaded). Writes
benchmarks/results/replicas.md and .json.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]
for key, value in {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "LANCEDB_LOG": "error",
                   "HF_HUB_DISABLE_PROGRESS_BARS": "1", "LITELLM_LOCAL_MODEL_COST_MAP": "True"}.items():
    os.environ.setdefault(key, value)

from objectstore import seaweedfs  # noqa: E402
from replicas import (  # noqa: E402
    QUESTIONS,
    Session,
    close_session,
    cluster,
    expectations,
    judge,
    open_session,
    read_answer,
    restated,
    sso_token,
)
from streamlit_server import chromium  # noqa: E402
from streamlit_ws import ask as ws_ask  # noqa: E402

from core.ingest.load import load_catalog  # noqa: E402
from core.ingest.publish import publish  # noqa: E402
from core.ingest.upload import publish_to  # noqa: E402
from core.retrieve.embed import Embedder  # noqa: E402


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def _browser_waves(lb, args, sessions: list[Session], publish_at) -> list[tuple[Session, dict]]:
    """Chromium pages, `args.concurrency` open at once, wave after wave."""
    out = []
    with chromium() as browser:
        warm = [open_session(browser, lb.url, Session("alice", "analyst", "net revenue", "2025-03-31"))
                for _ in range(3 * len(lb.replicas))]  # until every replica has answered once, model loaded
        for s in warm:
            read_answer(s)
            close_session(s)
        time.sleep(2)
        for start in range(0, len(sessions), args.concurrency):
            publish_at(start)
            wave = [open_session(browser, lb.url, s) for s in sessions[start:start + args.concurrency]]
            out += [(s, read_answer(s)) for s in wave]
            for s in wave:
                close_session(s)
    return out


def _websocket_sessions(lb, args, sessions: list[Session], publish_at) -> list[tuple[Session, dict]]:
    """Streamlit's own websocket protocol (tests/streamlit_ws.py), `args.concurrency` sessions at a time: the
    replicas' work without a browser's rendering."""
    from concurrent.futures import ThreadPoolExecutor

    def one(s: Session) -> dict:
        return ws_ask(lb.url, {"q": s.question, "role": s.role, "date": s.day},
                      {"asof_sso": sso_token(s.principal), "asof_lb": s.lb_cookie})

    for i in range(3 * len(lb.replicas)):  # every replica answers once, model loaded
        one(Session("alice", "analyst", "net revenue", "2025-03-31", lb_cookie=f"warm-{i}"))
    out = []
    with ThreadPoolExecutor(max_workers=args.concurrency) as pool:
        for start in range(0, len(sessions), args.concurrency):
            publish_at(start)
            wave = sessions[start:start + args.concurrency]
            out += list(zip(wave, pool.map(one, wave)))
    return out


def run(n: int, driver: str, args, s3, dbs, catalogs, folder: Path) -> dict:
    principals = {p.name: list(p.roles) for p in catalogs["A"].principals}
    views, foreign = expectations(catalogs, dbs)
    url = f"s3://asof-test/bench-{driver}-{n}"
    publish_to(url, dbs["A"], s3)
    rng = random.Random(n)
    sessions = []
    for _ in range(args.sessions):
        principal = rng.choice(sorted(principals))
        question, day = rng.choice(QUESTIONS)
        sessions.append(Session(principal, rng.choice(principals[principal]), question, day,
                                lb_cookie=uuid.uuid4().hex))
    publisher: list[threading.Thread] = []
    first, second = args.sessions // 3, 2 * args.sessions // 3

    def publish_at(done: int) -> None:
        """Revision B is published while the middle third of the sessions ask; the last third ask after."""
        if done >= first and not publisher:
            publisher.append(threading.Thread(target=publish_to, args=(url, dbs["B"], s3)))
            publisher[0].start()
        if done >= second and publisher[0].is_alive():
            publisher[0].join()
            time.sleep(1.5)

    with cluster(folder / f"cluster-{driver}-{n}", s3, url, list(principals), replicas=n, poll_s=0.5) as lb:
        t0 = time.perf_counter()
        answered = (_browser_waves if driver == "browser" else _websocket_sessions)(lb, args, sessions, publish_at)
        wall = time.perf_counter() - t0
        routes = lb.routes()
    results = [("before" if i < first else "during" if i < second else "after", s, got)
               for i, (s, got) in enumerate(answered)]
    latencies = [got["ms"] for _, _, got in results]
    verdict = judge(results, views, foreign, principals)
    served: dict[str, int] = {}
    for _, s, _ in results:
        for upstream in routes.get(s.lb_cookie, ()):
            served[upstream] = served.get(upstream, 0) + 1
    return {"driver": driver, "replicas": n, "sessions": len(results), "concurrency": args.concurrency,
            "wall_s": round(wall, 1), "answers_per_s": round(len(results) / wall, 2),
            "answers_per_s_per_replica": {k: round(v / wall, 2) for k, v in sorted(served.items())},
            "p50_ms": round(statistics.median(latencies)), "p95_ms": round(pct(latencies, 95)),
            "mixed": len(verdict["mixed"]), "cross_principal": len(verdict["cross"]), "errors": len(verdict["errors"]),
            "seen": verdict["seen"]}


def publish_figures(s3, dbs, embedder, tmp: Path, repeats: int = 3) -> dict:
    """Publishing the demo revision, and one replica's switch to it: CURRENT read to first answer, including
    the download of the DuckDB file and the first reads of the index from s3://."""
    from concurrency import answer

    from core.serve.live import Live
    url = "s3://asof-test/bench-publish"
    size = dbs["A"].stat().st_size
    index = sum(f.stat().st_size for f in dbs["A"].with_suffix(".lance").rglob("*") if f.is_file())
    publish_to(url, dbs["A"], s3)
    live = Live(url, embedder, cache_dir=tmp / "pub-cache", objects=s3, poll_s=0)
    store = live.store()
    answer(store, live.searcher(store), "analyst", "What is net revenue?", None)  # warm: model and handles
    publishes, switches = [], []
    for i in range(repeats):
        db = dbs["B" if i % 2 == 0 else "A"]
        t0 = time.perf_counter()
        publish_to(url, db, s3)
        t1 = time.perf_counter()
        store = live.store()
        answer(store, live.searcher(store), "analyst", "What is net revenue?", None)
        publishes.append(t1 - t0)
        switches.append(time.perf_counter() - t1)
    # In process, no browser: the same questions against the local revision and the replica's (index on s3://).
    from concurrency import questions

    from core.catalog.store import Store
    from core.retrieve.search import Searcher
    qs = questions(load_catalog(ROOT / "data" / "demo"))[::4]
    local = Store(dbs["B" if repeats % 2 else "A"])
    pairs = {"local": (local, Searcher(local, embedder)), "s3": (store, live.searcher(store))}
    timing = {}
    for name in ("local", "s3", "local", "s3"):  # twice each, the second pass is reported (warm handles)
        ms = []
        for q in qs:
            t = time.perf_counter()
            answer(*pairs[name], *q)
            ms.append((time.perf_counter() - t) * 1000)
        timing[name] = (round(statistics.median(ms)), round(pct(ms, 95)))
    return {"db_mb": round(size / 1e6, 1), "index_mb": round(index / 1e6, 1), "questions": len(qs),
            "answer_local_ms": timing["local"], "answer_s3_ms": timing["s3"],
            "publish_s": round(statistics.median(publishes), 2), "switch_to_first_answer_s": round(statistics.median(switches), 2)}


def _timed(fn, repeats: int) -> float:
    """Median seconds of `fn()` over `repeats` calls."""
    out = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t)
    return statistics.median(out)


def switch_figures(n: int, s3, tmp: Path, repeats: int) -> dict:
    """A replica's switch to a published revision of `n` synthetic objects (benchmarks/bench.py's catalog, no
    search index), whole and by part: the download, the signature on CURRENT, the size and sha256, opening the
    file, and the schema check (no view, macro or undeclared table or column); medians of `repeats`."""
    import importlib.util

    import pyarrow.fs as pafs

    from core.catalog.store import Store, write_catalog
    from core.ingest.load import load_catalog as load
    from core.serve.replica import Replica, check_signature
    from core.settings.objects import DB_NAME, ObjectLocation, file_sha256, read_pointer
    from core.settings.signing import load_trusted_keys
    spec = importlib.util.spec_from_file_location("asof_bench", ROOT / "benchmarks" / "bench.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    folder = tmp / f"switch-{n}"
    folder.mkdir()
    (folder / "catalog.json").write_text(json.dumps(bench.synth_catalog(n)))
    db = folder / "catalog.duckdb"
    t = time.perf_counter()
    write_catalog(load(folder / "catalog.json"), db)
    built = time.perf_counter() - t
    url = f"s3://asof-test/switch-{n}"
    t = time.perf_counter()
    pointer = publish_to(url, db, s3)
    published = time.perf_counter() - t
    assert read_pointer(s3.filesystem(), ObjectLocation.parse(url)) == pointer
    import core.serve.replica as replica_mod
    runs = iter(range(10 ** 6))
    real = replica_mod.check_signature, replica_mod.check_revision

    def switch(signature: bool = True, revision: bool = True) -> float:
        """A new replica's switch: CURRENT read, the download, and the checks asked for (the others skipped)."""
        replica_mod.check_signature = real[0] if signature else (lambda *a: None)
        replica_mod.check_revision = (real[1] if revision else
                                      (lambda rev, trusted: replica_mod.check_signature(rev.pointer, trusted)))
        try:
            t = time.perf_counter()
            Replica(url, folder / f"cache-{next(runs)}", s3, poll_s=0).current()
            return time.perf_counter() - t
        finally:
            replica_mod.check_signature, replica_mod.check_revision = real

    local = folder / "downloaded.duckdb"

    def download():
        local.unlink(missing_ok=True)
        pafs.copy_files(ObjectLocation.parse(url).revision_key(pointer.folder, DB_NAME), str(local),
                        source_filesystem=s3.filesystem(), destination_filesystem=pafs.LocalFileSystem())

    def opened():
        Store(local).close()

    def declared():
        store = Store(local)
        store.check_declared()
        store.close()

    trusted = load_trusted_keys(s3.trusted_keys)
    parts = {"download_s": _timed(download, repeats), "open_s": _timed(opened, repeats),
             "signature_s": _timed(lambda: check_signature(pointer, trusted), repeats * 10),
             "sha256_s": _timed(lambda: file_sha256(local), repeats),
             "schema_check_s": _timed(declared, repeats) - _timed(opened, repeats)}
    # Interleaved, so a change in the machine's load falls on every variant alike.
    variants = {"switch_s": (True, True), "switch_no_signature_s": (False, True), "switch_no_checks_s": (False, False)}
    seen = {k: [] for k in variants}
    for _ in range(repeats):
        for name, (signature, revision) in variants.items():
            seen[name].append(switch(signature, revision))
    return {"objects": n, "db_mb": round(db.stat().st_size / 1e6, 1), "built_s": round(built, 1),
            "publish_s": round(published, 2), **{k: round(statistics.median(v), 3) for k, v in seen.items()},
            **{k: round(v, 5) for k, v in parts.items()}}


def switch_main(sizes: list[int], repeats: int) -> None:
    load = os.getloadavg()
    rows = []
    with tempfile.TemporaryDirectory() as tmp, seaweedfs(Path(tmp) / "s3") as s3:
        for n in sizes:
            rows.append(switch_figures(n, s3, Path(tmp), repeats))
            print(json.dumps(rows[-1]), flush=True)
    after = os.getloadavg()
    out = ROOT / "benchmarks" / "results"
    out.mkdir(exist_ok=True)
    (out / "replicas_switch.json").write_text(json.dumps({"load_average_at_start": load, "load_average_at_end": after,
                                                          "cpus": os.cpu_count(), "runs": rows}, indent=2))
    lines = ["# A replica's switch to a new revision, with and without its checks (benchmarks/replicas.py --switch)", "",
             f"{os.cpu_count()} CPUs, load average {load[0]:.1f} at start and {after[0]:.1f} at the end (other jobs "
             "were running); SeaweedFS on this machine. Catalogs of synthetic objects (benchmarks/bench.py), "
             f"published without a search index; medians of {repeats}. A switch: a new replica reading CURRENT, "
             "downloading the revision and checking it, timed with both checks, without the signature check, and "
             "with neither (interleaved). The revision check is the sha256 of the file, opening it, the schema "
             "check (no view, macro, or undeclared table or column) and the revision id; the signature check is "
             "Ed25519 over CURRENT. Parts timed alone on the downloaded file on the right.", "",
             "| objects | DuckDB MB | publish s | switch, both checks s | no signature check s | no checks s | "
             "signature alone s | sha256 alone s | schema check alone s | download alone s |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['objects']:,} | {r['db_mb']} | {r['publish_s']} | {r['switch_s']} | "
                     f"{r['switch_no_signature_s']} | {r['switch_no_checks_s']} | {r['signature_s']} | "
                     f"{r['sha256_s']} | {r['schema_check_s']} | {r['download_s']} |")
    (out / "replicas_switch.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--switch", metavar="SIZES", help="only time a replica's switch, with and without its checks, at "
                   "these catalog sizes (e.g. 10000,100000); writes benchmarks/results/replicas_switch.md")
    p.add_argument("--repeats", type=int, default=3, help="with --switch: medians of this many")
    p.add_argument("--replicas", default="1,3", help="comma-separated replica counts to measure")
    p.add_argument("--drivers", default="websocket,browser",
                   help="websocket: Streamlit's protocol without a browser (the replicas' capacity); browser: Chromium")
    p.add_argument("--sessions", type=int, default=36, help="browser sessions per replica count")
    p.add_argument("--concurrency", type=int, default=6, help="browser sessions open at once")
    p.add_argument("--ws-sessions", type=int, default=180, help="websocket sessions per replica count")
    p.add_argument("--ws-concurrency", type=int, default=12, help="websocket sessions at once")
    args = p.parse_args()
    if args.switch:
        return switch_main([int(x) for x in args.switch.split(",")], args.repeats)
    load = os.getloadavg()
    catalogs = {"A": load_catalog(ROOT / "data" / "demo")}
    catalogs["B"] = restated(catalogs["A"])
    rows = []
    with tempfile.TemporaryDirectory() as tmp, seaweedfs(Path(tmp) / "s3") as s3:
        embedder = Embedder()
        dbs = {}
        for name, cat in catalogs.items():
            dbs[name] = Path(tmp) / name / "catalog.duckdb"
            dbs[name].parent.mkdir()
            publish(cat, dbs[name], embedder, quiet=True)
        pub = publish_figures(s3, dbs, embedder, Path(tmp))
        print(json.dumps(pub), flush=True)
        for driver in [d for d in args.drivers.split(",") if d]:
            sized = argparse.Namespace(**{**vars(args), **({"sessions": args.ws_sessions,
                                                            "concurrency": args.ws_concurrency}
                                                           if driver == "websocket" else {})})
            for n in [int(x) for x in args.replicas.split(",") if x]:
                rows.append(run(n, driver, sized, s3, dbs, catalogs, Path(tmp)))
                print(json.dumps(rows[-1]), flush=True)
    out = ROOT / "benchmarks" / "results"
    out.mkdir(exist_ok=True)
    (out / "replicas.json").write_text(json.dumps({"load_average_at_start": load, "cpus": os.cpu_count(),
                                                   "publish": pub, "runs": rows}, indent=2))
    lines = ["# Replicas behind nginx, one catalog in object storage (benchmarks/replicas.py)", "",
             f"{os.cpu_count()} CPUs, load average at start {load[0]:.1f}; SeaweedFS, nginx, the replicas and the "
             "clients all on this machine. A new revision is published while the middle third of the sessions ask. "
             "websocket: sessions speak Streamlit's protocol through nginx (no browser), latency from the request "
             "to the headline's arrival; browser: Chromium pages, latency from navigation start to the headline on "
             "screen.", "",
             "| driver | replicas | sessions (at once) | answers/s | answers/s per replica | p50 ms | p95 ms | mixed | "
             "cross-principal | errors |", "|---|---|---|---|---|---|---|---|---|---|"]
    lines[4:4] = [f"Publishing the demo revision (DuckDB {pub['db_mb']} MB, index folder {pub['index_mb']} MB): "
                  f"{pub['publish_s']} s (median of 3); a replica's switch, from CURRENT moved to its first answer on "
                  f"the new revision (download included): {pub['switch_to_first_answer_s']} s. In process (no browser), "
                  f"{pub['questions']} questions: p50/p95 {pub['answer_local_ms'][0]}/{pub['answer_local_ms'][1]} ms "
                  f"on the local revision, {pub['answer_s3_ms'][0]}/{pub['answer_s3_ms'][1]} ms with the index read "
                  "from s3://.", ""]
    for r in rows:
        per = ", ".join(f"{v}" for v in r["answers_per_s_per_replica"].values())
        lines.append(f"| {r['driver']} | {r['replicas']} | {r['sessions']} ({r['concurrency']}) | {r['answers_per_s']} | {per} | "
                     f"{r['p50_ms']} | {r['p95_ms']} | {r['mixed']} | {r['cross_principal']} | {r['errors']} |")
    (out / "replicas.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
