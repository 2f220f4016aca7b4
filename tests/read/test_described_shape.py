"""A model described in words instead of named (issue 46 item 7), by its shape: its grain ("the table with one row
per shipment leg") or what it joins ("the model that joins shipments to carriers"), on a tea importer's dbt project
the test writes with scripts/gen_dbt_project.py `write_target` (names no other test uses).

A grain is what a model's description says it has one row per, or the column its unique test keys on; what a model
joins is its direct parents in lineage, else its own words (columns, description) holding both. One model of that shape is the answer; several are asked back; a join of
visible tables that no visible model makes is not found, and a hidden model that makes it reads as one never written.
"""
from datetime import datetime, timezone

import pytest
from dbt_project import ingested
from existence import role_world

from core.answer.ask import Question, ask
from core.catalog.store import Store, write_catalog
from core.explain.render import render_text

AT = datetime(2027, 1, 12, 9, tzinfo=timezone.utc)
HIDDEN = "int_invoices_with_credit_notes"


def _stg(name, cols, desc):
    return {"name": f"stg_{name}", "description": desc, "columns": cols, "depends_on": [f"source:ledger.{name}"]}


SPEC = {
    "project": "kettle_tea_importers",
    "sources": [{"source": "ledger", "name": n, "columns": ["id"]} for n in
                ("shipments", "carriers", "tea_lots", "growers", "invoices", "credit_notes", "payments",
                                "grower_payouts")],
    "models": [
        _stg("shipments", ["shipment_id", "carrier_id"], "Shipments as booked with the forwarder."),
        _stg("carriers", ["carrier_id", "carrier_name"], "Carriers as listed by the forwarder."),
        _stg("tea_lots", ["lot_id", "grower_id"], "Tea lots as graded on arrival."),
        _stg("growers", ["grower_id", "estate"], "Growers and their estates."),
        _stg("invoices", ["invoice_id"], "Invoices as the ledger exports them."),
        _stg("credit_notes", ["credit_note_id", "invoice_id"], "Credit notes against invoices."),
        _stg("payments", ["payment_id", "invoice_id"], "Payments received."),
        _stg("grower_payouts", ["payout_id", "grower_id"], "Payouts to growers."),
        # Two models join payments with invoices; the authors named one for the join.
        {"name": "int_payments_matched_invoices", "description": "Each payment with the invoice it settles.",
         "columns": ["payment_id", "invoice_id"], "depends_on": ["model:stg_payments", "model:stg_invoices"]},
        {"name": "rpt_cash_position", "description": "Cash received against cash billed, by week.",
         "columns": ["week", "received", "billed"], "depends_on": ["model:stg_payments", "model:stg_invoices"]},
        # One joined thing's words hold the other's ("grower payouts" and "growers").
        {"name": "fct_payouts_by_estate", "description": "Payouts summed per estate.", "columns": ["estate", "paid"],
         "depends_on": ["model:stg_grower_payouts", "model:stg_growers"]},
        {"name": "fct_shipment_legs", "description": "One row per shipment leg, with the carrier that moved it.",
         "columns": ["leg_id", "shipment_id", "carrier_id"],
         "depends_on": ["model:stg_shipments", "model:stg_carriers"]},
        {"name": "dim_carriers", "description": "Carriers we ship with and their service levels.",
         "columns": ["carrier_id", "service_level"], "depends_on": ["model:stg_carriers"],
         "tests": [{"name": "unique", "column": "carrier_id", "status": "pass"}]},
        {"name": "int_lots_enriched", "description": "Lots with the estate that grew them.",
         "columns": ["lot_id", "estate"], "depends_on": ["model:stg_tea_lots", "model:stg_growers"]},
        {"name": "fct_invoices", "description": "One row per invoice, priced in euros.", "columns": ["invoice_id"],
         "depends_on": ["model:stg_invoices"]},
        {"name": "rpt_invoice_audit", "description": "One row per invoice, with the audit flags finance set.",
         "columns": ["invoice_id", "flag"], "depends_on": ["model:fct_invoices"]},
        # Downstream of the join (it reads fct_shipment_legs and the carriers again): not the model that joins them.
        {"name": "rpt_carrier_costs", "description": "Freight cost per carrier and month.",
         "columns": ["carrier_id", "month", "cost"], "depends_on": ["model:fct_shipment_legs", "model:stg_carriers"]},
        {"name": "rpt_lot_arrivals", "description": "When each lot landed and who grew it.",
         "columns": ["lot_id", "grower_id", "shipment_id", "landed_at"],
         "depends_on": ["model:int_lots_enriched", "model:fct_shipment_legs"]},
        {"name": HIDDEN, "description": "Invoice amounts net of credit.", "columns": ["invoice_id", "net"],
         "depends_on": ["model:stg_invoices", "model:stg_credit_notes"]},
    ],
}
ROLES = ["buyer", "finance"]
OVERLAY = {"roles": ROLES, "defaults": {"acl": ROLES}, "objects": {f"model:{HIDDEN}": {"acl": ["finance"]}}}


@pytest.fixture(scope="module")
def tea(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("tea")
    catalog, full = ingested(tmp, SPEC, OVERLAY, name="full")
    world = tmp / "buyer.duckdb"  # the buyer's world: the project without what it may not see
    write_catalog(role_world(catalog, "buyer"), world)
    return full, world


def _ask(db, text, role="buyer"):
    return ask(Store(db), Question(role=role, text=text, at=AT))


@pytest.mark.parametrize("q, entity", [
    ("the table with one row per shipment leg", "model.fct_shipment_legs"),
    ("which model has a row for each carrier?", "model.dim_carriers"),       # its unique test keys on carrier_id
    ("the model that joins shipments to carriers", "model.fct_shipment_legs"),
    ("which table is joining tea lots with growers?", "model.int_lots_enriched"),
    ("which model has tea lots joined with growers?", "model.int_lots_enriched"),
    # joined through an intermediate model: its own columns hold both (growers are joined in int_lots_enriched)
    ("the model that joins growers with shipments", "model.rpt_lot_arrivals"),
    ("is fct_invoices one row per invoice?", "model.fct_invoices"),
    ("the model joining payments with invoices", "model.int_payments_matched_invoices"),  # named for the join
    ("the model that joins grower payouts with growers", "model.fct_payouts_by_estate"),          # named: the name is the subject
])
def test_a_model_described_by_its_shape_is_found(tea, q, entity):
    env = _ask(tea[0], q)
    assert env.behavior.value in ("answer", "abstain") and env.entity_id == entity, (env.behavior, env.entity_id,
                                                                                   env.verdict)


def test_a_shape_several_models_have_is_asked_back(tea):
    env = _ask(tea[0], "the table with one row per invoice")
    assert env.behavior.value == "clarify"
    assert {o.entity_id for o in env.clarify.options} == {"model.fct_invoices", "model.rpt_invoice_audit"}


@pytest.mark.parametrize("q", ["the model joining invoices with credit notes",
                               "which model joins invoices to credit notes?"])
def test_a_hidden_model_of_that_shape_reads_as_one_never_written(tea, q):
    full, world = tea
    assert _ask(full, q, role="finance").entity_id == f"model.{HIDDEN}"
    env = _ask(full, q)
    assert env.behavior.value == "not_found_or_not_authorized", (env.entity_id, env.verdict)
    other = _ask(world, q)
    assert (env.behavior, env.entity_id, env.verdict) == (other.behavior, other.entity_id, other.verdict)
    assert HIDDEN not in env.model_dump_json() + render_text(env)
