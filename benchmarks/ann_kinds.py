"""Vector index kinds side by side on one Lance table: build time and memory, filtered query latency, recall against flat.

    cp -r /tmp/k1m/bench-1000000/bench.lance/chunks.lance /tmp/x/chunks.lance        # a COPY: indexes are written on it
    .venv/bin/python benchmarks/ann_kinds.py /tmp/x/chunks.lance --objects 1000000 \
        --kinds asis IVF_PQ/48 IVF_SQ IVF_RQ --name ann_kinds_1m

Each kind is built on the table, in a process of its own (its peak RSS is the build's), and replaces the vector index
of the latest version; the version that holds it is recorded in `<table>.ann_kinds.json` beside the table, so a later
run measures the kinds built before without building them again. `asis` is the index the table already had (at 1M the
segmented IVF_FLAT of core/retrieve/ann.py before IVF_RQ); `IVF_FLAT` rebuilds an IVF_FLAT index as ingest does
(`ann.create`, in segments above ann.SEGMENT_ROWS), and `ingest` the kind ingest builds for the table's rows.

Queries: the benchmark's questions (benchmarks/bench.py `questions` of the catalog of `--objects`) embedded as
bench.py embeds them with `--embedder hash` (HashEmbedder), each as its role; and vectors of the table's own body rows,
each as a role that may see it. Every query is the vector query of core/retrieve/search.py `Searcher.vector`: the role's
pre-filter (`array_has(acl, role) AND part = 'body'`, what `role_filter` gives for an index in step with its catalog),
`prefilter=True`, cosine, k = 10, the index's partitions probed at each share (`minimum_nprobes` = `maximum_nprobes`),
and for the quantized kinds each refine factor (Lance re-scores k x refine candidates with the full vectors). Flat
results (`use_index=False`, same filter) are computed once and kept beside the table.

Recall@10 is the share of the flat top 10 row ids the indexed query returns. Hash vectors have many equal distances
(texts over the same few words), so a tie-aware recall is given too: a returned row counts when its exact distance
(recomputed from its vector) is no larger than the flat 10th. Hash vectors find words, not meanings: their recall
compares kinds with each other on the same vectors and says little about the model's.

Latency: every configuration's queries are timed in `--rounds` rounds, the configurations in turn within each round
(A B C .. A B C ..), after one untimed warm-up pass each; p50/p95 are over all rounds, with each round's p95 and the
load average while it ran.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
from bench import pct  # noqa: E402  (bench puts AsOf on the path and sets the offline environment on import)

# Index statistics without the centroids, as AsOf reads them (core/settings/config.py).
os.environ.setdefault("LANCE_INCLUDE_VECTOR_CENTROIDS", "false")

K = 10


def _rss_mb() -> float:
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS")) / 1024


def build_one(uri: str, kind: str) -> dict:
    """Build `kind` on the table's latest version (run in its own process): seconds, peak and base RSS, version."""
    import lance

    from core.retrieve import ann

    ds = lance.dataset(uri)
    rows = ds.count_rows()
    base = _rss_mb()
    t0 = time.perf_counter()
    name, _, param = kind.partition("/")
    if name in ("IVF_FLAT", "ingest"):
        # As ingest builds it (segmented above ann.SEGMENT_ROWS); ann.create wants a LanceDB table, whose Lance
        # dataset is what it builds on, so the same steps are taken here on the dataset. `ingest`: the kind
        # ann.kind gives for the table's rows; IVF_FLAT: IVF_FLAT at any size.
        if name == "IVF_FLAT":
            ann.RQ_MIN_ROWS = float("inf")
        if rows <= ann.SEGMENT_ROWS:
            ds.create_index(ann.VECTOR_COLUMN, index_type=ann.kind(rows), metric="cosine",
                            num_partitions=ann.partitions(rows), shuffle_partition_batches=ann.SHUFFLE_BATCHES,
                            shuffle_partition_concurrency=1, replace=True, **ann._quantizer(ds, rows))
        else:
            ann._create_in_segments(ds, rows)
    else:
        extra = {}
        if "PQ" in name:
            extra["num_sub_vectors"] = int(param or 48)
        elif param and "HNSW" not in name:
            extra["num_bits"] = int(param)
        ds.create_index(ann.VECTOR_COLUMN, index_type=name, metric="cosine", num_partitions=ann.partitions(rows),
                        shuffle_partition_batches=ann.SHUFFLE_BATCHES, shuffle_partition_concurrency=1, replace=True,
                        name=f"{ann.VECTOR_COLUMN}_idx", **extra)
    seconds = time.perf_counter() - t0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    latest = lance.dataset(uri)
    index = next(i for i in latest.list_indices() if ann.VECTOR_COLUMN in i["fields"])
    return {"kind": kind, "version": latest.version, "index_type": index["type"], "build_s": round(seconds, 1),
            "build_peak_mb": round(peak, 1), "build_base_mb": round(base, 1),
            "partitions": ann.trained_partitions(latest.stats.index_stats(index["name"]))}


