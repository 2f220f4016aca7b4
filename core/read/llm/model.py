"""One call to a language model through litellm, and a tolerant reader of what comes back.

litellm is imported here and only here, on first use: it costs about 3 s and, without
LITELLM_LOCAL_MODEL_COST_MAP, reaches for the network at import.
"""
from __future__ import annotations

import json
import re
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout

from core.catalog.explanation import Cited
from core.settings.config import apply_offline_env


class ModelFailure(RuntimeError):
    """The model could not give a usable answer (error, timeout or unreadable reply)."""


def _litellm():
    apply_offline_env()
    import litellm
    return litellm


def complete(model: str, messages: list[dict], timeout_s: float) -> str:
    litellm = _litellm()

    def call():
        resp = litellm.completion(model=model, messages=messages, temperature=0, timeout=timeout_s,
                                  response_format={"type": "json_object"}, drop_params=True, num_retries=0)
        return resp.choices[0].message.content or ""

    # A provider that ignores `timeout` must still not hold the answer hostage.
    pool = ThreadPoolExecutor(max_workers=1)
    try:
        return pool.submit(call).result(timeout=timeout_s)
    except FutureTimeout as exc:
        raise ModelFailure(f"{model} did not answer within {timeout_s:g} s") from exc
    except Exception as exc:  # litellm raises provider-specific types; all mean "no answer"
        raise ModelFailure(f"{model} failed: {type(exc).__name__}: {str(exc)[:200]}") from exc
    finally:
        pool.shutdown(wait=False)


_FENCE = re.compile(r"^```(?:json)?\s*|\s*```$", re.M)
_BRACKETS = re.compile(r"\s*\[([^\[\]]+)\]\s*$")


def parse(content: str) -> list[Cited]:
    """Sentences with citations from JSON (object or bare list, fenced or not) or from 'text [id, id]' lines."""
    body = _FENCE.sub("", content.strip()).strip()
    data = None
    for candidate in (body, body[body.find("{"):body.rfind("}") + 1], body[body.find("["):body.rfind("]") + 1]):
        try:
            data = json.loads(candidate)
            break
        except (json.JSONDecodeError, ValueError):
            continue
    if isinstance(data, dict):
        data = data.get("sentences", data.get("explanation"))
    if isinstance(data, list):
        out = []
        for item in data:
            if not isinstance(item, dict) or not isinstance(item.get("text"), str):
                raise ModelFailure("reply JSON has a sentence without a 'text' string")
            cites = item.get("citations", item.get("cites", []))
            if isinstance(cites, str):
                cites = [cites]
            if not isinstance(cites, list) or not all(isinstance(c, str) for c in cites):
                raise ModelFailure("reply JSON has citations that are not a list of ids")
            out.append(Cited(text=item["text"].strip(), citations=[c.strip() for c in cites]))
        if out:
            return out
        raise ModelFailure("reply has no sentences")
    lines = [ln.strip(" -*") for ln in body.splitlines() if ln.strip()]
    out = []
    for ln in lines:
        m = _BRACKETS.search(ln)
        if not m:
            raise ModelFailure("reply is neither the requested JSON nor cited sentences")
        out.append(Cited(text=ln[:m.start()].strip(), citations=[c.strip() for c in m.group(1).split(",")]))
    if not out:
        raise ModelFailure("empty reply")
    return out


def ask_model(model: str, messages: list[dict], timeout_s: float, attempts: int = 2) -> list[Cited]:
    """Call and parse, retrying once on any failure; raise ModelFailure with the last reason."""
    reason = ""
    for _ in range(attempts):
        try:
            return parse(complete(model, messages, timeout_s))
        except ModelFailure as exc:
            reason = str(exc)
    raise ModelFailure(reason)
