"""Listings a data team asks every day (issue 46 item 3), over what dbt recorded: models with and without tests, with a
failing test, by tag, by a meta value, incremental, disabled, by group, with a contract, public, and sources without
a freshness check. Each gives the count of what the role can see and the names (the first 50, then how to get the
rest), however it is phrased; a listing word never picks a model whose name merely contains it.

On a greenhouse grower's project from scripts/gen_dbt_project.py's `write_target`, with models named to trap the
listing words (`test_runs`, `tagged_orders`, `incremental_loads`, `disabled_sensors`, `freshness_checks`), sixty
generated sensor models (so the first-50 rule shows), and a model hidden from one role whose failing test must
not be counted for it.
"""
from datetime import datetime, timezone

import pytest
from dbt_project import project_store

from core.answer.ask import Question, ask
from core.explain.render import render_text

AT = datetime(2027, 8, 9, 9, tzinfo=timezone.utc)
P = "glasshouse_growers"
PASS = [{"name": "not_null", "column": "id", "status": "pass"}]
FAIL = [{"name": "unique", "column": "id", "status": "fail", "failures": 4}]


def _model(name, **kw):
    return {"name": name, "description": f"The {name.replace('_', ' ')} of the greenhouses.", "columns": ["id"],
            "depends_on": ["source:climate_db.readings"], **kw}


MODELS = [
    _model("test_runs", tags=["ops"], materialized="view"),  # no tests, though named for them
    _model("tagged_orders", tags=["sales"], materialized="table", tests=PASS),  # not tagged finance
    _model("incremental_loads", materialized="table", tests=PASS),  # not incremental
    _model("disabled_sensors", materialized="view", tests=FAIL),  # enabled, with a failing test
    _model("freshness_checks", materialized="view"),
    _model("harvest_yields", tags=["finance", "daily"], materialized="incremental", tests=PASS + FAIL,
           meta={"owner": "Crop Science", "contains_pii": False, "update_frequency": "daily"}, access="public",
           contract=True, group="crops"),
    _model("picker_wages", tags=["finance"], materialized="incremental", tests=FAIL,
           meta={"contains_pii": True, "update_frequency": "weekly"}, group="crops"),  # hidden from the growers role
    _model("old_irrigation", enabled=False),
    *[_model(f"sensor_bay_{i:02d}", tags=["sensors"], materialized="view", tests=PASS) for i in range(60)],
]
SPEC = {"project": P, "generated_at": "2027-08-08T05:00:00Z", "run_at": "2027-08-08T05:30:00Z",
        "groups": [{"name": "crops", "owner": {"name": "Crop Science"}}],
        "sources": [{"source": "climate_db", "name": "readings", "columns": ["id"], "loaded_at_field": "_at"},
                    {"source": "climate_db", "name": "vents", "columns": ["id"]}],
        "models": MODELS}


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    return project_store(tmp_path_factory.mktemp("glasshouse"), SPEC, {
        "roles": ["growers", "payroll"], "defaults": {"acl": ["growers", "payroll"]},
        "objects": {"model:picker_wages": {"acl": ["payroll"]}}})


def _listed(store, q, role="growers"):
    env = ask(store, Question(role=role, text=q, at=AT))
    assert env.behavior.value == "answer" and env.listing is not None, (q, env.behavior, env.intent, env.verdict)
    return env, [i.entity_id.rsplit(".", 1)[-1] for i in env.listing.items]


FAMILIES = {
    "tests:failing": (["which models have a failing test?", "models with failing tests", "list the models whose tests "
                       "failed", "show me models that failed their tests", "are there models with a failed test?"],
                      ["disabled_sensors", "harvest_yields"]),
    "tests:without": (["which models have no tests?", "models without tests", "list untested models",
                       "show me the models with no data tests", "are there any models without tests?"],
                      ["freshness_checks", "old_irrigation", "test_runs"]),
    "tag:finance": (["which models are tagged finance?", "models tagged 'finance'", "list models with the finance tag",
                     "show me the models tagged with finance"], ["harvest_yields"]),
    "materialized:incremental": (["which models are incremental?", "incremental models", "list the incremental models",
                                  "show me models materialized as incremental"], ["harvest_yields"]),
    "enabled:false": (["which models are disabled?", "disabled models", "show me the disabled models",
                       "are there any disabled models?"], ["old_irrigation"]),
    "group:crops": (["which models are in the crops group?", "models owned by the crops group"], ["harvest_yields"]),
    "contract:true": (["which models have an enforced contract?", "models with contracts"], ["harvest_yields"]),
    "meta": (["models where update_frequency is daily", "which models have meta update_frequency daily?"],
             ["harvest_yields"]),
}


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_each_listing_however_phrased_counts_what_the_role_sees(store, family):
    questions, expected = FAMILIES[family]
    for q in questions:
        env, names = _listed(store, q)
        assert env.intent == "discover" and env.listing.kind == "model", (q, env.listing.kind)
        assert names == expected, (q, names, env.verdict)
        assert env.verdict.startswith(("Yes: ", "") if q.startswith("are") else "")
        assert f"{len(expected)} of the {env.listing.checked} models you can see" in env.verdict, (q, env.verdict)
        # The hidden model is never named, nor counted among what was checked.
        assert "picker_wages" not in render_text(env) and env.listing.checked == 67


def test_sources_without_a_freshness_check(store):
    for q in ("which sources have no freshness check?", "sources without freshness", "list sources with no freshness "
              "policy"):
        env, names = _listed(store, q)
        assert env.listing.kind == "source" and names == ["vents"], (q, names)


def test_the_hidden_models_failing_test_and_pii_reach_only_its_role(store):
    _, names = _listed(store, "which models have a failing test?", role="payroll")
    assert names == ["disabled_sensors", "harvest_yields", "picker_wages"]
    _, pii = _listed(store, "models with PII", role="payroll")
    assert pii == ["picker_wages"]
    env, none = _listed(store, "models with PII")
    assert none == [] and env.verdict.startswith("None of the 67 models you can see is flagged as PII")


def test_fifty_names_then_how_to_get_the_rest(store):
    env, names = _listed(store, "which models are tagged sensors?")
    assert len(names) == 60 and env.verdict.startswith("60 of the 67 models you can see are tagged sensors: ")
    said = env.verdict.split(": ", 1)[1]
    assert said.count("sensor_bay_") == 50 and "and 10 more" in said
    assert any("names the first 50 of 60" in n and "ask --json" in n for n in env.notes)


def test_a_listing_word_never_picks_a_model_named_with_it(store):
    """The words of the condition are the listing's, not names: each trap model is answered about only when named."""
    for q, trap in (("which models have tests?", "test_runs"), ("which models are tagged finance?", "tagged_orders"),
                    ("show me incremental models", "incremental_loads"), ("disabled models", "disabled_sensors"),
                    ("sources without a freshness check", "freshness_checks")):
        env, names = _listed(store, q)
        assert env.entity_id is None and trap not in names, (q, names)
