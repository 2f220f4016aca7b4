"""One slip in a short word of a model's name is read as a typo (issue 39 item 8), as one in a long word already was:
"dim_tiem" is dim_time, with a note saying so. It was asked back ("Did you mean ...?"). Every other word must be
written exactly, the slip must be in letters (a changed digit names another model) and a model the role may not see
is never what a slip is read as. On an observatory's catalog the test writes itself."""
from __future__ import annotations

from datetime import datetime, timezone

import pytest
from conftest import asker

from core.catalog.envelope import Behavior
from core.explain.render import render_text

AT = datetime(2029, 2, 11, 22, 0, tzinfo=timezone.utc)
ROLES = ["astronomer", "guest"]


def _model(name: str, grain: str, acl: list[str] = ROLES) -> dict:
    return {"evidence_id": f"model.{name}.v1", "entity_id": f"model.{name}", "kind": "model", "title": name,
            "version": "1", "authority": "authoritative", "lifecycle": "current", "authority_class": "dbt_manifest",
            "valid_from": "2028-01-01", "acl": acl, "owner": "Survey Data (Noor Haddad)",
            "model": {"relation": f"obs.{name}", "grain": grain}, "text": f"{name}: {grain}."}


EVIDENCE = [
    _model("dim_star", "one row per catalogued star"), _model("dim_site", "one row per telescope site"),
    _model("fct_scans", "one row per exposure scan"), _model("int_pass_1", "one row per first calibration pass"),
    _model("dim_mask", "one row per focal-plane mask", ["astronomer"]),  # the astronomer's only
]


@pytest.fixture(scope="module")
def ask_observatory(tmp_path_factory, embedder):
    return asker(tmp_path_factory, embedder, "observatory", ROLES, EVIDENCE, AT)


@pytest.mark.parametrize("question, entity, slip", [
    ("what is dim_stra?", "model.dim_star", "dim_stra"),
    ("dim_stie grain", "model.dim_site", "dim_stie"),
    # A columns question about a model with no recorded columns abstains ("No columns are recorded for fct_scans"),
    # still read as fct_scans: the slip is what this checks.
    ("which columns does fct_scnas have?", "model.fct_scans", "fct_scnas"),
    ("what is dim_msak?", "model.dim_mask", "dim_msak"),
])
def test_one_slip_in_a_short_word_is_read_with_a_note(ask_observatory, question, entity, slip):
    role = "astronomer"
    env = ask_observatory(question, role)
    assert env.behavior in (Behavior.answer, Behavior.abstain), (env.behavior, env.verdict)
    assert env.entity_id == entity
    assert env.entity_read_as and slip in env.entity_read_as


def test_a_hidden_model_is_no_reading_of_a_slip(ask_observatory):
    env = ask_observatory("what is dim_msak?", "guest")
    assert env.behavior is Behavior.not_found_or_not_authorized, (env.behavior, env.entity_id)
    assert "dim_mask" not in env.model_dump_json() + render_text(env)


def test_a_changed_digit_is_another_model(ask_observatory):
    env = ask_observatory("what is int_pass_2?", "astronomer")
    assert env.entity_id != "model.int_pass_1" or env.behavior is not Behavior.answer
