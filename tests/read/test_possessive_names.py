"""A subject named in the possessive is the same name: "occupancy's definition", "BOR's formula", "pilotage fees'
owner", with a straight or a typographic apostrophe, read exactly as "the occupancy definition". The "'s" used to be
read as a word of its own, so a one-word name followed by it ("churn's") looked like the start of a longer name for
something else and the question was not found. A hidden metric named in the possessive reads exactly as a made-up one.

On a harbour catalog the test writes (none of the demo's names), then on the demo, where "what is churn's
definition?" was not found for the analyst."""
from __future__ import annotations

from datetime import datetime, timezone

import pytest
from conftest import asker

from core.catalog.envelope import Behavior
from core.explain.headline import headline
from core.explain.render import render_text

AT = datetime(2029, 3, 5, 7, 30, tzinfo=timezone.utc)
ROLES = ["pilots", "agents"]


def _metric(name: str, title: str, formula: str, acl: list[str], aliases: list[str] = ()) -> dict:
    return {"evidence_id": f"metric.{name}.v1", "entity_id": f"metric.{name}", "kind": "metric_definition",
            "title": f"{title} v1", "version": "1", "authority": "authoritative", "lifecycle": "current",
            "authority_class": "semantic_registry", "valid_from": "2028-01-01", "acl": acl,
            "owner": "Harbour Analytics (Ilse Varga)", "aliases": list(aliases),
            "metric": {"formula": formula, "grain": "one row per vessel call", "unit": "ratio"},
            "text": f"{title}: {formula}."}


EVIDENCE = [
    # A one-word alias, as "churn" is the demo's: the case that failed.
    _metric("berth_occupancy_rate", "Berth occupancy rate", "SUM(berth_hours_used) / SUM(berth_hours_available)",
            ROLES, ["occupancy"]),
    _metric("pilotage_fees", "Pilotage fees", "SUM(pilot_fee_eur)", ROLES),
    _metric("tug_hours", "Tug hours", "SUM(tug_minutes) / 60", ROLES, ["towage"]),
    _metric("demurrage_charges", "Demurrage charges", "SUM(demurrage_eur)", ["agents"], ["demurrage"]),
]
HIDDEN_MARKS = ("demurrage",)


@pytest.fixture(scope="module")
def ask_harbour(tmp_path_factory, embedder):
    return asker(tmp_path_factory, embedder, "harbour", ROLES, EVIDENCE, AT)


# (possessive, the same question without it, the entity both name)
PAIRS = [
    ("what is occupancy's definition?", "what is the occupancy definition?", "metric.berth_occupancy_rate"),
    ("what is occupancy’s definition?", "what is the occupancy definition?", "metric.berth_occupancy_rate"),
    ("who is occupancy's owner?", "who is the occupancy owner?", "metric.berth_occupancy_rate"),
    ("how is towage's formula written?", "how is the towage formula written?", "metric.tug_hours"),
    ("what's occupancy's lineage?", "what is the occupancy lineage?", "metric.berth_occupancy_rate"),
    ("do any pages differ from occupancy's definition?", "do any pages differ from the occupancy definition?",
     "metric.berth_occupancy_rate"),
]


@pytest.mark.parametrize("possessive, plain, entity", PAIRS)
def test_a_possessive_name_is_the_name(ask_harbour, possessive, plain, entity):
    said, without = ask_harbour(possessive, "pilots"), ask_harbour(plain, "pilots")
    assert said.entity_id == without.entity_id == entity, (possessive, said.behavior, said.entity_id)
    assert said.behavior is without.behavior and headline(said) == headline(without), possessive


@pytest.mark.parametrize("question", ["what is demurrage's definition?", "who is demurrage's owner?",
                                      "what is demurrage’s formula?"])
def test_a_hidden_name_in_the_possessive_reads_as_a_made_up_one(ask_harbour, question):
    env = ask_harbour(question, "pilots")
    assert env.behavior is Behavior.not_found_or_not_authorized and env.entity_id is None, (env.behavior,
                                                                                          env.entity_id)
    shown = (env.model_dump_json() + render_text(env)).lower()
    assert not [m for m in HIDDEN_MARKS if m in shown]
    made_up = ask_harbour(question.replace("demurrage", "zorblax"), "pilots")
    assert headline(env) == headline(made_up) and render_text(env) == render_text(made_up), question
    # The role that may see it gets it, possessive and all.
    assert ask_harbour(question, "agents").entity_id == "metric.demurrage_charges"


# ---- the demo ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("wording", ["what is {}'s definition?", "what is {}’s definition?", "who is {}'s owner?",
                                     "do any pages differ from {}'s definition?"])
def test_demo_possessive_names(ask_demo, wording):
    """Churn in the possessive is Churn rate for the analyst; Contribution margin (finance's only) in the possessive
    reads for marketing exactly as a name nobody wrote."""
    env = ask_demo(wording.format("churn"))
    assert env.behavior is Behavior.answer and env.entity_id == "metric.churn_rate", (wording, env.behavior,
                                                                                     env.entity_id)
    hidden = ask_demo(wording.format("contribution margin"), "marketing")
    made_up = ask_demo(wording.format("zorvex margin"), "marketing")
    assert hidden.behavior is Behavior.not_found_or_not_authorized, (wording, hidden.behavior)
    assert headline(hidden) == headline(made_up) and render_text(hidden) == render_text(made_up)
    assert "Farah" not in hidden.model_dump_json()
    assert ask_demo(wording.format("contribution margin"), "finance").entity_id == "metric.contribution_margin"
