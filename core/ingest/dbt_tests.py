"""dbt data tests and described columns, as they are kept on the model or source they are about.

A test is filed on its node's `model.tests`, not as an object of its own: it is then visible exactly where its
node is, with no ACL of its own to keep in step. A test that reads several nodes (`relationships`, a singular
test joining two models) lists them all in `models`, and a role that may not see one of them is not shown the
test (core/catalog/redact.py), since its name and arguments name each.
"""
from __future__ import annotations

from core.ingest.dbt_facts import meta, tags


def node_tests(manifest: dict, results: dict[str, dict] | None = None) -> dict[str, list[dict]]:
    """Each model, seed, snapshot or source's tests, by its unique_id, in the manifest's order, each with its
    severity and its last recorded result (run_results.json; none recorded: no result, never a pass)."""
    results = results or {}
    nodes = manifest.get("nodes") or {}
    out: dict[str, list[dict]] = {}
    for uid, n in nodes.items():
        if not isinstance(n, dict) or n.get("resource_type") != "test":
            continue
        reads = [d for d in ((n.get("depends_on") or {}).get("nodes") or []) if not d.startswith("macro.")]
        meta = n.get("test_metadata") or {}
        generic = bool(meta.get("name"))
        column = (n.get("column_name") or (meta.get("kwargs") or {}).get("column_name")) if generic else None
        # A generic test is about the node it is attached to; a singular test about every node it reads.
        on = [n["attached_node"]] if n.get("attached_node") else reads
        test = {"name": meta["name"] if generic else n.get("name") or uid, "test_id": uid, "generic": generic,
                "column": column or None, "models": list(dict.fromkeys(on + reads))}
        severity = (n.get("config") or {}).get("severity") if isinstance(n.get("config"), dict) else None
        if isinstance(severity, str) and severity.lower() == "warn":  # error is dbt's default: said only when not
            test["severity"] = "warn"
        if uid in results:
            test["result"] = results[uid]
        for node in dict.fromkeys(on):
            out.setdefault(node, []).append(test)
    return out


def column_details(node: dict, typed: dict | None) -> list[dict]:
    """Every column the schema.yml describes or the warehouse catalog types, with its type and description."""
    cols = dict(node.get("columns") or {})
    types = (typed or {}).get("columns") or {}
    out = []
    for name in dict.fromkeys(list(cols) + list(types)):
        kind = (types.get(name) or {}).get("type") or (cols.get(name) or {}).get("data_type")
        desc = ((cols.get(name) or {}).get("description") or "").strip()
        col = cols.get(name) if isinstance(cols.get(name), dict) else {}
        out.append({"name": name, "type": kind or None, "description": desc or None,
                    **{k: v for k, v in (("tags", tags(col)), ("meta", meta(col))) if v}})
    return out

