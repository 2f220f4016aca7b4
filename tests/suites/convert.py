"""Converts the research suites in tests/fixtures/research (copied from the brief) into AsOf's catalog format and gold cases.

Run `python tests/suites/convert.py` to regenerate the JSON files beside this script; a test checks
they match a fresh conversion. Facts the fixtures state only in prose (suite A's lineage arrows,
model references and freshness thresholds) are written out here as explicit fields, because the
product reads lineage from edges and never from prose.
"""
from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
SHARED = HERE.parent / "fixtures" / "research"

# ---- suite A --------------------------------------------------------------------------------
A_KIND = {"metric_definition": "metric_definition", "dbt_model_schema": "model", "lineage": "lineage",
          "freshness_policy": "freshness_policy", "handbook": "documentation", "draft_memo": "documentation",
          "finance_policy": "policy", "governance_policy": "policy"}
A_AUTHORITY_CLASS = {"metric_definition": "semantic_registry", "dbt_model_schema": "dbt_manifest",
                     "lineage": "dbt_manifest", "freshness_policy": "dbt_source_config", "handbook": "wiki",
                     "draft_memo": "finance_draft", "finance_policy": "finance_policy",
                     "governance_policy": "governance"}
A_EXTRA = {
    # "Supported by dbt model ref('fct_orders', version=N)."
    "metric.net_revenue.v1": {"links": {"implemented_by": ["model.fct_orders.v1"]},
                              "metric": {"formula": "SUM(order_total_usd) - SUM(refund_amount_usd)",
                                         "grain": "one row per order after aggregation", "unit": "USD"}},
    "metric.net_revenue.v2": {"links": {"implemented_by": ["model.fct_orders.v2"]},
                              "metric": {"formula": "SUM(captured_payment_usd) - SUM(refund_amount_usd) - SUM(chargeback_amount_usd)",
                                         "grain": "one row per order after payment-event aggregation", "unit": "USD"}},
    "model.fct_orders.v1": {"model": {"relation": "fct_orders_v1", "grain": "one row per order",
                                      "primary_key": ["order_id"],
                                      "columns": ["order_id", "ordered_at", "order_total_usd", "refund_amount_usd"]}},
    "model.fct_orders.v2": {"model": {"relation": "fct_orders_v2", "grain": "one row per order",
                                      "primary_key": ["order_id"],
                                      "columns": ["order_id", "ordered_at", "captured_payment_usd", "refund_amount_usd",
                                                  "chargeback_amount_usd"]}},
    # "raw_app.orders -> stg_orders -> fct_orders version 1"
    "lineage.fct_orders.v1": {"edges": [["source.raw_app.orders", "model.stg_orders"],
                                        ["model.stg_orders", "model.fct_orders.v1"],
                                        ["model.fct_orders.v1", "metric.net_revenue.v1"]]},
    # "... ; raw_payments.payment_events -> stg_payment_events -> fct_orders version 2"
    "lineage.fct_orders.v2": {"edges": [["source.raw_app.orders", "model.stg_orders"],
                                        ["model.stg_orders", "model.fct_orders.v2"],
                                        ["source.raw_payments.payment_events", "model.stg_payment_events"],
                                        ["model.stg_payment_events", "model.fct_orders.v2"],
                                        ["model.fct_orders.v2", "metric.net_revenue.v2"]]},
    # "warn if loaded_at is older than 2 hours; error if older than 6 hours"
    "freshness.raw_payments.payment_events": {"freshness": {"warn_after_hours": 2, "error_after_hours": 6}},
}


def convert_a(suite: dict) -> tuple[dict, list[dict]]:
    evidence = []
    for o in suite["corpus"]:
        status = o["status"]
        ev = {
            "evidence_id": o["id"], "entity_id": o["entity_id"], "kind": A_KIND[o["type"]], "title": o["title"],
            "text": o["text"], "version": o["version"],
            "authority": "authoritative" if status == "authoritative" else "non_authoritative",
            "lifecycle": ("current" if o["valid_to"] is None else "historical") if status == "authoritative" else status,
            "authority_class": A_AUTHORITY_CLASS[o["type"]], "valid_from": o["valid_from"], "valid_to": o["valid_to"],
            "acl": o["acl"], "source_uri": o["source_uri"],
        }
        if o.get("supersedes"):
            ev["supersedes"] = o["supersedes"]
        ev.update(A_EXTRA.get(o["id"], {}))
        evidence.append(ev)
    behaviors = {"answer": ["answer"], "conflict": ["answer"], "clarify": ["clarify"],
                 # Suite A has no separate not-found state: its "abstain" covers an unknown metric.
                 "deny_or_abstain": ["not_found_or_not_authorized"],
                 "abstain": ["abstain", "not_found_or_not_authorized"]}
    gold = []
    for g in suite["gold"]:
        gold.append({"id": f"A-{g['id']}", "question": g["query"], "role": g["role"], "date": g["as_of"],
                     "behaviors": behaviors[g["behavior"]],
                     "governs": [g["selected"]] if g["selected"] else [],
                     "surfaces": [r for r in g["required"] if r != g["selected"]],
                     "forbidden": g.get("forbidden", [])})
    return {"roles": ["analyst", "finance"], "evidence": evidence}, gold


