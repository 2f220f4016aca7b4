"""A version a steward sees only because its review queue grants it is there to be reviewed, not to govern
(core/resolve/versions.py held_for_review). Without a date a question is answered as of today: when the one version
the steward's view holds of a metric is a queued one no longer in effect, the answer says that no version it can
see is in effect today and names the queued one as under review, never presents it as the definition. With a date
inside its interval it is the version in effect then, and answers (with the "Steward view" note).

On a catalog the tests write (a greenhouse grower: other names, roles and dates than the demo's), then on the demo
(governance and active customers v1, the tester's report)."""
from datetime import datetime, timezone

import pytest
from conftest import DEMO_AT
from visits_catalog import catalog_store

from core.answer.ask import Question, ask
from core.answer.intents.review import review_queue
from core.answer.steward import steward_answer
from core.catalog.store import Store
from core.explain.render import render_text
from core.ingest.load import load_catalog

AT = datetime(2028, 5, 12, 9, 0, tzinfo=timezone.utc)
TODAY = AT.date()
STEWARD = "auditing"


def _metric(eid: str, entity: str, title: str, version: str, frm: str, through: str | None, acl: list[str],
            text: str, **kw) -> dict:
    return {"evidence_id": eid, "entity_id": entity, "kind": "metric_definition", "title": title,
            "version": version, "authority": "authoritative", "lifecycle": "current" if through is None else "historical",
            "authority_class": "semantic_registry", "valid_from": frm, "valid_through": through, "acl": acl,
            "owner": "Glasshouse Analytics (Mira Solberg)", "text": text, **kw}


EVIDENCE = [
    # Crop yield: r1 closed at the end of 2025, r2 in effect since 2026; only growers and buyers may see either. A
    # superseded wiki page still points at r1, so the steward's queue grants r1 (and the page), never r2.
    _metric("kpi.crop_yield.r1", "kpi.crop_yield", "Crop yield r1", "1", "2023-01-01", "2025-12-31",
            ["growers", "buyers"], "Crop yield is kilograms picked per bench per week.", aliases=["harvest yield"],
            metric={"formula": "SUM(picked_kg) / COUNT(DISTINCT bench_week)", "grain": "one row per bench per week"}),
    _metric("kpi.crop_yield.r2", "kpi.crop_yield", "Crop yield r2", "2", "2026-01-01", None, ["growers", "buyers"],
            "From 2026 crop yield counts marketable kilograms per square metre of glass.", aliases=["harvest yield"],
            links={"implemented_by": ["model.glasshouse_harvest.r1"]},
            metric={"formula": "SUM(marketable_kg) / SUM(glass_m2)", "grain": "one row per house per week"}),
    {"evidence_id": "model.glasshouse_harvest.r1", "entity_id": "model.glasshouse_harvest", "kind": "model",
     "title": "glasshouse_harvest", "version": "1", "authority": "authoritative", "lifecycle": "current",
     "authority_class": "dbt_manifest", "valid_from": "2026-01-01", "acl": ["growers", "buyers"],
     "model": {"relation": "marts.glasshouse_harvest", "grain": "one row per house per week"},
     "text": "Marketable harvest per glasshouse and week."},
    {"evidence_id": "wiki.crop_yield.2022", "entity_id": "kpi.crop_yield", "kind": "documentation",
     "title": "Crop yield (2022 grower wiki)", "version": "2022", "authority": "non_authoritative",
     "lifecycle": "superseded", "authority_class": "wiki", "acl": ["growers", "buyers"],
     "superseded_by": "kpi.crop_yield.r1", "text": "Crop yield is the number of trays filled per shift."},
    # Water use: one version, in effect today, granted by the queue through a draft that contradicts it.
    _metric("kpi.water_use.r1", "kpi.water_use", "Water use r1", "1", "2024-01-01", None, ["growers"],
            "Water use is litres of irrigation per square metre per week.",
            metric={"formula": "SUM(irrigation_l) / SUM(glass_m2)", "grain": "one row per house per week"}),
    {"evidence_id": "draft.water_use.drip", "entity_id": "kpi.water_use", "kind": "note",
     "title": "Draft - water use net of recirculated drip", "authority": "non_authoritative", "lifecycle": "draft",
     "valid_from": "2028-01-01", "acl": ["growers"], "text": "Proposal: subtract recirculated drip water."},
    # Heat hours: one old version the steward's own ACL shows; the queue has nothing to do with it.
    _metric("kpi.heat_hours.r1", "kpi.heat_hours", "Heat hours r1", "1", "2022-01-01", "2023-12-31",
            ["growers", STEWARD], "Heat hours are the hours a house ran its boilers.",
            metric={"formula": "SUM(boiler_on_hours)", "grain": "one row per house per day"}),
]
ROLES = {"settings": {"evaluation_time": AT.isoformat().replace("+00:00", "Z")},
         "roles": [{"name": "growers"}, {"name": "buyers"}, {"name": STEWARD, "steward": True}]}
# What only r2 and the model behind it say: none of it may reach the steward.
HIDDEN = ("crop_yield.r2", "Crop yield r2", "marketable", "glass_m2", "glasshouse_harvest")


