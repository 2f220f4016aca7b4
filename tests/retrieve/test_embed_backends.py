"""The embedding backends a user can pick compute the same vectors, and a CLI answer never imports torch.

Speed itself is measured by benchmarks/dbt_ingest.py, not here.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from core.retrieve.embed import Embedder

ROOT = Path(__file__).resolve().parents[2]

# Lengths from two words to a ~200-token chunk, in one batch: padding and truncation both matter.
TEXTS = [
    "net revenue",
    "Which raw sources feed the weekly business review dashboard?",
    "Net revenue is captured payments minus refunds and chargebacks, excluding tax and shipping.",
    "raw_sales.orders Relation acme.raw_sales.orders. Columns: id, updated_at. dbt source raw_sales.orders. "
    "Loads from the sales system. Raw orders rows as loaded from the sales system. " * 6,
    "fct_order_lines. fct order line. dbt model fct_order_lines. One row per order line.",
]


def test_onnx_vectors_match_sentence_transformers():
    """Switching ASOF_EMBED_BACKEND between torch and onnx must not change what search finds."""
    torch_vecs = Embedder(backend="torch").encode(TEXTS)
    onnx_vecs = Embedder(backend="onnx").encode(TEXTS)
    assert onnx_vecs.shape == torch_vecs.shape == (len(TEXTS), 384)
    cosine = (torch_vecs * onnx_vecs).sum(axis=1)
    assert cosine.min() > 0.9999, cosine
    # One text alone (no padding) gets the vector it gets inside a padded batch.
    alone = Embedder(backend="onnx").encode(TEXTS[:1])[0]
    assert float(alone @ onnx_vecs[0]) > 0.9999


def test_unknown_backend_is_named(monkeypatch):
    monkeypatch.setenv("ASOF_EMBED_BACKEND", "tensorflow")
    with pytest.raises(ValueError, match="ASOF_EMBED_BACKEND='tensorflow' is not one of torch, onnx, onnx-int8"):
        Embedder()


def _cold_ask(store, probe: str):
    """`probe` run as a fresh process answering one question with the default backends, no LLM."""
    env = {k: v for k, v in os.environ.items() if k not in ("ASOF_EMBED_BACKEND", "ASOF_LLM_MODEL")}
    out = subprocess.run([sys.executable, "-c", probe, "ask", "--db", str(store.path), "--role", "analyst",
                          "What was net revenue in March 2024?"], cwd=ROOT, env={**env, "PYTHONPATH": str(ROOT)},
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "[answer]" in out.stdout
    return out


def test_cli_answer_does_not_import_torch(demo, tmp_path):
    """A cold `python -m core ask` with the default backend loads neither torch nor sentence-transformers
    (4-6 s of imports), nor litellm when no LLM is configured, nor pandas (pulled in by pyarrow.dataset under
    Lance: a fifth of a cold answer) or scipy (once the full-text counts' sparse matrix)."""
    store, _ = demo
    probe = ("import sys; from core.serve.cli import main; rc = main(sys.argv[1:]); "
             "heavy = sorted(m for m in ('torch', 'sentence_transformers', 'transformers', 'litellm', 'pandas', "
             "'scipy') if m in sys.modules); print('HEAVY', heavy); raise SystemExit(rc)")
    out = _cold_ask(store, probe)
    assert "HEAVY []" in out.stdout, out.stdout[-500:]


def test_cold_cli_definition_answer_does_only_its_own_work(demo):
    """A cold `python -m core ask` of a definition question compiles none of the listing patterns (it names no kind in
    the plural nor a freshness word, so none can match it: core/read/intents/gated.py) and runs no pass of the cyclic
    garbage collector, which freed nothing in a process that exits after one answer; a caller of `main` in its own
    process gets its collector back. It imports neither the ingest nor the LLM explanation, which it does not run."""
    store, _ = demo
    # Collections counted while the answer runs (cli._answer), so none the caller's own code triggers after it.
    probe = ("import gc, sys; import core.serve.cli as cli; from core.read.intents import intent; "
             "from core.read.intents.gated import Gated; passes = []; inside = [False]; "
             "gc.callbacks.append(lambda phase, info: passes.append(info['generation']) "
             "if phase == 'start' and inside[0] else None); answer = cli._answer\n"
             "def timed(*a, **k):\n inside[0] = True\n try: return answer(*a, **k)\n finally: inside[0] = False\n"
             "cli._answer = timed; rc = cli.main(sys.argv[1:]); "
             "gated = [p for _, p in intent.INTENTS if isinstance(p, Gated)]; "
             "print('COMPILED', [p.is_compiled for p in gated]); "
             "print('COLLECTED', passes, gc.isenabled()); "
             "print('IMPORTED', [m for m in ('core.ingest.ingest', 'core.explain.explain') if m in sys.modules]); "
             "raise SystemExit(rc)")
    out = _cold_ask(store, probe)
    compiled = next(line for line in out.stdout.splitlines() if line.startswith("COMPILED"))
    assert "False" in compiled and "True" not in compiled, out.stdout[-500:]
    assert "COLLECTED [] True" in out.stdout, out.stdout[-500:]
    assert "IMPORTED []" in out.stdout, out.stdout[-500:]


def test_weights_kept_beside_the_graph_give_the_same_vectors(tmp_path):
    """The encoder opens the exported graph with its weights in a file beside it (read by ONNX Runtime without
    parsing them out of the graph: half the time to open a cold answer's encoder); its vectors are the ones the
    graph as exported gives, and a second call reuses the file written by the first."""
    from core.retrieve.onnx_embed import OnnxEncoder, default_model_path, export, with_external_weights
    model = default_model_path()
    graph = tmp_path / "minilm.onnx"
    graph.write_bytes(export(model).read_bytes())
    split = with_external_weights(graph)
    assert split != graph and split.stat().st_size < 1_000_000 < (split.parent / f"{split.name}.data").stat().st_size
    assert with_external_weights(graph) == split
    tokenizer = (Path(model) / "tokenizer.json").read_text()
    whole = OnnxEncoder(None, graph=str(graph), tokenizer=tokenizer).encode(TEXTS)
    beside = OnnxEncoder(None, graph=str(split), tokenizer=tokenizer).encode(TEXTS)
    assert (whole == beside).all()
    # What an ingest and an answer load by default: the graph with its weights beside it.
    assert OnnxEncoder(model).path.endswith("-external.onnx")


@pytest.mark.parametrize("backend", ["onnx", "onnx-int8"])
def test_long_input_on_worker_sessions_gets_the_same_vectors(backend, monkeypatch):
    """An ingest's long input is spread over one single-threaded session per core; every vector is the one a
    single session computes (with int8 a vector depends on its batch, so the batches must be the same)."""
    monkeypatch.setenv("ASOF_EMBED_THREADS", "2")
    texts = [f"{t} {i}" for i in range(40) for t in TEXTS]  # 200 texts: several batches, longest first
    pooled = Embedder(backend=backend)
    single = Embedder(backend=backend)
    single.__dict__["_workers"] = None  # what a one-core machine does
    seen = []
    a = pooled.encode(texts, progress=lambda done, total: seen.append((done, total)))
    b = single.encode(texts)
    assert pooled._workers is not None and len(pooled._workers) == 2
    assert a.shape == (len(texts), 384)
    assert (a == b).all()
    assert seen[-1] == (len(texts), len(texts))


def test_long_input_batched_by_tokens_gets_each_texts_own_vector():
    """A long input is tokenized first and batched by token count (padding its own); every text still gets the
    vector it gets when encoded alone, as a question is, so an ingest's rows and a question's vector agree."""
    texts = [f"{t} {i}" for i in range(20) for t in TEXTS]
    embedder = Embedder(backend="onnx")
    together = embedder.encode(texts)
    alone = [embedder.encode([t])[0] for t in texts[::7]]
    cosine = [float(a @ b) for a, b in zip(alone, together[::7])]
    assert min(cosine) > 0.99999, cosine
