"""A subject said as "<head> of <thing>" ("the cost of handling"), where every visible metric named by that head noun is
a cost of something else, is the thing the question names: the visible object whose name says it, else whose
description says it as what the object is ("Cost of handling per log ..."), answers. Objects that mention it only as
one item of a list ("Cost of handling, kiln fuel and haulage per log") or as a part ("... less cost of handling") are
asked back, never answered; metrics that merely share the head noun are never offered. With nothing visible saying
it, not-found, read exactly as a made-up subject.

On a sawmill catalog the test writes (none of the demo's names), then on the demo, where finance asking "what is the
cost of goods?" was asked to choose among Contribution margin, Customer acquisition cost and fct_order_costs instead
of getting raw_finance.cogs ("Cost of goods per SKU ...")."""
from __future__ import annotations

from datetime import datetime, timezone

import pytest
from conftest import DEMO_AT, asker

from core.catalog.envelope import Behavior
from core.explain.headline import headline
from core.explain.render import render_text

AT = datetime(2028, 6, 20, 10, 0, tzinfo=timezone.utc)
ROLES = ["office", "yard", "gate"]
SHARERS = ["metric.kiln_drying_cost", "metric.log_haulage_cost"]


def _metric(name: str, title: str, formula: str, text: str, acl: list[str]) -> dict:
    return {"evidence_id": f"metric.{name}.v1", "entity_id": f"metric.{name}", "kind": "metric_definition",
            "title": f"{title} v1", "version": "1", "authority": "authoritative", "lifecycle": "current",
            "authority_class": "semantic_registry", "valid_from": "2028-01-01", "acl": acl,
            "owner": "Mill Controlling (Oona Salo)",
            "metric": {"formula": formula, "grain": "one row per log", "unit": "EUR"}, "text": text}


def _table(kind: str, entity: str, text: str, acl: list[str]) -> list[dict]:
    name = entity.split(".", 1)[1]
    ev = {"evidence_id": f"{entity}.v1", "entity_id": entity, "kind": kind, "title": name, "version": "1",
          "authority": "authoritative", "lifecycle": "current", "authority_class": "dbt_manifest",
          "valid_from": "2028-01-01", "acl": acl, "owner": "Mill IT (Eero Laine)", "text": text}
    if kind == "model":
        ev["model"] = {"relation": f"analytics.{name}", "grain": "one row per log"}
        return [ev]
    return [ev, {"evidence_id": f"freshness.{name}.policy", "entity_id": entity, "kind": "freshness_policy",
                 "title": f"Freshness policy for {name}", "version": "1", "authority": "authoritative",
                 "lifecycle": "current", "authority_class": "dbt_source_config", "valid_from": "2028-01-01",
                 "acl": acl, "freshness": {"warn_after_hours": 24, "error_after_hours": 48,
                                           "loaded_at": "2028-06-20T04:00:00Z"},
                 "text": "Warn after 24 hours, error after 48 hours."}]


EVIDENCE = [
    # Two visible metrics share the head noun "cost": neither is the cost of handling.
    _metric("kiln_drying_cost", "Kiln drying cost", "SUM(kiln_kwh * kwh_eur)", "Energy cost of drying sawn boards.",
            ROLES),
    _metric("log_haulage_cost", "Log haulage cost", "SUM(truck_eur) / COUNT(logs)", "Trucking cost per log.", ROLES),
    # Says the cost of handling as a part taken away, and the model as one item of a list.
    _metric("sawn_margin", "Sawn margin", "SUM(board_eur) - SUM(handling_eur) - SUM(kiln_eur)",
            "Board revenue less cost of handling and kiln drying cost.", ["office", "yard"]),
    *_table("model", "model.fct_log_costs", "Cost of handling, kiln fuel and haulage per log.", ["office", "yard"]),
    # The loaders' shorthand for a name; its description says what an analyst calls the data.
    *_table("source", "source.raw_ledger.coh", "Cost of handling per log from the Birch ledger export.", ["office"]),
]
HIDDEN_MARKS = ("raw_ledger", "coh", "birch")
WORDINGS = ["what is the cost of handling?", "who owns the cost of handling?", "is the cost of handling data up to date?",
            "is cost of handling stale?"]


@pytest.fixture(scope="module")
def ask_mill(tmp_path_factory, embedder):
    return asker(tmp_path_factory, embedder, "mill", ROLES, EVIDENCE, AT)


def _options(env) -> list[str]:
    assert env.behavior is Behavior.clarify, (env.behavior, env.entity_id, env.verdict)
    return [o.entity_id for o in env.clarify.options]


@pytest.mark.parametrize("question", WORDINGS)
def test_the_object_that_says_the_thing_answers(ask_mill, question):
    """The office sees the source saying the cost of handling: it answers, whatever is asked of it. The yard does not:
    the objects mentioning it in passing are asked back, the metrics sharing "cost" are not offered, and nothing of
    the source shows. The gate sees only the sharers: not-found, as for a subject nobody wrote."""
    env = ask_mill(question, "office")
    assert env.entity_id == "source.raw_ledger.coh" and env.behavior is Behavior.answer, (question, env.behavior,
                                                                                        env.entity_id)
    yard = ask_mill(question, "yard")
    # (a question about data lists the model first: core/answer/ask.py _freshness_tables)
    assert sorted(_options(yard)) == ["metric.sawn_margin", "model.fct_log_costs"], (question, _options(yard))
    gate = ask_mill(question, "gate")
    assert gate.behavior is Behavior.not_found_or_not_authorized and gate.entity_id is None, (question, gate.behavior)
    made_up = ask_mill(question.replace("handling", "zorblax"), "gate")
    assert headline(gate) == headline(made_up) and render_text(gate) == render_text(made_up)
    for role_env in (yard, gate):
        shown = (role_env.model_dump_json() + render_text(role_env)).lower()
        assert not [m for m in HIDDEN_MARKS if m in shown], (question, role_env.role)
        assert not [s for s in SHARERS if s in shown], (question, role_env.role)
    # The rule is for a foreign "of" phrase only: the metric's own words after "of" still name it.
    assert ask_mill("what is the cost of kiln drying?", "gate").entity_id == "metric.kiln_drying_cost"
    assert ask_mill("what is the cost of log haulage?", "gate").entity_id == "metric.log_haulage_cost"


# ---- the demo ------------------------------------------------------------------------------------------------

# (freshness wordings, which found the source before: tests/answer/test_freshness_subject.py)
@pytest.mark.parametrize("question", ["what is the cost of goods?", "who owns the cost of goods?",
                                      "what does the cost of all the goods mean?"])
def test_demo_finance_cost_of_goods_is_the_cogs_source(ask_demo, question):
    env = ask_demo(question, "finance", day=None, at=DEMO_AT)
    assert env.behavior is Behavior.answer and env.entity_id == "source.raw_finance.cogs", (question, env.behavior,
                                                                                            env.entity_id)
    # Roles that cannot see the source never hear of it, nor get a cost metric in its place.
    for role in ("marketing", "analyst"):
        other = ask_demo(question, role, day=None, at=DEMO_AT)
        shown = (other.model_dump_json() + render_text(other)).lower()
        assert other.behavior is Behavior.not_found_or_not_authorized, (question, role, other.behavior)
        assert "cogs" not in shown and "raw_finance" not in shown and "customer acquisition cost" not in shown
