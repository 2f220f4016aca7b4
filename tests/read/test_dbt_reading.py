"""Real dbt projects as analysts describe them (issue 24 items 1-4 and 6), on a dbt target the test writes with
scripts/gen_dbt_project.py `write_target` (names the test chooses: a hotel group's project) and on the bundled
fixtures (jaffle-shop, dbt-project-evaluator, the generated 1,000-model project).

1. a table described instead of named is found by its description and columns, and a look-alike is not chosen;
2. a doc block nobody references answers a question about its topic;
3. a model, a source, a seed and a metric sharing a name: the question's words say which kind;
4. whole-catalog questions ("which models are deprecated?") answer "none" with what was checked;
6. words that name nothing visible are not found, never a look-alike.
Permissions: a hidden object reads exactly as one never written (the same project without it), and a "none" counts
only what the role can see.
"""
from datetime import datetime, timezone

import pytest
from conftest import ROOT
from dbt_project import project_store

from core.answer.ask import Question, ask
from core.catalog.store import Store, write_catalog
from core.explain.render import render_text
from core.ingest.ingest import read_inputs

AT = datetime(2026, 11, 29, 12, tzinfo=timezone.utc)

HIDDEN = "fct_owner_payouts"
SPEC = {
    "project": "lighthouse_hotels",
    "sources": [
        {"source": "raw_pms", "name": "raw_guests", "description": "Guest profiles as exported nightly by the "
         "property management system.", "columns": ["guest_id", "email", "_loaded_at"], "loaded_at_field": "_loaded_at"},
        {"source": "raw_pms", "name": "fct_bookings", "description": "Booking rows as the reservation engine "
         "writes them, before any cleaning.", "columns": ["booking_id", "_loaded_at"], "loaded_at_field": "_loaded_at"},
        {"source": "raw_surveys", "name": "nps_answers", "description": "Net promoter survey answers.",
         "columns": ["answer_id", "score"]},
    ],
    "seeds": [
        {"name": "room_types", "description": "Room type codes and their display names, kept in the repository.",
         "columns": ["room_type_code", "display_name"]},
        {"name": "raw_guests", "description": "A sample of guest profiles for local development.",
         "columns": ["guest_id"]},
    ],
    "models": [
        {"name": "rpt_carrier_scorecard", "description": "Laundry vendor punctuality ratings: the share of linen "
         "deliveries that arrived inside the promised window, per vendor and week.",
         "columns": ["vendor_id", "week_start", "punctuality_rating"], "depends_on": ["model:stays"]},
        {"name": "rpt_carrier_invoices", "description": "Invoices received from laundry vendors, one row per "
         "invoice line.", "columns": ["invoice_id", "vendor_id", "amount"], "depends_on": ["model:stays"]},
        {"name": "int_refunds_matched_to_folios", "description": "Which folio settled each guest refund: one row per "
         "refund with the folio that paid it out.", "columns": ["refund_id", "folio_id"], "depends_on": ["model:stays"]},
        {"name": "guests", "description": "One row per guest, deduplicated across properties.",
         "columns": ["guest_id", "first_stay_at", "lifetime_nights"], "depends_on": ["source:raw_pms.raw_guests"]},
        {"name": "fct_bookings", "description": "One row per confirmed booking, cleaned and typed.",
         "columns": ["booking_id", "guest_id", "room_type_code", "booked_at"],
         "depends_on": ["source:raw_pms.fct_bookings", "seed:room_types"]},
        {"name": "stays", "description": "One row per completed stay, with nights and room revenue.",
         "columns": ["stay_id", "booking_id", "nights", "room_revenue"], "depends_on": ["model:fct_bookings"]},
        {"name": "dim_rooms", "description": "Rooms with their type names.", "columns": ["room_id", "room_type_code"],
         "depends_on": ["seed:room_types"]},
        {"name": "fct_spa_visits", "description": "One row per spa treatment booked by a guest.",
         "columns": ["visit_id", "guest_id"], "depends_on": ["model:guests"]},
        {"name": "legacy_rate_plans", "description": "Rate plans from the old booking engine.",
         "columns": ["rate_plan_id"], "deprecation_date": "2025-03-31", "depends_on": ["model:fct_bookings"]},
        {"name": HIDDEN, "description": "Payouts to property owners: the owner share of room revenue per month.",
         "columns": ["owner_id", "month", "payout_amount"], "deprecation_date": "2025-09-30",
         "depends_on": ["model:stays"]},
    ],
    "docs": [
        {"name": "loyalty_tiers", "text": "Guests move between the Pebble, Reef and Atoll tiers after 5, 15 and 40 "
         "nights in a calendar year."},
        {"name": "no_show_rule", "text": "A booking is a no-show when the guest neither checks in nor cancels "
         "before midnight of the arrival day."},
    ],
    "metrics": [
        {"name": "stays", "label": "Stays", "description": "Completed stays.", "model": "stays",
         "measure": "stay_count", "expr": "stay_id", "owner": "Revenue Management"},
        {"name": "room_nights", "label": "Room Nights", "description": "Nights sold.", "model": "stays",
         "measure": "nights_sold", "agg": "sum", "expr": "nights"},
    ],
}
OVERLAY = {"roles": ["frontdesk", "revenue"], "defaults": {"acl": ["frontdesk", "revenue"]},
           "objects": {f"model:{HIDDEN}": {"acl": ["revenue"]}}}


