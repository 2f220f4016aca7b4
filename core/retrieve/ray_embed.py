"""Chunking and embedding on a Ray cluster (`asof ingest --ray ADDRESS|auto`), for catalogs one machine encodes
too slowly. Optional: `pip install '.[ray]'`; nothing else imports Ray.

The ingest still validates, looks up reusable vectors and writes DuckDB and LanceDB on this machine
(core/retrieve/writer.py); the objects whose vectors cannot be reused go to the cluster a window at a time, as a
Ray Data dataset of their JSON documents, through `map_batches` on a pool of encoder actors. Each actor loads the
model once: the exported ONNX graph and the tokenizer are read here, from the packaged weights
(core/retrieve/onnx_embed.py), and put in the cluster's object store, so no node downloads anything from a hub
and every node encodes with the same graph as a local ingest. AsOf's own code travels with the job
(`runtime_env` py_modules); the workers' Python needs onnxruntime, tokenizers, numpy and pydantic (the same
pinned versions: requirements.txt).

Crossing the network: the graph once per actor (~90 MB fp32, ~23 MB int8, from the object store), each window's
documents out (~1-2 KB an object) and its rows back (the chunk's text and a 384-float vector: ~2 KB a chunk).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from core.retrieve.writer import ChunkEncoder

# Objects sent to the cluster at a time (one Ray Data execution, one actor pool): a few hundred MB of documents
# and rows at most, and minutes of encoding on a small cluster, so starting the pool (seconds) is a small share.
WINDOW_OBJECTS = 20_000
# Rows per map_batches call on an actor; the actor encodes them in length-sorted batches of BATCH_SIZE, as a
# local ingest does (core/retrieve/embed.py).
ACTOR_BATCH = 512
BATCH_SIZE = 32


class ChunkActor:
    """One encoder on a Ray worker: loads the graph it is given once, then chunks and embeds batches."""

    def __init__(self, graph, tokenizer: str):
        import ray

        from core.retrieve.onnx_embed import OnnxEncoder
        if isinstance(graph, ray.ObjectRef):
            graph = ray.get(graph)
        self.encoder = OnnxEncoder(None, graph=graph, tokenizer=tokenizer, threads=1)

    def _encode(self, texts: list[str]) -> np.ndarray:
        tokens = self.encoder.tokens(texts)
        order = sorted(range(len(tokens)), key=lambda i: -len(tokens[i]))
        out = np.zeros((len(texts), self.encoder.dim), dtype=np.float32)
        for b in range(0, len(order), BATCH_SIZE):
            idx = order[b:b + BATCH_SIZE]
            out[idx] = self.encoder.encode_tokens([tokens[i] for i in idx])
        return out

    def __call__(self, batch: dict) -> dict:
        from core.catalog.evidence import Evidence
        from core.retrieve.index import chunks_of, embedded_text
        if "doc" not in batch:  # texts alone: chunks an object kept whose chunking changed
            return {"n": batch["n"], "vector": list(self._encode(list(batch["text"])))}
        rows: dict[str, list] = {"n": [], "chunk_id": [], "part": [], "text": []}
        heads = []
        for n, doc in zip(batch["n"], batch["doc"]):
            ev = Evidence.model_validate_json(doc)
            for chunk_id, part, text in chunks_of(ev):
                for key, value in zip(("n", "chunk_id", "part", "text"), (int(n), chunk_id, part, text)):
                    rows[key].append(value)
                heads.append(embedded_text(text, ev.kind, part))
        unique = list(dict.fromkeys(heads))
        encoded = self._encode(unique) if unique else np.zeros((0, self.encoder.dim), np.float32)
        position = {text: i for i, text in enumerate(unique)}
        rows["vector"] = [encoded[position[h]] for h in heads]
        return rows


def _package_dir() -> str:
    import core
    return str(Path(core.__file__).resolve().parent)


class RayChunkEncoder(ChunkEncoder):
    """The writer's chunker on a Ray cluster: `rows` and `vectors` as ChunkEncoder computes them locally."""

    batch_objects = WINDOW_OBJECTS

    def __init__(self, encoder, address: str, workers: int | None = None):
        import ray

        from core.retrieve.onnx_embed import export
        super().__init__(encoder)
        if getattr(encoder, "backend", "onnx") == "torch":
            raise ValueError("--ray embeds with ONNX Runtime; unset ASOF_EMBED_BACKEND=torch")
        self.ray = ray
        self.started = not ray.is_initialized()
        if self.started:
            ray.init(address=address, runtime_env={"py_modules": [_package_dir()]}, logging_level="ERROR",
                     log_to_driver=False, configure_logging=False)
        # The graph a local ingest encodes with (exported here once if this machine has not yet).
        graph = export(encoder.model_name, encoder.backend == "onnx-int8", quiet=True)
        self.graph = ray.put(graph.read_bytes())
        self.tokenizer = (Path(encoder.model_name) / "tokenizer.json").read_text()
        self.workers = workers or max(1, int(ray.cluster_resources().get("CPU", 1)))

    def _map(self, items: list[dict]) -> dict[str, list]:
        import logging

        import ray.data
        logging.getLogger("ray.data").setLevel(logging.ERROR)  # the ingest's own progress lines say how far it is
        ctx = ray.data.DataContext.get_current()
        ctx.enable_progress_bars = False
        ctx.verbose_progress = False
        ds = ray.data.from_items(items).map_batches(
            ChunkActor, fn_constructor_kwargs={"graph": self.graph, "tokenizer": self.tokenizer},
            batch_size=ACTOR_BATCH, compute=ray.data.ActorPoolStrategy(size=self.workers), num_cpus=1,
            batch_format="numpy")
        out: dict[str, list] = {}
        for batch in ds.iter_batches(batch_size=None, batch_format="numpy"):
            for key, values in batch.items():
                out.setdefault(key, []).extend(values)
        return out

    def rows(self, objects) -> list[tuple[int, str, str, str, np.ndarray]]:
        got = self._map([{"n": n, "doc": ev.model_dump_json()} for n, ev in enumerate(objects)])
        rows = list(zip([int(n) for n in got.get("n", [])], map(str, got.get("chunk_id", [])),
                        map(str, got.get("part", [])), map(str, got.get("text", [])),
                        [np.asarray(v, dtype=np.float32) for v in got.get("vector", [])]))
        # Back in the objects' order, each object's chunks in their own order (name row, then body 0, 1, ...).
        return sorted(rows, key=lambda r: (r[0], r[2] != "name", int(r[1].rsplit("#", 1)[1]) if r[2] != "name" else 0))

    def vectors(self, heads: list[str]) -> np.ndarray:
        got = self._map([{"n": n, "text": h} for n, h in enumerate(heads)])
        out = np.zeros((len(heads), self.dim), dtype=np.float32)
        for n, v in zip(got.get("n", []), got.get("vector", [])):
            out[int(n)] = v
        return out

    def close(self) -> None:
        if self.started and self.ray.is_initialized():
            self.ray.shutdown()


def ray_chunker(address: str, workers: int | None = None):
    """The `chunker` argument of core/ingest/publish.py `publish` for a Ray cluster at `address` ("auto": the
    cluster this machine belongs to, as `ray start` left it)."""
    return lambda encoder: RayChunkEncoder(encoder, address, workers)