@pytest.fixture(scope="module")
def greenhouse(tmp_path_factory) -> tuple[Store, Store]:
    """The catalog, and the same catalog holding only the steward's own objects and its queue."""
    root = tmp_path_factory.mktemp("greenhouse")
    full = catalog_store(root / "full", ROLES, EVIDENCE)
    queue = {i for item in review_queue(load_catalog(root / "full").evidence, TODAY) for i in item.evidence_ids}
    assert {"kpi.crop_yield.r1", "kpi.water_use.r1"} <= queue and "kpi.crop_yield.r2" not in queue
    return full, catalog_store(root / "world", ROLES, [e for e in EVIDENCE if STEWARD in e["acl"] or e["evidence_id"] in queue])


def _ask(store: Store, text: str, role: str = STEWARD):
    return steward_answer(store, Question(role=role, text=text, at=AT), today=TODAY)


def _definition(env) -> list[str]:
    return [s.evidence_id for s in env.selected if s.role_in_answer == "definition"]


@pytest.mark.parametrize("text", ["what is crop yield?", "which model feeds crop yield?", "what does harvest yield mean?"])
def test_a_queued_old_version_does_not_answer_a_question_without_a_date(greenhouse, text):
    full, world = greenhouse
    env, widened = _ask(full, text)
    assert env.behavior.value == "abstain" and _definition(env) == [], (text, env.verdict)
    assert env.reporting_date == TODAY  # no date: answered as of today
    assert env.verdict.startswith(f"No approved version of {env.entity_label} you can see is in effect today ({TODAY}")
    assert "in your review queue" in env.verdict
    held = {c.evidence_id: c for c in env.conflicts}["kpi.crop_yield.r1"]  # named, as under review
    assert held.label == "NOT IN EFFECT" and "review queue" in held.why
    assert widened and any(n.startswith("Steward view (read-only)") for n in env.notes)
    out = env.model_dump_json() + render_text(env)
    assert not [w for w in HIDDEN if w in out], text
    # The same answer from a catalog that never held r2: it tells nothing of the version hidden from the steward.
    other = _ask(world, text)[0]
    assert env.model_dump_json(exclude={"catalog_revision", "recorded"}) == \
        other.model_dump_json(exclude={"catalog_revision", "recorded"})
    # A grower, whose ACL shows r2, is answered with r2.
    assert _definition(_ask(full, text, "growers")[0]) == ["kpi.crop_yield.r2"]


def test_only_a_queued_version_out_of_effect_is_held_back(greenhouse):
    """Without a date the steward is answered as it would be for today's date; with a date inside r1's interval r1
    is the version in effect then and answers. A queued version in effect today still answers, and so does an old
    version the steward's own ACL shows (the queue has nothing to do with it)."""
    full, _ = greenhouse
    bare, dated = _ask(full, "what is crop yield?")[0], _ask(full, f"what is crop yield on {TODAY}?")[0]
    assert (bare.behavior, _definition(bare)) == (dated.behavior, _definition(dated))
    assert bare.behavior.value == "abstain"
    then, widened = _ask(full, "what is crop yield on 2024-03-31?")
    assert then.behavior.value == "answer" and _definition(then) == ["kpi.crop_yield.r1"] and widened
    water, widened = _ask(full, "what is water use?")
    assert water.behavior.value == "answer" and _definition(water) == ["kpi.water_use.r1"] and widened
    heat, widened = _ask(full, "what is heat hours?")
    assert heat.behavior.value == "answer" and _definition(heat) == ["kpi.heat_hours.r1"] and not widened


@pytest.mark.parametrize("text", ["which model feeds active customers", "what is active customers"])
def test_governance_is_not_answered_with_active_customers_v1_today(demo_store, text):
    """The tester's report: governance sees active customers v1 (valid 2023 to June 2024) only through its review
    queue (the legacy wiki page superseded by it); its ACL shows no version of active customers. Every other role
    is answered with v3, in effect today."""
    env, widened = steward_answer(demo_store, Question(role="governance", text=text, at=DEMO_AT), today=DEMO_AT.date())
    assert env.behavior.value == "abstain" and _definition(env) == [], env.verdict
    assert env.reporting_date == DEMO_AT.date()
    assert "No approved version of Active customers you can see is in effect today" in env.verdict
    assert {c.evidence_id: c.label for c in env.conflicts}["metric.active_customers.v1"] == "NOT IN EFFECT"
    assert widened and any(n.startswith("Steward view (read-only)") for n in env.notes)
    assert "metric.active_customers.v3" not in env.model_dump_json() + render_text(env)
    analyst = ask(demo_store, Question(role="analyst", text=text, at=DEMO_AT))
    assert _definition(analyst) == ["metric.active_customers.v3"]
    # Inside v1's interval v1 was the definition in effect: the reviewer reads it, in the steward view.
    then, widened = steward_answer(demo_store, Question(role="governance", text=f"{text} on 2024-03-31",
                                                        at=DEMO_AT), today=DEMO_AT.date())
    assert _definition(then) == ["metric.active_customers.v1"] and widened