# ---- suite B --------------------------------------------------------------------------------
B_KIND = {"metric_definition": "metric_definition", "dbt_model_schema": "model", "lineage_graph": "lineage",
          "documentation": "documentation", "policy": "policy", "source_freshness": "freshness_policy",
          "untrusted_note": "note"}
B_ACTION = {"ANSWER_V1": ["answer"], "ANSWER_V2": ["answer"], "ANSWER_LINEAGE": ["answer"],
            "CLARIFY_REPORTING_DATE": ["clarify"], "REJECT_SUPERSEDED": ["answer"],
            "DENY": ["not_found_or_not_authorized"], "CALCULATE_FRESHNESS": ["answer"],
            "ABSTAIN_NO_AUTHORITY": ["abstain"],
            # The request is refused; the envelope still carries the registry's governed answer.
            "IGNORE_DOCUMENT_INSTRUCTIONS": ["refuse"], "REJECT_WRONG_VERSION": ["answer"]}


def convert_b(suite: dict) -> tuple[dict, list[dict]]:
    evidence, kinds = [], {}
    for o in suite["corpus"]:
        state = o["authority_state"]
        ev = {
            "evidence_id": o["id"], "entity_id": o["object_key"], "kind": B_KIND[o["kind"]], "title": o["title"],
            "text": o["content"], "version": o["version"],
            "authority": {"authoritative": "authoritative", "non_authoritative": "non_authoritative",
                          "draft": "non_authoritative", "untrusted": "untrusted"}[state],
            "lifecycle": o["lifecycle"], "authority_class": o["authority"],
            "valid_from": o["effective_from"], "valid_to": o["effective_to"], "acl": o["acl_roles"],
            "source_revision": o["revision"],
        }
        if o.get("superseded_by"):
            ev["superseded_by"] = o["superseded_by"]
        if o.get("links", {}).get("model"):
            ev["links"] = {"implemented_by": [o["links"]["model"]]}
        if o.get("edges"):
            ev["edges"] = o["edges"]
        if "warn_after_hours" in o:
            ev["freshness"] = {"warn_after_hours": o["warn_after_hours"], "error_after_hours": o["error_after_hours"],
                               "loaded_at": o.get("last_loaded_at")}
        kinds[o["id"]] = ev["kind"]
        evidence.append(ev)
    gold = []
    for g in suite["gold"]:
        governing_kinds = {"metric_definition", "model", "lineage", "freshness_policy", "policy"}
        non_gov = {e["evidence_id"] for e in evidence if e["authority"] != "authoritative"}
        case = {"id": f"B-{g['id']}", "question": g["query"], "role": g["roles"][0], "date": None,
                "behaviors": B_ACTION[g["action"]],
                "governs": [i for i in g["selected_ids"] if kinds[i] in governing_kinds and i not in non_gov],
                "surfaces": [i for i in g["selected_ids"] if i in non_gov],
                "forbidden": g["forbidden_ids"]}
        if g["action"] == "CALCULATE_FRESHNESS":
            case["freshness"] = {"source.shop.order_lines": "pass"}  # 5.5 h old <= warn 6 h
        gold.append(case)
    return {"roles": ["analytics", "finance", "finance_restricted"], "evidence": evidence}, gold


# Issue 19 item 3: with no reporting date and one version in effect on the evaluation date, AsOf answers for
# that day and names the other versions; the research suites ask back. These undated cases expect that answer.
NO_DATE_ANSWERS = {"A-Q7": "metric.net_revenue.v2", "B-G4": "metric.standard_revenue.v2"}


def _no_date_answers(gold: list[dict]) -> list[dict]:
    for case in gold:
        if case["id"] in NO_DATE_ANSWERS:
            assert case["date"] is None and case["behaviors"] == ["clarify"], case
            case["behaviors"], case["governs"] = ["answer"], [NO_DATE_ANSWERS[case["id"]]]
    return gold


def convert_all() -> dict[str, object]:
    out: dict[str, object] = {}
    for name, fn in (("suite_a", convert_a), ("suite_b", convert_b)):
        catalog, gold = fn(json.loads((SHARED / f"{name}.json").read_text()))
        gold = _no_date_answers(gold)
        out[f"{name}.catalog.json"] = catalog
        out[f"{name}.gold.json"] = gold
    return out


if __name__ == "__main__":
    for fname, data in convert_all().items():
        (HERE / fname).write_text(json.dumps(data, indent=2) + "\n")
        print("wrote", HERE / fname)