def _state_path(uri: str) -> Path:
    return Path(uri.rstrip("/") + ".ann_kinds.json")


def ensure_built(uri: str, kinds: list[str]) -> dict:
    import lance

    state_file = _state_path(uri)
    state = json.loads(state_file.read_text()) if state_file.exists() else {}
    if "asis" not in state:
        from core.retrieve import ann
        ds = lance.dataset(uri)
        index = next((i for i in ds.list_indices() if "vector" in i["fields"]), None)
        state["asis"] = {"kind": "asis", "version": ds.version, "index_type": index["type"] if index else None,
                         "build_s": None, "build_peak_mb": None, "build_base_mb": None,
                         "partitions": ann.trained_partitions(ds.stats.index_stats(index["name"])) if index else None}
        state_file.write_text(json.dumps(state, indent=2))
    for kind in kinds:
        if kind in state:
            continue
        print(f"building {kind}", file=sys.stderr, flush=True)
        proc = subprocess.run(["nice", "-n", "10", sys.executable, __file__, uri, "--build-one", kind],
                              capture_output=True, text=True, cwd=ROOT)
        if proc.returncode != 0:
            sys.exit(f"{kind} failed:\n{proc.stderr[-3000:]}")
        state[kind] = {**json.loads(proc.stdout.strip().splitlines()[-1]),
                       "load_after_build": [round(x, 2) for x in os.getloadavg()]}
        print(json.dumps(state[kind]), file=sys.stderr, flush=True)
        state_file.write_text(json.dumps(state, indent=2))
    return state


def _filter(role: str) -> str:
    return f"array_has(acl, '{role}') AND part = 'body'"


def make_queries(ds, objects: int, n_questions: int, n_rows: int, embedder: str = "hash") -> list[dict]:
    """(set, role, vector) of every query: the bench's questions, then table rows. The questions are embedded as the
    table's rows were: `hash` as bench.py --embedder hash does, `model` by the model through the encoder a searcher
    of this table uses (the precision its rows record: a table written by bench.py --embedder replay)."""
    import numpy as np
    import pyarrow.compute as pc
    from bench import HashEmbedder, questions, synth_catalog

    out = []
    if n_questions:
        qs = questions(synth_catalog(objects), n_questions)
        if embedder == "model":
            from core.retrieve.embed import Embedder
            from core.retrieve.reader import precision
            encoder = Embedder().for_precision(precision(ds))
        else:
            encoder = HashEmbedder()
        vectors = encoder.encode([q["question"] for q in qs])
        out += [{"set": "questions", "role": q["role"], "q": v} for q, v in zip(qs, vectors)]
    if n_rows:
        rng = random.Random(5)
        picked = sorted(rng.sample(range(ds.count_rows()), n_rows * 3))
        rows = ds.take(picked, columns=["part", "acl", "vector"])
        body = pc.equal(rows.column("part"), "body").to_numpy(zero_copy_only=False)
        acls, vecs = rows.column("acl").to_pylist(), rows.column("vector").to_pylist()
        for i in [i for i in range(len(picked)) if body[i] and acls[i]][:n_rows]:
            out.append({"set": "rows", "role": rng.choice(sorted(acls[i])), "q": np.asarray(vecs[i], dtype=np.float32)})
    return out


def _search(ds, query: dict, nearest: dict, post: int | None = None):
    """The role-filtered vector query; with `post`, the filter applied after an ANN search of `post` x k rows (still
    never a row the role may not see, but fewer than k when too few of them are visible), its first k kept."""
    found = ds.to_table(columns=["_distance"], with_row_id=True, filter=_filter(query["role"]), prefilter=not post,
                        nearest={"column": "vector", "q": query["q"], "k": K * (post or 1), "metric": "cosine",
                                 **nearest})
    return found.slice(0, K)


def flat_results(uri: str, ds, queries: list[dict]) -> list[dict]:
    """Each query's flat top 10 (row ids, distances), computed once per table and query set and kept beside it."""
    import hashlib

    import numpy as np
    key = hashlib.sha1(b"".join(q["role"].encode() + np.asarray(q["q"], dtype=np.float32).tobytes()
                                for q in queries)).hexdigest()[:16]
    path = Path(uri.rstrip("/") + f".flat-{key}.json")
    if path.exists():
        return json.loads(path.read_text())
    out = []
    for i, query in enumerate(queries):
        found = _search(ds, query, {"use_index": False})
        out.append({"ids": found.column("_rowid").to_pylist(), "dist": found.column("_distance").to_pylist()})
        if i % 25 == 0:
            print(f"flat {i}/{len(queries)}", file=sys.stderr, flush=True)
    path.write_text(json.dumps(out))
    return out


