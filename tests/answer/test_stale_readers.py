"""Freshness asked of what reads the loaded data ("which metrics are affected by stale data?", "which models depend on
stale sources?", "is any metric stale?") lists the visible metrics (models) whose upstream lineage on the day reaches a
visible stale source, naming those sources; fresh when every source reached is fresh, not known otherwise. The lineage
is the walk a definition answer shows (core/resolve/lineage.py); a source the role cannot see is never named, and a
lineage that continues into it is said to continue, no more. These questions listed sources, or answered not-found.

On a catalog the tests write (a dairy: other names, roles and clock than the demo's), then on the demo."""
from datetime import datetime, timezone

import pytest
from builders import watched_source
from conftest import DEMO_AT, asker
from conftest import listed as _listed

from core.explain.render import render_text

AT = datetime(2030, 6, 2, 7, 0, tzinfo=timezone.utc)
ROLES = ["herd", "lab", "creamery"]
INSIDE = ["herd", "lab"]


def _source(name: str, acl: list[str], loaded_at: str | None) -> list[dict]:
    return watched_source(name, acl, loaded_at, owner="Dairy Systems (Ada Quist)", since="2029-01-01")


def _model(name: str) -> dict:
    return {"evidence_id": f"model.{name}.v1", "entity_id": f"model.{name}", "kind": "model", "title": name,
            "version": "1", "authority": "authoritative", "lifecycle": "current", "authority_class": "dbt_manifest",
            "valid_from": "2029-01-01", "acl": ROLES, "owner": "Dairy Data (Ivo Brandt)",
            "model": {"relation": f"dairy.{name}", "grain": "one row per milking"}, "text": f"{name} table."}


def _metric(key: str, label: str, model: str) -> dict:
    return {"evidence_id": f"metric.{key}.v1", "entity_id": f"metric.{key}", "kind": "metric_definition",
            "title": f"{label} v1", "version": "1", "authority": "authoritative", "lifecycle": "current",
            "authority_class": "semantic_registry", "valid_from": "2029-01-01", "acl": ROLES,
            "owner": "Dairy Finance (Lu Park)", "links": {"implemented_by": [f"model.{model}.v1"]},
            "metric": {"formula": "SUM(litres) / COUNT(cow_id)", "grain": "one row per day", "unit": "ratio"},
            "text": f"{label} per day."}


def _edges(key: str, acl: list[str], edges: list[list[str]]) -> dict:
    return {"evidence_id": f"lineage.{key}.v1", "entity_id": f"lineage.{key}", "kind": "lineage",
            "title": f"{key} lineage", "version": "1", "authority": "authoritative", "lifecycle": "current",
            "authority_class": "dbt_manifest", "valid_from": "2029-01-01", "acl": acl, "edges": edges,
            "text": f"{key} lineage."}


DAIRY = [
    *_source("raw_parlour.milkings", ROLES, "2030-06-02T05:00:00Z"),  # 2 h: PASS
    *_source("raw_lab.samples", INSIDE, "2030-05-31T07:00:00Z"),  # 48 h: ERROR
    *_source("raw_tank.levels", INSIDE, None),  # no load: not known
    *_source("raw_vet.treatments", ["herd"], "2030-05-30T07:00:00Z"),  # stale, and the herd's alone
    _model("fct_butterfat"), _model("fct_tank"), _model("fct_milk"), _model("fct_health"),
    _metric("butterfat_share", "Butterfat share", "fct_butterfat"),
    _metric("tank_fill", "Tank fill", "fct_tank"),
    _metric("milk_per_cow", "Milk per cow", "fct_milk"),
    _metric("herd_health", "Herd health index", "fct_health"),
    _edges("dairy", ROLES, [["source.raw_parlour.milkings", "model.fct_butterfat.v1"],
                            ["source.raw_lab.samples", "model.fct_butterfat.v1"],
                            ["source.raw_tank.levels", "model.fct_tank.v1"],
                            ["source.raw_parlour.milkings", "model.fct_milk.v1"],
                            ["source.raw_parlour.milkings", "model.fct_health.v1"]]),
    # Everyone may read that the health model has one more input; only the herd may see which.
    _edges("health", ROLES, [["source.raw_vet.treatments", "model.fct_health.v1"]]),
]
HIDDEN_FROM_LAB = ("raw_vet", "treatments")

