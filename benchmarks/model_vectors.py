"""The model's vectors for a kept benchmark index, embedded in parts across as many runs as it takes (issue 49).

A million-object catalog has ~1.8M chunk rows: embedding them takes this 2-core machine about 85 minutes of both
cores, more than a session can give beside other work, so `bench.py --embedder hash` measured memory and the write
path with stand-in vectors, whose recall says little about the model's. This script embeds the rows of an index kept
by `bench.py --keep` with the encoder an ingest of that size would use (`Embedder.for_rows`: int8 above
LARGE_INDEX_ROWS), a part of PART_ROWS rows at a time, each part written whole (vectors and chunk ids, then renamed
into place) so a run stopped at any point loses at most the part it was on, and the next run goes on from there.
Run it niced so it takes only idle cores:

    nice -n 19 .venv/bin/python benchmarks/model_vectors.py /tmp/k1m/bench-1000000 --minutes 60

It prints how many rows are done and the rate; `--status` only prints. The parts are read back in order by
`read_parts`, for an ingest of the same catalog that takes its vectors from them (each text checked against the MD5
of the text embedded) once every part is there.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

PART_ROWS = 20_000
COLUMNS = ["chunk_id", "kind", "part", "text"]


def _table(kept: Path):
    import lance

    return lance.dataset(str(kept / "bench.lance" / "chunks.lance"))


def parts_folder(kept: Path) -> Path:
    return kept / "model-vectors"


def _part_path(folder: Path, n: int) -> Path:
    return folder / f"part-{n:05d}.npz"


def status(kept: Path) -> dict:
    rows = _table(kept).count_rows()
    folder = parts_folder(kept)
    parts = (rows + PART_ROWS - 1) // PART_ROWS
    done = [n for n in range(parts) if _part_path(folder, n).exists()]
    meta = json.loads((folder / "meta.json").read_text()) if (folder / "meta.json").exists() else {}
    return {"rows": rows, "parts": parts, "parts_done": len(done), "rows_done": min(rows, len(done) * PART_ROWS),
            **meta}


def embed(kept: Path, minutes: float) -> dict:
    """Embed the parts not yet written, in order, until every part is there or `minutes` have passed."""
    from core.retrieve.embed import Embedder
    from core.retrieve.index import embedded_text

    ds = _table(kept)
    rows = ds.count_rows()
    encoder = Embedder().for_rows(rows)
    folder = parts_folder(kept)
    folder.mkdir(exist_ok=True)
    meta = {"backend": encoder.backend, "precision": encoder.precision, "part_rows": PART_ROWS,
            "table_version": ds.version}
    if (folder / "meta.json").exists():
        was = json.loads((folder / "meta.json").read_text())
        if {k: was.get(k) for k in meta} != meta:
            raise SystemExit(f"{folder}: parts were written with {was}, this run would use {meta}: "
                             "remove the folder to start again")
    (folder / "meta.json").write_text(json.dumps(meta))
    deadline = time.monotonic() + minutes * 60
    embedded, started = 0, time.perf_counter()
    for n in range((rows + PART_ROWS - 1) // PART_ROWS):
        path = _part_path(folder, n)
        if path.exists():
            continue
        if time.monotonic() > deadline:
            break
        part = ds.to_table(columns=COLUMNS, offset=n * PART_ROWS, limit=PART_ROWS).to_pydict()
        texts = [embedded_text(t, k, p) for t, k, p in zip(part["text"], part["kind"], part["part"])]
        vectors = encoder.encode(texts).astype(np.float32)
        tmp = path.with_suffix(".tmp.npz")
        np.savez(tmp, vectors=vectors, chunk_id=np.array(part["chunk_id"], dtype=np.str_),
                 text_md5=np.array([_md5(t) for t in texts], dtype="S16"))
        os.replace(tmp, path)
        embedded += len(texts)
        rate = embedded / (time.perf_counter() - started)
        print(f"part {n}: {embedded} rows this run, {rate:.0f} rows/s", flush=True)
    return {**status(kept), "rows_this_run": embedded,
            "rows_per_s": round(embedded / max(time.perf_counter() - started, 1e-9), 1),
            "load_average": [round(x, 2) for x in os.getloadavg()]}


def _md5(text: str) -> bytes:
    return hashlib.md5(text.encode(), usedforsecurity=False).digest()


def read_parts(kept: Path):
    """(chunk ids, MD5 of each embedded text, vectors) of every part in order; raises when a part is missing. An
    ingest that replays them checks each text it is asked to encode against its MD5."""
    st = status(kept)
    if st["parts_done"] < st["parts"]:
        raise SystemExit(f"{parts_folder(kept)}: {st['parts_done']} of {st['parts']} parts embedded")
    for n in range(st["parts"]):
        with np.load(_part_path(parts_folder(kept), n)) as part:
            yield part["chunk_id"], part["text_md5"], part["vectors"]


class ReplayEmbedder:
    """An ingest's encoder that serves the parts' vectors in order instead of encoding (`bench.py --vectors-from
    KEPT`): the same catalog ingested again gets the model's vectors without the hours of encoding. Each text it is
    asked for must be the one embedded for that row (its MD5): another catalog, or another chunking, is refused.
    Questions are embedded by the model itself, through the backend the parts were written with."""

    def __init__(self, kept: Path):
        self.kept = kept
        self.meta = json.loads((parts_folder(kept) / "meta.json").read_text())
        self.precision, self.dim = self.meta["precision"], 384
        self._parts = read_parts(kept)
        self._md5 = np.empty(0, "S16")
        self._vectors = np.empty((0, self.dim), np.float32)
        self.served = 0

    def for_rows(self, rows: int) -> "ReplayEmbedder":
        return self

    def for_precision(self, precision: str):
        from core.retrieve.embed import Embedder

        return Embedder(backend=self.meta["backend"])

    def encode(self, texts: list[str], progress=None) -> np.ndarray:
        if texts == ["warm up"]:
            return np.zeros((1, self.dim), np.float32)
        while len(self._md5) < len(texts):
            try:
                _, md5, vectors = next(self._parts)
            except StopIteration:
                raise ValueError(f"{parts_folder(self.kept)}: asked for more rows than the parts hold") from None
            self._md5 = np.concatenate([self._md5, md5])
            self._vectors = np.concatenate([self._vectors, vectors])
        want = np.array([_md5(t) for t in texts], "S16")
        if not np.array_equal(want, self._md5[:len(texts)]):
            first = int(np.argmax(want != self._md5[:len(texts)]))
            raise ValueError(f"{parts_folder(self.kept)}: row {self.served + first} was embedded from another text "
                             f"than {texts[first][:80]!r}: the parts belong to another catalog or chunking")
        out, self._md5, self._vectors = (self._vectors[:len(texts)], self._md5[len(texts):],
                                         self._vectors[len(texts):])
        self.served += len(texts)
        return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("kept", type=Path, help="a size's folder kept by bench.py --keep (holds bench.lance)")
    parser.add_argument("--minutes", type=float, default=30, help="stop starting new parts after this long")
    parser.add_argument("--status", action="store_true", help="only say how far the parts are")
    args = parser.parse_args()
    print(json.dumps(status(args.kept) if args.status else embed(args.kept, args.minutes)))


if __name__ == "__main__":
    main()