def exact_distances(ds, query: dict, ids: list[int]) -> list[float]:
    import numpy as np
    if not ids:
        return []
    vectors = ds._take_rows(ids, columns=["vector"]).column("vector").combine_chunks()
    v = vectors.values.to_numpy().reshape(len(ids), -1)
    q = np.asarray(query["q"], dtype=np.float32)
    return list(1.0 - v @ q / np.maximum(np.linalg.norm(v, axis=1) * np.linalg.norm(q), 1e-12))


def configurations(state: dict, kinds: list[str], shares: list[float], refines: list[int],
                   posts: list[int]) -> list[dict]:
    import math
    out = []
    for kind in kinds:
        built = state[kind]
        parts = built["partitions"] or 1
        # Every kind but IVF_FLAT keeps compressed vectors, which a refine step re-scores with the full ones.
        quantized = (built["index_type"] or "IVF_FLAT").upper() != "IVF_FLAT"
        for share in shares:
            probes = max(1, math.ceil(share * parts))
            for refine in (refines if quantized else [None]):
                nearest = {"minimum_nprobes": probes, "maximum_nprobes": probes}
                if refine:
                    nearest["refine_factor"] = refine
                for post in [None] + (posts if quantized else []):
                    out.append({"kind": kind, "share": share, "nprobes": probes, "refine": refine, "post": post,
                                "nearest": nearest})
    return out


def measure(uri: str, state: dict, configs: list[dict], queries: list[dict], flat: list[dict], rounds: int) -> list[dict]:
    import lance
    datasets = {kind: lance.dataset(uri, version=state[kind]["version"]) for kind in {c["kind"] for c in configs}}
    for config in configs:
        config.update(ms=[], rounds_p95=[], loads=[])
        ds = datasets[config["kind"]]
        for query in queries[:20]:  # warm-up: the index's partitions and the scalar indexes read once
            _search(ds, query, config["nearest"], config["post"])
        # Recall from one pass (the results do not change between rounds).
        found = {"questions": [0, 0, 0], "rows": [0, 0, 0]}
        config["short"] = 0
        for query, best in zip(queries, flat):
            got = _search(ds, query, config["nearest"], config["post"]).column("_rowid").to_pylist()
            config["short"] += len(got) < len(best["ids"])
            tenth = best["dist"][-1] if best["dist"] else 0.0
            tally = found[query["set"]]
            tally[0] += len(set(got) & set(best["ids"]))
            tally[1] += sum(d <= tenth + 1e-5 for d in exact_distances(ds, query, got))
            tally[2] += len(best["ids"])
        for name, (hits, tied, total) in found.items():
            config[f"recall_{name}"] = round(hits / total, 4) if total else None
            config[f"recall_{name}_ties"] = round(min(tied, total) / total, 4) if total else None
        print(f"recall {config['kind']} {config['share']} {config['refine']}: {config['recall_questions']} "
              f"{config['recall_questions_ties']} {config['recall_rows']}", file=sys.stderr, flush=True)
    for _ in range(rounds):
        for config in configs:
            ds, ms = datasets[config["kind"]], []
            load0 = os.getloadavg()[0]
            for query in queries:
                t = time.perf_counter()
                _search(ds, query, config["nearest"], config["post"])
                ms.append(1000 * (time.perf_counter() - t))
            config["ms"] += ms
            config["rounds_p95"].append(round(pct(ms, 95), 1))
            config["loads"].append(round((load0 + os.getloadavg()[0]) / 2, 2))
    results = []
    for config in configs:
        built = state[config["kind"]]
        results.append({"kind": config["kind"], "index_type": built["index_type"], "partitions": built["partitions"],
                        "build_s": built["build_s"], "build_peak_mb": built["build_peak_mb"],
                        "build_base_mb": built["build_base_mb"], "share": config["share"],
                        "nprobes": config["nprobes"], "refine": config["refine"],
                        "post": config["post"], "short": config["short"],
                        "p50_ms": round(pct(config["ms"], 50), 1), "p95_ms": round(pct(config["ms"], 95), 1),
                        "rounds_p95_ms": config["rounds_p95"], "load_1min": config["loads"],
                        **{k: v for k, v in config.items() if k.startswith("recall_")}})
        print(json.dumps(results[-1]), file=sys.stderr, flush=True)
    return results


def _revision() -> str:
    try:
        rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT).stdout
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], capture_output=True,
                               text=True, cwd=ROOT).stdout
        return rev.strip() + (" (with uncommitted changes)" if dirty.strip() else "")
    except OSError:
        return "unknown"


