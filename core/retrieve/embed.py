"""Sentence embeddings from packaged, offline weights. Imported lazily: sentence-transformers costs 4-6 s.

Two backends compute the same all-MiniLM-L6-v2 vectors: "torch" (sentence-transformers) and "onnx" (the
same weights exported once to ONNX Runtime, see core/retrieve/onnx_embed.py); "onnx-int8" is the dynamically
quantized graph. ASOF_EMBED_BACKEND picks one for every index. Unset, an index is embedded at full precision
below LARGE_INDEX_ROWS rows and with int8 from there on (`Embedder.for_rows`): encoding is most of a large
catalog's first ingest, and int8 halves it. Each index row records the precision of its vector
(`precision_of`), and questions are embedded with the precision of the index they search.
"""
from __future__ import annotations

import os
import queue
import threading
from concurrent.futures import ThreadPoolExecutor
from functools import cached_property

import numpy as np

from core.retrieve.onnx_embed import default_model_path, default_threads
from core.settings import budget

# Measured in benchmarks/results/dbt_ingest.md: same vectors (cosine >= 0.99999), faster encode, no torch import.
DEFAULT_BACKEND = "onnx"
BACKENDS = ("torch", "onnx", "onnx-int8")


# From here on (chunk rows of one index) vectors are int8-encoded unless ASOF_EMBED_BACKEND says otherwise; the
# same threshold from which the index gets an ANN vector index (core/retrieve/ann.py), so small catalogs (the
# demo, the research suites, a team's catalog) keep the full-precision vectors every test was written against.
LARGE_INDEX_ROWS = 10_000


def chosen_backend() -> str | None:
    """The backend ASOF_EMBED_BACKEND names, else None (chosen per index by size)."""
    backend = os.environ.get("ASOF_EMBED_BACKEND") or None
    if backend is not None and backend not in BACKENDS:
        raise ValueError(f"ASOF_EMBED_BACKEND={backend!r} is not one of {', '.join(BACKENDS)}")
    return backend


def default_backend() -> str:
    return chosen_backend() or DEFAULT_BACKEND


def precision_of(backend: str) -> str:
    """What a vector records: torch and onnx compute the same full-precision vectors (cosine >= 0.99999)."""
    return "int8" if backend == "onnx-int8" else "fp32"


