"""Chunks embedded per second on a Ray cluster, with one encoder actor and with two (`asof ingest --ray`'s path).

    .venv/bin/python benchmarks/ray_embed.py --objects 2000                 # starts a local 2-node cluster
    .venv/bin/python benchmarks/ray_embed.py --objects 20000 --address auto  # a cluster already running

Without --address it starts a head and a second worker process on this machine (one CPU each, as
tests/retrieve/test_ray_ingest.py does) and stops them at the end. The objects are the first N of
benchmarks/bench.py's synthetic catalog; each run sends them all to the cluster through
core/retrieve/ray_embed.py (Ray Data map_batches on an actor pool, the ONNX graph from the object store) and counts
the chunk rows that come back. Reported: wall time, chunks/s, chunks/s per actor, and beside them this machine's
local encoder on the same objects. The load average is printed with every figure: the machine may be shared.
"""
from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
for key, value in {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "LANCEDB_LOG": "error",
                   "RAY_USAGE_STATS_ENABLED": "0"}.items():
    os.environ.setdefault(key, value)


def _local_cluster(temp: str) -> tuple[str, list[subprocess.Popen]]:
    ray = str(Path(sys.executable).with_name("ray"))
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    started = []
    for args in (["--head", f"--port={port}", "--include-dashboard=false", f"--temp-dir={temp}"],
                 [f"--address=127.0.0.1:{port}"]):
        started.append(subprocess.Popen([ray, "start", *args, "--num-cpus=1", "--disable-usage-stats", "--block"],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True))
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            r = subprocess.run([ray, "status", f"--address=127.0.0.1:{port}"], capture_output=True, text=True)
            if r.returncode == 0 and r.stdout.count(" node_") >= len(started):
                break
            time.sleep(1)
    return f"127.0.0.1:{port}", started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--objects", type=int, default=2000)
    parser.add_argument("--address", help="a running cluster (default: start a local two-node one)")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "ray_embed.md"))
    args = parser.parse_args()
    from bench import synth_catalog

    from core.ingest.load import build_catalog
    from core.retrieve.embed import Embedder
    from core.retrieve.ray_embed import RayChunkEncoder
    from core.retrieve.writer import ChunkEncoder, count_chunks

    raw = synth_catalog(args.objects)
    catalog = build_catalog([("synthetic.json", raw)], "synthetic.json")
    encoder = Embedder().for_rows(count_chunks(catalog.evidence))
    results = []

    def record(label: str, workers: int, chunks: int, wall: float) -> None:
        load = os.getloadavg()
        results.append({"run": label, "actors": workers, "objects": len(catalog.evidence), "chunks": chunks,
                        "wall_s": round(wall, 2), "chunks_per_s": round(chunks / wall, 1),
                        "chunks_per_s_per_actor": round(chunks / wall / workers, 1),
                        "load_average": [round(x, 2) for x in load]})
        print(json.dumps(results[-1]), file=sys.stderr, flush=True)

    temp = tempfile.mkdtemp(prefix="asof-ray-")
    address, started = (args.address, []) if args.address else _local_cluster(temp)
    try:
        for workers in args.workers:
            chunker = RayChunkEncoder(encoder, address, workers)
            try:
                chunker.rows(catalog.evidence[:200])  # actors started, graph shipped: not throughput
                t0 = time.perf_counter()
                rows = chunker.rows(catalog.evidence)
                record("ray", workers, len(rows), time.perf_counter() - t0)
            finally:
                chunker.close()
        local = ChunkEncoder(encoder)
        local.rows(catalog.evidence[:50])
        t0 = time.perf_counter()
        rows = local.rows(catalog.evidence)
        record(f"local ({encoder.backend}, this process)", int(os.environ.get("ASOF_EMBED_THREADS") or os.cpu_count()),
               len(rows), time.perf_counter() - t0)
    finally:
        for proc in reversed(started):
            try:
                os.killpg(proc.pid, signal.SIGTERM)
                proc.wait(timeout=60)
            except (ProcessLookupError, subprocess.TimeoutExpired):
                os.killpg(proc.pid, signal.SIGKILL)
    lines = [f"Generated by benchmarks/ray_embed.py at {time.strftime('%Y-%m-%dT%H:%M:%S')} on {os.cpu_count()} cores"
             f" ({'cluster ' + args.address if args.address else 'a local cluster: head and one worker process, one CPU each'};"
             f" {encoder.precision} vectors). Do not edit by hand.", "",
             "| run | actors | objects | chunks | wall s | chunks/s | chunks/s per actor | load average (1/5/15 min) |",
             "|---|---|---|---|---|---|---|---|"]
    lines += [f"| {r['run']} | {r['actors']} | {r['objects']} | {r['chunks']} | {r['wall_s']} | {r['chunks_per_s']} | "
              f"{r['chunks_per_s_per_actor']} | {' / '.join(map(str, r['load_average']))} |" for r in results]
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