def write(results: list[dict], args, rows: int, n_queries: dict, out: Path) -> None:
    embedder = args.embedder
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S")
    out.mkdir(parents=True, exist_ok=True)
    command = "benchmarks/ann_kinds.py " + " ".join(sys.argv[1:])
    (out / f"{args.name}.json").write_text(json.dumps({"generated": stamp, "command": command, "revision": _revision(),
                                                        "rows": rows, "queries": n_queries, "results": results},
                                                       indent=2) + "\n")
    load = os.getloadavg()

    def mb(r):
        if r["build_peak_mb"] is None:
            return ""
        return f"{r['build_peak_mb']:.0f} (+{r['build_peak_mb'] - r['build_base_mb']:.0f})"
    lines = [f"Generated by `{command}` at {stamp} on {os.cpu_count()} cores, code {_revision()}, load average "
             f"{load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} at the end. Do not edit by hand.", "",
             f"{rows:,} rows; queries: {n_queries['questions']} bench questions ({embedder} vectors) and {n_queries['rows']} "
             "table rows, each as one role with its pre-filter; k = 10.", "",
             "| kind | index | partitions | build s | build peak RSS MB (+ over the process before) | share probed | "
             "partitions probed | refine | filter | queries short of k | p50 ms | p95 ms | p95 by round | load (1 min) by round | "
             "recall@10 questions | tie-aware | recall@10 rows | tie-aware |", "|" + "---|" * 18]
    for r in results:
        lines.append(f"| {r['kind']} | {r['index_type']} | {r['partitions']} | {r['build_s'] or ''} | {mb(r)} | "
                     f"{r['share']} | {r['nprobes']} | {r['refine'] or ''} | "
                     f"{'after, ' + str(r['post']) + ' x k' if r['post'] else 'pre'} | {r['short']} | {r['p50_ms']} | {r['p95_ms']} | "
                     f"{' / '.join(map(str, r['rounds_p95_ms']))} | {' / '.join(map(str, r['load_1min']))} | "
                     f"{r['recall_questions']} | {r['recall_questions_ties']} | {r['recall_rows']} | "
                     f"{r['recall_rows_ties']} |")
    lines += ["", "The vector query alone (core/retrieve/search.py `Searcher.vector`'s Lance query: role pre-filter, "
              "cosine, k = 10), not an embedding or a full-text search. recall@10: share of the flat top 10 (same "
              "filter, `use_index=False`) returned; tie-aware: a returned row counts when its exact distance is no "
              "larger than the flat 10th (hash vectors tie often). Hash vectors compare kinds with each other, not "
              "with the model. `asis`: the index the table had (the ingest's); build figures of the others from a "
              "process of their own (peak RSS, and its growth over the process before the build)."]
    (out / f"{args.name}.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("table", help="a Lance table to experiment on (a copy: indexes are written on it)")
    parser.add_argument("--build-one", help=argparse.SUPPRESS)
    parser.add_argument("--kinds", nargs="+", default=["asis", "IVF_PQ/48", "IVF_SQ"],
                        help="asis, IVF_FLAT, ingest, IVF_PQ/<sub-vectors>, IVF_SQ, IVF_RQ[/<bits>], IVF_HNSW_SQ")
    parser.add_argument("--build-only", action="store_true")
    parser.add_argument("--objects", type=int, default=1_000_000, help="the bench catalog whose questions are asked")
    parser.add_argument("--questions", type=int, default=100)
    parser.add_argument("--embedder", choices=("hash", "model"), default="hash",
                        help="how the questions are embedded: as the table's rows were (model: a replayed table)")
    parser.add_argument("--rows", type=int, default=50, help="table rows used as queries")
    parser.add_argument("--shares", nargs="+", type=float, default=[0.05, 0.1, 0.25, 0.45])
    parser.add_argument("--refine", nargs="+", type=int, default=[0, 10])
    parser.add_argument("--post", nargs="*", type=int, default=[],
                        help="also for quantized kinds: the filter applied after a search of this many times k rows")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "results"))
    parser.add_argument("--name", default="ann_kinds")
    args = parser.parse_args()
    if args.build_one:
        print(json.dumps(build_one(args.table, args.build_one)))
        return
    state = ensure_built(args.table, args.kinds)
    if args.build_only:
        return
    import lance
    ds = lance.dataset(args.table, version=state["asis"]["version"])
    queries = make_queries(ds, args.objects, args.questions, args.rows, args.embedder)
    flat = flat_results(args.table, ds, queries)
    configs = configurations(state, args.kinds, args.shares, args.refine, args.post)
    results = measure(args.table, state, configs, queries, flat, args.rounds)
    counts = {s: sum(q["set"] == s for q in queries) for s in ("questions", "rows")}
    write(results, args, ds.count_rows(), counts, Path(args.out))


if __name__ == "__main__":
    main()
