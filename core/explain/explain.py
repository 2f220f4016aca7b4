"""The explainer: one entry point from an envelope to a validated, cited explanation.

Without a configured model the deterministic prose is the explanation. With one, the model writes from the
envelope's evidence only; the citation validator, not the model, decides what may be shown, and any failure
falls back to the deterministic prose.
"""
from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Callable

from core.catalog.envelope import Envelope
from core.catalog.explanation import DETERMINISTIC, Explanation
from core.explain.citations import validate
from core.explain.prompt import build_messages
from core.explain.prose import explain_deterministic
from core.read.llm.model import ModelFailure, ask_model

MaySee = Callable[[set[str]], set[str]]  # ids -> the subset the requester may see


class ExplanationCache:
    """Validated model explanations on disk, keyed by everything they depend on.

    Keys carry the role and revisions, so a re-ingest or permission change never serves an old text; a hit is
    still re-validated against the current envelope before it is shown.
    """

    def __init__(self, folder: str | Path):
        self.folder = Path(folder)

    @staticmethod
    def key(env: Envelope, question: str, model: str) -> str:
        index = env.index.model_dump_json() if env.index else "none"
        parts = [env.role, env.catalog_revision, hashlib.sha256(index.encode()).hexdigest(), question,
                 str(env.reporting_date or ""), str(env.period_start or ""), str(env.period_end or ""), model]
        return hashlib.sha256(json.dumps(parts).encode()).hexdigest()

    def get(self, key: str) -> Explanation | None:
        path = self.folder / f"{key}.json"
        try:
            return Explanation.model_validate_json(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None

    def put(self, key: str, explanation: Explanation) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.folder, suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(explanation.model_dump_json())
        os.replace(tmp, self.folder / f"{key}.json")


def cache_for(db_path: str | Path) -> ExplanationCache:
    return ExplanationCache(Path(str(db_path) + ".explanations"))


def deterministic(env: Envelope, may_see: MaySee, reason: str | None = None) -> Explanation:
    sentences = explain_deterministic(env)
    shown, validation = validate(sentences, env, may_see({c for s in sentences for c in s.citations}))
    return Explanation.of(shown or sentences, DETERMINISTIC, validation, fallback_reason=reason)


def explain(env: Envelope, question: str, may_see: MaySee, model: str | None = None, timeout_s: float = 30.0,
            cache: ExplanationCache | None = None) -> Explanation:
    if not model:
        return deterministic(env, may_see)
    if not env.evidence_ids():
        return deterministic(env, may_see, reason="no evidence to explain beyond the resolver's decision")
    key = ExplanationCache.key(env, question, model)
    if cache:
        hit = cache.get(key)
        if hit:
            shown, validation = validate(hit.sentences, env, may_see({c for s in hit.sentences for c in s.citations}))
            if validation.passed:
                return hit
    try:
        sentences = ask_model(model, build_messages(env, question), timeout_s)
    except ModelFailure as exc:
        return deterministic(env, may_see, reason=str(exc))
    shown, validation = validate(sentences, env, may_see({c for s in sentences for c in s.citations}))
    if not shown:
        failed = "; ".join(p.detail for p in validation.problems[:3])
        fallback = deterministic(env, may_see, reason=f"the model's explanation failed citation checks: {failed}")
        # Keep the model's problems on record: they are why the fallback was shown.
        return fallback.model_copy(update={"validation": validation.model_copy(update={"passed": False})})
    result = Explanation.of(shown, model, validation)
    if cache and validation.passed:
        cache.put(key, result)
    return result
