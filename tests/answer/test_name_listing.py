"""Models listed by how their names are written (issue 39 item 8): "models whose name starts with fct_", "which models
begin with stg_?", "fct_* models", "sources ending in _events". dbt projects name models by layer, and the question
was not found (the prefix read as a topic no name holds). Only what the role sees is listed or counted: a hidden
model with the prefix reads as one never written. On a botanical garden's catalog the test writes itself."""
from __future__ import annotations

from datetime import datetime, timezone

import pytest
from builders import watched_source
from conftest import asker

from core.catalog.envelope import Behavior
from core.explain.headline import headline
from core.explain.render import render_text

AT = datetime(2028, 4, 3, 8, 0, tzinfo=timezone.utc)
ROLES = ["curator", "volunteer"]
OWNER = "Garden Data (Ilse Moreau)"


def _model(name: str, acl: list[str] = ROLES) -> dict:
    return {"evidence_id": f"model.{name}.v1", "entity_id": f"model.{name}", "kind": "model", "title": name,
            "version": "1", "authority": "authoritative", "lifecycle": "current", "authority_class": "dbt_manifest",
            "valid_from": "2027-01-01", "acl": acl, "owner": OWNER,
            "model": {"relation": f"garden.{name}", "grain": "one row per visit"}, "text": f"{name} rows."}


EVIDENCE = [
    _model("stg_tickets"), _model("stg_greenhouse_sensors"), _model("int_visits_joined"),
    _model("fct_visits"), _model("fct_plant_sales"), _model("dim_beds"),
    _model("fct_donor_gifts", ["curator"]),  # the curator's only: for the volunteer it does not exist
    *watched_source("raw_iot.soil_events", ROLES, "2028-04-03T07:00:00Z", owner=OWNER, since="2027-01-01"),
    *watched_source("raw_pos.sale_events", ROLES, "2028-04-03T07:30:00Z", owner=OWNER, since="2027-01-01"),
    *watched_source("raw_pos.tills", ROLES, "2028-04-03T07:30:00Z", owner=OWNER, since="2027-01-01"),
]


@pytest.fixture(scope="module")
def ask_garden(tmp_path_factory, embedder):
    return asker(tmp_path_factory, embedder, "garden", ROLES, EVIDENCE, AT)


@pytest.mark.parametrize("question, role, names", [
    ("models whose name starts with fct_", "volunteer", ["fct_plant_sales", "fct_visits"]),
    ("models whose name starts with fct_", "curator", ["fct_donor_gifts", "fct_plant_sales", "fct_visits"]),
    ("which models begin with stg_?", "volunteer", ["stg_greenhouse_sensors", "stg_tickets"]),
    ("list the fct_* models", "volunteer", ["fct_plant_sales", "fct_visits"]),
    ("models named fct_*", "volunteer", ["fct_plant_sales", "fct_visits"]),  # "named" leads to the wildcard
    ("which sources are called raw_pos*", "volunteer", ["raw_pos.sale_events", "raw_pos.tills"]),  # a verb between
    ("which models are like *_joined?", "volunteer", ["int_visits_joined"]),
    ("models that look like fct_*", "curator", ["fct_donor_gifts", "fct_plant_sales", "fct_visits"]),
    ("sources ending in _events", "volunteer", ["raw_iot.soil_events", "raw_pos.sale_events"]),
    ("what models have names containing visits?", "volunteer", ["fct_visits", "int_visits_joined"]),
])
def test_listed_by_how_their_names_begin_or_end(ask_garden, question, role, names):
    env = ask_garden(question, role)
    assert env.behavior is Behavior.answer and env.intent == "discover", (env.behavior, env.verdict)
    assert sorted(i.label for i in env.listing.items) == names
    assert str(len(names)) in headline(env)


def test_a_hidden_model_is_neither_listed_nor_counted(ask_garden):
    env = ask_garden("models whose name starts with fct_", "volunteer")
    shown = env.model_dump_json() + render_text(env)
    assert "donor" not in shown and env.listing.checked == 6  # the volunteer's six models, not the curator's seven


def test_no_name_so_written_is_a_none(ask_garden):
    env = ask_garden("are there models starting with mart_?", "volunteer")
    assert env.behavior is Behavior.answer and not env.listing.items
    assert headline(env).startswith("No")
