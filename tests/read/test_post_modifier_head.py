"""An "of" phrase after a metric's head noun qualifies it as a word before it does: "the cost of freight" names a
cost, but not Order fulfilment cost, exactly as "freight cost" would not. A role that cannot see the freight cost
gets not-found, read the same as for a made-up subject; a role that can see it gets it. Where the phrase holds the
metric's own words ("the rate of damage" for Damage rate) it is that metric's paraphrase and still finds it.

On a depot catalog the test writes (none of the demo's names), then on the demo, where marketing asking "is the
cost of goods data up to date?" was answered with Customer acquisition cost."""
from __future__ import annotations

from datetime import datetime, timezone

import pytest
from conftest import DEMO_AT, asker

from core.catalog.envelope import Behavior
from core.explain.headline import headline
from core.explain.render import render_text

AT = datetime(2027, 4, 2, 9, 0, tzinfo=timezone.utc)
ROLES = ["dispatch", "ledger"]


def _metric(name: str, title: str, formula: str, acl: list[str]) -> dict:
    return {"evidence_id": f"metric.{name}.v1", "entity_id": f"metric.{name}", "kind": "metric_definition",
            "title": f"{title} v1", "version": "1", "authority": "authoritative", "lifecycle": "current",
            "authority_class": "semantic_registry", "valid_from": "2026-01-01", "acl": acl,
            "owner": "Depot Analytics (Aku Rinne)",
            "metric": {"formula": formula, "grain": "one row per shipment", "unit": "EUR"},
            "text": f"{title}: {formula}."}


EVIDENCE = [
    _metric("order_fulfilment_cost", "Order fulfilment cost", "SUM(picking_eur + packing_eur) / COUNT(orders)", ROLES),
    # "freight" is a word dispatch's catalog uses, so only the qualifier reading keeps its cost from standing in.
    _metric("freight_weight", "Freight weight", "SUM(gross_kg)", ROLES),
    _metric("freight_cost", "Freight cost", "SUM(carrier_invoice_eur) / COUNT(shipments)", ["ledger"]),
    _metric("damage_rate", "Damage rate", "COUNT(damaged_parcels) / COUNT(parcels)", ROLES),
    _metric("delay_rate", "Delay rate", "COUNT(late_shipments) / COUNT(shipments)", ROLES),
    _metric("spoilage_weight", "Spoilage weight", "SUM(spoiled_kg)", ROLES),
    _metric("spoilage_rate", "Spoilage rate", "SUM(spoiled_kg) / SUM(gross_kg)", ["ledger"]),
]
# What dispatch may not learn of.
HIDDEN_MARKS = ("freight cost", "freight_cost", "spoilage rate", "spoilage_rate", "carrier_invoice")


@pytest.fixture(scope="module")
def ask_depot(tmp_path_factory, embedder):
    return asker(tmp_path_factory, embedder, "depot", ROLES, EVIDENCE, AT)


def _not_found(env) -> str:
    assert env.behavior is Behavior.not_found_or_not_authorized, (env.behavior, env.entity_id, env.verdict)
    assert env.entity_id is None and not env.selected
    shown = (env.model_dump_json() + render_text(env)).lower()
    assert not [m for m in HIDDEN_MARKS if m in shown], [m for m in HIDDEN_MARKS if m in shown]
    return headline(env)


@pytest.mark.parametrize("question, ledger", [
    ("what is the cost of freight?", "metric.freight_cost"),
    ("how is the cost of freight defined on 2027-03-31?", "metric.freight_cost"),
    ("is the cost of freight data up to date?", "metric.freight_cost"),
    ("what was the cost of all the freight in Q1 2027?", "metric.freight_cost"),
    # "goods" reads as "good", a word that says how a thing is: after "of" it names a thing all the same.
    ("is the cost of goods data up to date?", None),
    ("what is the cost of goods?", None),
])
def test_a_cost_of_something_else_is_not_the_visible_cost(ask_depot, question, ledger):
    """Dispatch cannot see the freight cost: not-found, read the same as a made-up subject. The ledger can: the
    freight cost (no load is recorded for it here, so a freshness question about it is abstained on). Nobody's cost
    of goods is written down: no cost metric is the answer, nor offered (tests/read/test_of_phrase_subject.py)."""
    text = _not_found(ask_depot(question, "dispatch"))
    assert "Order fulfilment cost" not in text
    made_up = question.replace("freight", "zorblax").replace("goods", "zorblax")
    assert text == _not_found(ask_depot(made_up, "dispatch")), made_up
    env = ask_depot(question, "ledger")
    if ledger is None:
        assert env.behavior is not Behavior.answer and env.entity_id is None, (question, env.behavior, env.entity_id)
    else:
        assert env.entity_id == ledger and env.behavior in (Behavior.answer, Behavior.abstain), (
            question, env.behavior, env.entity_id)


def test_the_of_phrase_says_which_metric(ask_depot):
    """Two rate metrics are visible to both roles and a third to the ledger only: "the rate of X" is X's rate when
    the role can see one, and not-found (never another rate) when it cannot. The metric's own words after "of" are
    its paraphrase ("the cost of order fulfilment")."""
    expected = {
        ("what is the rate of damage?", "dispatch"): "metric.damage_rate",
        ("what was the rate of damage in Q1 2027?", "ledger"): "metric.damage_rate",
        ("how is the rate of delays defined on 2027-03-31?", "dispatch"): "metric.delay_rate",
        ("what is the cost of order fulfilment?", "dispatch"): "metric.order_fulfilment_cost",
        ("what is the cost of fulfilling an order?", "dispatch"): "metric.order_fulfilment_cost",
        ("what is the rate of spoilage?", "ledger"): "metric.spoilage_rate",
        ("what is the rate of spoilage?", "dispatch"): None,
    }
    for (question, role), metric in expected.items():
        env = ask_depot(question, role)
        if metric is None:
            text = _not_found(env)
            assert "Damage rate" not in text and "Delay rate" not in text
            assert text == _not_found(ask_depot(question.replace("spoilage", "zorblax"), role))
        else:
            assert env.behavior is Behavior.answer and env.entity_id == metric, (question, role, env.behavior,
                                                                                 env.entity_id)


# ---- the demo ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("question", ["is the cost of goods data up to date?", "what is the cost of goods?"])
def test_demo_marketing_cost_of_goods_is_not_found_not_acquisition_cost(ask_demo, question):
    env = ask_demo(question, "marketing", day=None, at=DEMO_AT)
    assert env.behavior is Behavior.not_found_or_not_authorized and env.entity_id is None, (env.behavior,
                                                                                          env.entity_id)
    assert "Customer acquisition cost" not in headline(env)
    assert headline(env) == headline(ask_demo(question.replace("goods", "zorblax"), "marketing", day=None,
                                              at=DEMO_AT))
    # The metric's own paraphrases are still found.
    assert ask_demo("what is the rate of churn?").entity_id == "metric.churn_rate"
    assert ask_demo("what is the cost of acquiring a customer?", "marketing").entity_id == \
        "metric.customer_acquisition_cost"