class Embedder:
    def __init__(self, model: str | None = None, batch_size: int = 32, backend: str | None = None):
        self.model_name = model or default_model_path()
        self.batch_size = batch_size
        self.chosen = backend or chosen_backend()  # None: per index, by size (for_rows)
        self.backend = self.chosen or DEFAULT_BACKEND
        if self.backend not in BACKENDS:
            raise ValueError(f"embedding backend {self.backend!r} is not one of {', '.join(BACKENDS)}")
        # A fast tokenizer raises "Already borrowed" when two threads encode through it at once.
        self._lock = threading.Lock()
        self._pool_lock = threading.Lock()  # one long encode at a time uses the worker sessions
        self._variants: dict[str, Embedder] = {self.backend: self}

    @property
    def precision(self) -> str:
        return precision_of(self.backend)

    def variant(self, backend: str) -> "Embedder":
        """The same model through another backend, loaded once per process and shared (the app's cached
        embedder serves a small and a large catalog alike)."""
        with self._lock:
            if backend not in self._variants:
                self._variants[backend] = Embedder(self.model_name, self.batch_size, backend)
            return self._variants[backend]

    def for_rows(self, rows: int) -> "Embedder":
        """The encoder for an index of `rows` chunk rows: the chosen backend, else int8 for large indexes."""
        if self.chosen:
            return self
        return self.variant("onnx-int8" if rows >= LARGE_INDEX_ROWS else DEFAULT_BACKEND)

    def for_precision(self, precision: str) -> "Embedder":
        """The encoder whose question vectors match an index whose rows record `precision`."""
        if precision == self.precision:
            return self
        return self.variant("onnx-int8" if precision == "int8" else DEFAULT_BACKEND)

    @cached_property
    def model(self):
        """The loaded encoder; nothing is imported or loaded until the first text is encoded."""
        with budget.not_counted():  # once per process: not the time budget of the question that loads it
            return self._load()

    def _load(self):
        if self.backend != "torch":
            from core.retrieve.onnx_embed import OnnxEncoder
            return OnnxEncoder(self.model_name, quantized=self.backend == "onnx-int8")
        import torch
        from sentence_transformers import SentenceTransformer

        torch.set_num_threads(default_threads())
        return SentenceTransformer(self.model_name, device="cpu")

    @property
    def dim(self) -> int:
        if self.backend != "torch":
            return self.model.dim
        return self.model.get_embedding_dimension()

    @cached_property
    def _workers(self) -> list | None:
        """Single-threaded ONNX sessions, one per core, for long inputs: on this 2-core machine two sessions of one
        thread each encoded 1.5x the rows a second of one two-thread session on a 3,000-text sample, and about 10%
        more over a whole 100k ingest (docs/scale.md, "Benchmarks side by side"). None where that cannot help:
        one core, or the torch backend. Loaded at the first long encode, not by a question."""
        threads = default_threads()
        if self.backend == "torch" or threads < 2:
            return None
        from core.retrieve.onnx_embed import OnnxEncoder
        with budget.not_counted():
            return [OnnxEncoder(self.model_name, quantized=self.backend == "onnx-int8", threads=1)
                    for _ in range(threads)]

    def _batch(self, texts: list[str]) -> np.ndarray:
        if self.backend != "torch":
            return self.model.encode(texts)
        return self.model.encode(texts, batch_size=len(texts), normalize_embeddings=True, convert_to_numpy=True,
                                 show_progress_bar=False).astype(np.float32)

    def encode(self, texts: list[str], progress=None) -> np.ndarray:
        """Unit-length float32 vectors, in input order; `progress(done, total)` is called per step."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        if self.backend == "torch" or len(texts) <= self.batch_size:  # a question, or sentence-transformers
            batches = self._batches([len(t) for t in texts])
            return self._run(batches, lambda _, idx: self._batch([texts[i] for i in idx]), [self], progress)
        # One long encode at a time: it tokenizes on the encoder's unpadded tokenizer and uses the worker sessions.
        with self._pool_lock:
            tokens = self.model.tokens(texts)
            # Longest first in tokens, so a batch pads little: sorted by characters, padding was 19% of the
            # tokens encoded on the synthetic benchmark catalog, by tokens 0.2% (docs/scale.md).
            batches = self._batches([len(t) for t in tokens])
            # The same batches either way: with int8 a vector depends on its batch (activations are quantized
            # per batch), so a long input gives the vectors a one-session run gives.
            workers = (self._workers if len(batches) >= 4 else None) or [self.model]
            return self._run(batches, lambda session, idx: session.encode_tokens([tokens[i] for i in idx]),
                             workers, progress)

    def _batches(self, lengths: list[int]) -> list[list[int]]:
        """Input positions in batches, longest first (and a too-long text shows up at once)."""
        order = sorted(range(len(lengths)), key=lambda i: -lengths[i])
        return [order[b:b + self.batch_size] for b in range(0, len(order), self.batch_size)]

    def _run(self, batches: list[list[int]], encode, sessions: list, progress) -> np.ndarray:
        """Each batch's vectors from `encode(session, batch)`, back in input order. One session: this embedder's
        own, under its lock (a question may be encoding on it). Several: the worker sessions, each used by one
        thread at a time."""
        total = sum(map(len, batches))
        out = np.zeros((total, self.dim), dtype=np.float32)
        step = 8 * len(sessions)  # batches between progress reports

        def report(start: int) -> None:
            if progress:
                progress(min((start + step) * self.batch_size, total), total)

        if len(sessions) == 1:
            for start in range(0, len(batches), step):
                for idx in batches[start:start + step]:
                    with self._lock:
                        out[idx] = encode(sessions[0], idx)
                report(start)
            return out
        idle: queue.Queue = queue.Queue()
        for session in sessions:
            idle.put(session)

        def work(idx: list[int]) -> None:
            session = idle.get()
            try:
                out[idx] = encode(session, idx)
            finally:
                idle.put(session)

        with ThreadPoolExecutor(max_workers=len(sessions)) as pool:
            for start in range(0, len(batches), step):
                list(pool.map(work, batches[start:start + step]))
                report(start)
        return out