def _build(tmp, spec, name):
    names = {m["name"] for m in spec["models"]}
    return project_store(tmp, spec, {**OVERLAY, "objects": {k: v for k, v in OVERLAY["objects"].items()
                                                            if k.split(":", 1)[1] in names}}, name, target=name)


@pytest.fixture(scope="module")
def hotels(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("hotels")
    absent = {**SPEC, "models": [m for m in SPEC["models"] if m["name"] != HIDDEN]}
    return _build(tmp, SPEC, "full"), _build(tmp, absent, "absent")


def _ask(store, text, role="frontdesk"):
    return ask(store, Question(role=role, text=text, at=AT))


def _same(a, b):
    """What a user sees, minus the catalog revision (the two catalogs differ in what they hold)."""
    def seen(env):
        return (env.behavior, env.entity_id, env.verdict, [o.entity_id for o in env.clarify.options] if env.clarify else None,
                [i.entity_id for i in env.listing.items] if env.listing else None,
                env.listing.checked if env.listing else None)
    return seen(a) == seen(b)


# ---- 1. described, not named ----------------------------------------------------------------------------------

@pytest.mark.parametrize("q, entity", [
    ("the laundry vendor punctuality ratings", "model.rpt_carrier_scorecard"),
    ("what is the grain of the vendor punctuality ratings?", "model.rpt_carrier_scorecard"),
    ("which folio settled a guest refund", "model.int_refunds_matched_to_folios"),
    ("invoices received from laundry vendors", "model.rpt_carrier_invoices"),
])
def test_a_table_described_by_its_description_is_found(hotels, q, entity):
    env = _ask(hotels[0], q)
    assert env.behavior.value == "answer" and env.entity_id == entity, (env.behavior, env.entity_id, env.verdict)


def test_a_hidden_table_described_reads_as_one_never_written(hotels):
    full, absent = hotels
    q = "the owner payouts share of room revenue per month"
    assert _ask(full, q, role="revenue").entity_id == f"model.{HIDDEN}"
    env = _ask(full, q)
    assert env.behavior.value == "not_found_or_not_authorized"
    assert _same(env, _ask(absent, q))
    assert HIDDEN not in env.model_dump_json() + render_text(env)


# ---- 2. doc blocks ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("q, block, quoted", [
    ("what are the loyalty tiers?", "loyalty_tiers", "Pebble, Reef and Atoll"),
    ("how do loyalty tiers work?", "loyalty_tiers", "40 nights"),
    ("what is the no-show rule?", "no_show_rule", "neither checks in nor cancels"),
])
def test_an_unreferenced_doc_block_answers_its_topic(hotels, q, block, quoted):
    env = _ask(hotels[0], q)
    assert env.behavior.value == "answer" and env.intent == "document"
    assert env.documents[0].evidence_id == f"doc.lighthouse_hotels.{block}"
    assert quoted in env.verdict


# ---- 3. same-named objects of different kinds -------------------------------------------------------------------

@pytest.mark.parametrize("q, entity", [
    ("what is fct_bookings built from?", "model.fct_bookings"),        # a model and a source share the name
    ("which columns does fct_bookings have?", "model.fct_bookings"),
    ("when was fct_bookings last loaded?", "source.raw_pms.fct_bookings"),
    ("is raw_guests fresh?", "source.raw_pms.raw_guests"),             # the source, never the seed of that name
    ("what is the grain of stays?", "model.stays"),                    # a metric and a model share the name
    ("how is stays defined?", "metric.stays"),
])
def test_the_question_says_which_kind_a_shared_name_means(hotels, q, entity):
    env = _ask(hotels[0], q)
    assert env.behavior.value in ("answer", "abstain") and env.entity_id == entity, (env.behavior, env.entity_id)