STALE = ["which metrics are stale?", "which metrics are affected by stale data?", "which metrics are built on late sources?",
         "which metrics depend on sources that failed their freshness check?", "what KPIs read out of date tables?",
         "which metrics have stale inputs?", "are any metrics impacted by overdue data?"]


@pytest.fixture(scope="module")
def dairy(tmp_path_factory, embedder):
    return asker(tmp_path_factory, embedder, "dairy", ROLES, DAIRY, AT)


@pytest.mark.parametrize("text", STALE)
def test_metrics_reading_a_stale_source_are_listed_with_it(dairy, text):
    env = dairy(text, "lab")
    assert env.listing.kind == "metric" and _listed(env) == ["metric.butterfat_share"], (text, env.verdict)
    assert env.listing.checked == 4, text
    assert "Butterfat share (reads raw_lab.samples (ERROR, last loaded 2 days ago))" in env.verdict, env.verdict
    assert "Milk per cow" not in env.verdict.split("Not known")[0], env.verdict  # all its sources are fresh
    assert {it.entity_id for it in env.listing.not_known} == {"metric.tank_fill", "metric.herd_health"}, env.verdict


@pytest.mark.parametrize("text", STALE + ["which metrics are up to date?", "is any metric stale?"])
def test_a_hidden_stale_source_is_never_named_only_said_to_continue(dairy, text):
    lab = dairy(text, "lab")
    shown = (lab.model_dump_json() + render_text(lab)).lower()
    assert not [m for m in HIDDEN_FROM_LAB if m in shown], text
    health = next(it for it in lab.listing.not_known if it.entity_id == "metric.herd_health")
    assert health.lineage_continues and "continues beyond what you can see" in health.status, health.status
    if text in STALE:  # the herd sees the treatments: the health index reads stale data
        herd = dairy(text, "herd")
        assert _listed(herd) == ["metric.butterfat_share", "metric.herd_health"], herd.verdict
        assert "(reads raw_vet.treatments (ERROR, last loaded 3 days ago))" in herd.verdict, herd.verdict


@pytest.mark.parametrize("text, kind, expected", [
    ("which models depend on stale sources?", "model", ["model.fct_butterfat"]),
    ("which models read stale data?", "model", ["model.fct_butterfat"]),
    ("which metrics are up to date?", "metric", ["metric.milk_per_cow"]),
    ("which metrics are built on fresh data?", "metric", ["metric.milk_per_cow"])])
def test_models_and_the_fresh_side_read_the_same_way(dairy, text, kind, expected):
    env = dairy(text, "lab")
    assert env.listing.kind == kind and _listed(env) == expected, (text, env.verdict)


@pytest.mark.parametrize("text, role, word", [
    ("is any metric affected by stale data?", "lab", "Yes"), ("is any metric stale?", "lab", "Yes"),
    # The creamery sees one fresh metric and three whose sources have no load recorded: neither yes nor no.
    ("is any metric affected by stale data?", "creamery", "Not known"), ("are all metrics fresh?", "creamery", "Not known"),
    ("are all metrics fresh?", "lab", "No")])
def test_is_any_metric_affected_is_answered_yes_or_no(dairy, text, role, word):
    env = dairy(text, role)
    assert env.listing.kind == "metric" and env.verdict.startswith(f"{word}: "), (text, role, env.verdict)


# ---- the demo -------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("text", ["which metrics are affected by stale data?", "which metrics are stale?",
                                  "is any metric affected by stale data?"])
def test_demo_analyst_metrics_on_stale_sources(ask_demo, text):
    env = ask_demo(text, "analyst", at=DEMO_AT)
    listed = _listed(env)
    assert "metric.conversion_rate" in listed and "metric.net_revenue" in listed, env.verdict
    assert "Conversion rate (reads raw_web.sessions (ERROR" in env.verdict, env.verdict
    shown = (env.model_dump_json() + render_text(env)).lower()
    assert not [m for m in ("raw_finance", "cogs", "contribution margin") if m in shown], text


def test_demo_models_depending_on_stale_sources(ask_demo):
    env = ask_demo("which models depend on stale sources?", "analyst", at=DEMO_AT)
    assert env.listing.kind == "model" and "model.stg_sessions" in _listed(env), env.verdict
