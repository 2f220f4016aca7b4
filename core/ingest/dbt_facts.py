"""What dbt records about a node beyond its SQL and columns: tags, meta, materialization, enabled, access, contract,
group, and the last recorded run of the node and of each of its tests (run_results.json).

Facts are read as dbt writes them, from the node and from its `config` (dbt 1.6-1.11 keep some in either place),
and kept structured on the object's `model` field, so a question about a model's tags or a listing of incremental
models is answered from the recorded value, never from words found in a description. A run result is kept only
when run_results.json holds one for the node: no result means none was recorded, never a pass.
"""
from __future__ import annotations

from datetime import datetime
from typing import Any

MAX_META_KEYS = 40      # per node; a team's meta is a handful of keys, a generated one may be anything
MAX_META_TEXT = 300     # characters per meta value
MAX_TAGS = 40


def _config(node: dict) -> dict:
    c = node.get("config")
    return c if isinstance(c, dict) else {}


def tags(node: dict) -> list[str]:
    """The node's tags: its own and its config's (dbt merges project-level tags into config.tags)."""
    found: list[str] = []
    for value in (node.get("tags"), _config(node).get("tags")):
        if isinstance(value, str):
            value = [value]
        found += [t.strip() for t in value or [] if isinstance(t, str) and t.strip()]
    return list(dict.fromkeys(found))[:MAX_TAGS]


def _scalar(value: Any) -> Any:
    if isinstance(value, bool) or value is None or isinstance(value, (int, float)):
        return value
    return str(value)[:MAX_META_TEXT]


def meta(node: dict) -> dict[str, Any]:
    """meta and config.meta merged (config's wins: it is where dbt puts what schema.yml's `config:` sets); nested
    mappings flattened to dotted keys (`pii.level`), values kept as JSON scalars or lists of them."""
    merged: dict[str, Any] = {}
    for value in (node.get("meta"), _config(node).get("meta")):
        if isinstance(value, dict):
            merged.update(value)
    out: dict[str, Any] = {}

    def put(key: str, value: Any) -> None:
        if len(out) >= MAX_META_KEYS:
            return
        if isinstance(value, dict):
            for k, v in value.items():
                put(f"{key}.{k}", v)
        elif isinstance(value, (list, tuple)):
            out[key] = [_scalar(v) for v in value if not isinstance(v, (dict, list))][:MAX_TAGS]
        else:
            out[key] = _scalar(value)

    for key, value in merged.items():
        put(str(key), value)
    return out


def node_facts(node: dict, enabled: bool = True) -> dict[str, Any]:
    """The structured facts a model, seed, snapshot or source carries (only those dbt records)."""
    config = _config(node)
    contract = node.get("contract") if isinstance(node.get("contract"), dict) else config.get("contract")
    facts = {"tags": tags(node), "meta": meta(node),
             "materialized": config.get("materialized") if isinstance(config.get("materialized"), str) else None,
             "enabled": False if not enabled or config.get("enabled") is False else None,
             "access": node.get("access") or config.get("access") or None,
             "contract": True if isinstance(contract, dict) and contract.get("enforced") else None,
             "group": node.get("group") or config.get("group") or None}
    return {k: v for k, v in facts.items() if v not in (None, [], {})}


def run_results(art_results: dict | None) -> dict[str, dict]:
    """Each node's and test's last recorded outcome by unique_id, as RunResult fields."""
    results = (art_results or {}).get("results") or []
    generated = ((art_results or {}).get("metadata") or {}).get("generated_at")
    out: dict[str, dict] = {}
    for r in results:
        if not isinstance(r, dict) or not isinstance(r.get("unique_id"), str) or not r.get("status"):
            continue
        timing = [t for t in r.get("timing") or [] if isinstance(t, dict)]
        done = next((t.get("completed_at") for t in timing if t.get("name") == "execute"), None) or generated
        seconds = r.get("execution_time")
        failures = r.get("failures")
        out[r["unique_id"]] = {
            "status": str(r["status"]).lower(),
            "completed_at": _when(done),
            "execution_time_s": round(float(seconds), 3) if isinstance(seconds, (int, float)) and seconds >= 0 else None,
            "failures": failures if isinstance(failures, int) and not isinstance(failures, bool) else None,
            "message": str(r["message"])[:MAX_META_TEXT] if r.get("message") else None}
    return out


def _when(value: Any) -> str | None:
    if not isinstance(value, str) or not value:
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00")).isoformat()
    except ValueError:
        return None