@pytest.mark.parametrize("q, options", [
    ("what is raw_guests?", {"source.raw_pms.raw_guests", "seed.raw_guests"}),  # a source and a seed
    # A model and the source of its name, and nothing says which (issue 46 item 5: no longer the model silently).
    ("fct_bookings", {"model.fct_bookings", "source.raw_pms.fct_bookings"}),
    ("who owns fct_bookings?", {"model.fct_bookings", "source.raw_pms.fct_bookings"}),
])
def test_a_shared_name_with_nothing_to_tell_apart_is_asked_back(hotels, q, options):
    env = _ask(hotels[0], q)
    assert env.behavior.value == "clarify", (env.behavior, env.entity_id)
    assert {o.entity_id for o in env.clarify.options} == options


# ---- 4. whole-catalog questions ---------------------------------------------------------------------------------

def test_which_models_are_deprecated_counts_only_what_the_role_sees(hotels):
    full, absent = hotels
    env = _ask(full, "which models are deprecated?")
    assert env.behavior.value == "answer" and env.listing.condition == "is deprecated"
    assert [i.entity_id for i in env.listing.items] == ["model.legacy_rate_plans"]
    assert env.listing.checked == 9  # the frontdesk's models; the hidden one is neither listed nor counted
    assert _same(env, _ask(absent, "which models are deprecated?"))
    assert HIDDEN not in env.model_dump_json() + render_text(env)
    finance = _ask(full, "which models are deprecated?", role="revenue")
    assert {i.entity_id for i in finance.listing.items} == {"model.legacy_rate_plans", f"model.{HIDDEN}"}
    assert finance.listing.checked == 10


# A yes/no question ("are any ...?") is answered no first; a listing question ("which ...?") says none.
@pytest.mark.parametrize("q, condition, opening", [("are any sources deprecated?", "is deprecated", "No: none of the"),
                                                   ("which metrics are drafts?", "is a draft", "None of the")])
def test_none_is_an_answer_that_says_what_was_checked(hotels, q, condition, opening):
    env = _ask(hotels[0], q)
    assert env.behavior.value == "answer" and env.listing.items == [] and env.listing.condition == condition
    assert env.verdict.startswith(f"{opening} {env.listing.checked} ") and "checked the lifecycle" in env.verdict


def test_which_metrics_have_no_owner(hotels):
    env = _ask(hotels[0], "which metrics have no owner?")
    assert [i.entity_id for i in env.listing.items] == ["metric.room_nights"] and env.listing.checked == 2
    assert "checked the owner" in env.verdict


# ---- 6. made-up things ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("q", ["the housekeeping overtime metric", "the partner rebate fee",
                               "NPS for spa visits", "the minibar shrinkage score"])
def test_words_that_name_nothing_visible_are_not_found(hotels, q):
    env = _ask(hotels[0], q)
    assert env.behavior.value == "not_found_or_not_authorized", (env.entity_id, env.verdict)


# ---- the bundled fixtures ---------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def jaffle(tmp_path_factory):
    db = tmp_path_factory.mktemp("jaffle") / "jaffle.duckdb"
    catalog, _ = read_inputs(db, dbt=ROOT / "tests" / "fixtures" / "realworld" / "jaffle-shop",
                             overlay=ROOT / "data" / "dbt" / "jaffle-shop.overlay.yml")
    write_catalog(catalog, db)
    return Store(db)


@pytest.mark.parametrize("q, behavior, entity", [
    ("the customer overview data mart", "answer", "model.customers"),
    ("the list of open locations", "answer", "model.stg_locations"),
    ("which model holds the individual food and drink items that make up our orders?", "answer",
     "model.stg_order_items"),
    ("what is orders built from?", "answer", "model.orders"),
    ("which columns does orders have?", "answer", "model.orders"),
    ("is raw_customers fresh?", "abstain", "source.ecom.raw_customers"),
    ("which models are deprecated?", "answer", None),
    ("the partner commission fee metric", "not_found_or_not_authorized", None),
])
def test_jaffle_shop(jaffle, q, behavior, entity):
    env = _ask(jaffle, q, role="analyst")
    assert env.behavior.value == behavior and (entity is None or env.entity_id == entity), (env.behavior, env.entity_id)


def test_finance_only_metrics_are_not_counted_for_an_analyst(jaffle):
    analyst = _ask(jaffle, "which metrics have no owner?", role="analyst")
    finance = _ask(jaffle, "which metrics have no owner?", role="finance")
    ids = {i.entity_id for i in analyst.listing.items}
    assert "metric.order_cost" not in ids and "metric.order_cost" in {i.entity_id for i in finance.listing.items}
    assert finance.listing.checked == analyst.listing.checked + 2  # order_cost and order_gross_profit
    assert "order_cost" not in analyst.model_dump_json()
