"""CPU and wall time of a first ingest's phases outside encoding, with the encoder stubbed (this script only).

    .venv/bin/python benchmarks/ingest_phases.py --catalog CATALOG.json --out /tmp/phases

Runs the phases `benchmarks/bench.py` reports, in its order, on a fresh database and index: validate
(`load_catalog`), index rows (`prepare_index`: chunking and row building; the stub returns unit random
vectors, about 1.5 CPU-s of that phase at 178k rows), DuckDB (`write_catalog`), LanceDB (`commit_index`, with the
ANN index trained on those random vectors). Encoding, ~90% of a real first ingest, is what bench.py measures.
CPU is the process's (every thread: DuckDB and Lance use both cores). On a shared machine compare two revisions
by alternating runs from a checkout of each (A B A B), and give ranges. Prints one JSON line: the catalog
revision (the same revision means the same content hashes and ACL revisions) and per phase [wall s, CPU s].
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, os.getcwd())  # the checkout being measured


class StubEncoder:
    """Stands in for the int8 encoder a 100k catalog gets: deterministic unit vectors, no model."""
    precision, dim = "int8", 384

    def for_rows(self, rows: int) -> "StubEncoder":
        return self

    def encode(self, texts: list[str], progress=None) -> np.ndarray:
        vectors = np.random.default_rng(len(texts)).standard_normal((len(texts), self.dim)).astype(np.float32)
        return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--catalog", required=True)
    parser.add_argument("--out", required=True, help="folder for the database and index (emptied first)")
    args = parser.parse_args()
    from core.catalog.store import write_catalog
    from core.ingest.load import load_catalog
    from core.retrieve.index import commit_index, prepare_index

    out = Path(args.out)
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    db = out / "catalog.duckdb"
    phases: dict[str, list[float]] = {}

    def timed(name, step):
        wall, cpu = time.perf_counter(), time.process_time()
        result = step()
        phases[name] = [round(time.perf_counter() - wall, 2), round(time.process_time() - cpu, 2)]
        return result

    catalog = timed("validate", lambda: load_catalog(args.catalog))
    prepared = timed("index_rows", lambda: prepare_index(catalog, db, StubEncoder(), quiet=True))
    timed("duckdb", lambda: write_catalog(catalog, db))
    timed("lancedb", lambda: commit_index(prepared))
    print(json.dumps({"revision": catalog.revision(), "objects": len(catalog.evidence), "wall_cpu_s": phases}))


if __name__ == "__main__":
    main()
