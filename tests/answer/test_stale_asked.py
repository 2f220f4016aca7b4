"""A freshness question put the stale way ("is AOV stale?", "is the data out of date?") is answered Yes when the data
behind the metric is stale and No when it is fresh; put the fresh way ("is it fresh?", "up to date?") the other way
round. The headline said "No: ... is stale" to "is it stale?", the opposite of the truth to anyone reading one line
(core/read/intents/described.py asks_stale, core/explain/headline.py). On a bakery catalog the test writes, then the demo."""
from datetime import datetime, timezone

import pytest
from conftest import DEMO_AT, asker

from core.catalog.envelope import Behavior
from core.explain.headline import headline

AT = datetime(2031, 5, 20, 12, 0, tzinfo=timezone.utc)
ROLES = ["bakers"]
# Tasters see one metric and no source: a whole-catalog freshness question has nothing to check for them.
TASTING = {"evidence_id": "metric.crumb_score.v1", "entity_id": "metric.crumb_score", "kind": "metric_definition",
           "title": "Crumb score v1", "version": "1", "authority": "authoritative", "lifecycle": "current",
           "authority_class": "semantic_registry", "valid_from": "2030-01-01", "acl": ["tasters"],
           "metric": {"formula": "AVG(score)", "grain": "one row per loaf", "unit": "points"},
           "text": "Average tasting score of a loaf's crumb."}


def _chain(source: str, loaded_at: str, metric: str, title: str) -> list[dict]:
    base = {"version": "1", "authority": "authoritative", "lifecycle": "current", "valid_from": "2030-01-01",
            "acl": ROLES}
    model = f"model.fct_{metric}"
    return [
        {**base, "evidence_id": f"source.{source}.table", "entity_id": f"source.{source}", "kind": "source",
         "title": f"{source} (source table)", "authority_class": "dbt_manifest", "text": f"Raw {title} rows."},
        {**base, "evidence_id": f"freshness.{source}.policy", "entity_id": f"source.{source}",
         "kind": "freshness_policy", "title": f"Freshness policy for {source}", "authority_class": "dbt_source_config",
         "freshness": {"warn_after_hours": 6, "error_after_hours": 30}, "text": "Warn after 6 h, error after 30 h."},
        {**base, "evidence_id": f"freshness.{source}.load", "entity_id": f"source.{source}", "version": loaded_at,
         "kind": "freshness_observation", "title": f"{source} last load", "authority_class": "dbt_run_results",
         "freshness": {"loaded_at": loaded_at}, "text": "Max loaded_at recorded by dbt source freshness."},
        {**base, "evidence_id": f"{model}.v1", "entity_id": model, "kind": "model", "title": f"fct_{metric}",
         "authority_class": "dbt_manifest", "model": {"relation": f"bakery.fct_{metric}", "grain": "one row per day"},
         "text": f"{title} per day."},
        {**base, "evidence_id": f"metric.{metric}.v1", "entity_id": f"metric.{metric}", "kind": "metric_definition",
         "title": f"{title} v1", "authority_class": "semantic_registry", "owner": "Bakery Ops (Ida Holm)",
         "links": {"implemented_by": [f"{model}.v1"]},
         "metric": {"formula": "SUM(x) / SUM(y)", "grain": "one row per day", "unit": "ratio"},
         "text": f"{title} of the bakery."},
        {**base, "evidence_id": f"lineage.{metric}.v1", "entity_id": f"lineage.{metric}", "kind": "lineage",
         "title": f"{title} lineage", "authority_class": "dbt_manifest",
         "edges": [[f"source.{source}", f"{model}.v1"], [f"{model}.v1", f"metric.{metric}.v1"]],
         "text": f"{source} -> fct_{metric} -> {title}."},
    ]


OVENS = _chain("raw_ovens.bakes", "2031-05-20T10:00:00Z", "burn_share", "Burn share")  # 2 h: PASS
TILLS = _chain("raw_tills.sales", "2031-05-19T16:00:00Z", "sell_through", "Sell through")  # 20 h: WARN

STALE_WAY = ["is {} stale?", "is the {} data out of date?", "is {} data late?", "is {} not fresh?"]
FRESH_WAY = ["is {} fresh?", "is the {} data up to date?"]


@pytest.fixture(scope="module")
def bakery(tmp_path_factory, embedder):
    return asker(tmp_path_factory, embedder, "bakery", [*ROLES, "tasters"], [*OVENS, *TILLS, TASTING], AT)


def _line(env) -> str:
    assert env.behavior is Behavior.answer and env.freshness, (env.behavior, env.verdict)
    return headline(env)


@pytest.mark.parametrize("wording", STALE_WAY)
def test_asked_whether_stale_yes_means_stale(bakery, wording):
    stale = _line(bakery(wording.format("sell through"), "bakers"))
    assert stale.startswith("Yes") and "raw_tills.sales" in stale and "stale" in stale, stale
    fresh = _line(bakery(wording.format("burn share"), "bakers"))
    assert fresh.startswith("No, fresh") and "raw_ovens.bakes" in fresh, fresh


@pytest.mark.parametrize("wording", FRESH_WAY)
def test_asked_whether_fresh_yes_means_fresh(bakery, wording):
    assert _line(bakery(wording.format("burn share"), "bakers")).startswith("Yes, fresh")
    stale = _line(bakery(wording.format("sell through"), "bakers"))
    assert stale.startswith("No:") and "stale" in stale, stale


@pytest.mark.parametrize("wording,source,first", [
    ("is {} stale?", "raw_tills.sales", "Yes: raw_tills.sales is stale"),
    ("is {} stale?", "raw_ovens.bakes", "No: raw_ovens.bakes is fresh"),
    ("is {} fresh?", "raw_ovens.bakes", "Yes: raw_ovens.bakes is fresh"),
    ("is {} up to date?", "raw_tills.sales", "No: raw_tills.sales is stale"),
])
def test_a_source_asked_about_gets_yes_or_no_the_way_it_was_asked(bakery, wording, source, first):
    env = bakery(wording.format(source), "bakers")
    assert env.entity_id == f"source.{source}" and headline(env).startswith(first), headline(env)


@pytest.mark.parametrize("text", ["is anything stale?", "which sources are stale?", "are all the feeds up to date?"])
def test_no_visible_source_is_no_answer_either_way(bakery, text):
    """A role that sees no source cannot be told "No, nothing is stale": it is told there is nothing to check."""
    env = bakery(text, "tasters")
    line = headline(env)
    assert env.behavior is Behavior.answer and env.listing.checked == 0 and env.listing.answer is None, line
    assert line == "You can see no sources: nothing to check", line
    shown = env.model_dump_json()
    assert "raw_tills" not in shown and "raw_ovens" not in shown
    assert headline(bakery(text, "bakers")).startswith(("Yes", "No", "1 of", "2 of")), headline(bakery(text, "bakers"))


def test_demo_is_aov_stale_says_yes(ask_demo):
    line = headline(ask_demo("is AOV stale?", "analyst", at=DEMO_AT))
    assert line.startswith("Yes") and "raw_payments.payment_events" in line and "stale" in line, line
    line = headline(ask_demo("what feeds conversion rate and is any of it stale", "analyst", at=DEMO_AT))
    assert line.startswith("Yes") and "raw_web.sessions" in line, line


@pytest.mark.parametrize("text,entity,first", [
    ("what's stale about sell through?", "metric.sell_through", "Yes"),
    ("is anything stale for burn share?", "metric.burn_share", "No, fresh"),
    ("which models feed sell through and are they up to date?", "metric.sell_through", "No"),
    ("what metrics use raw_tills.sales and is it late?", "source.raw_tills.sales", "Yes"),
])
def test_a_freshness_question_naming_one_thing_is_about_that_thing(bakery, text, entity, first):
    """Listing words ("what's stale", "anything", "which models ... stale") beside a visible name ask about that
    thing's data: not a listing that reads the name as a topic and finds "no sources about sell through"."""
    env = bakery(text, "bakers")
    assert env.listing is None and env.entity_id == entity, (text, env.verdict)
    assert headline(env).startswith(first), headline(env)


@pytest.mark.parametrize("text,first", [
    ("is anything stale across all our sources?", "Yes"), ("are any sources stale at all?", "Yes"),
    ("is everything up to date?", "No"), ("are all the sources fresh?", "No"),
])
def test_the_opening_quantifier_decides_any_or_every(bakery, text, first):
    """"all" later in the question ("across all our sources", "at all") does not make "is anything stale?" ask whether
    every source is: that read "No: 1 of the 2 sources you can see is stale"."""
    line = headline(bakery(text, "bakers"))
    assert line.startswith(first + ":"), line


def test_not_stale_is_asked_the_fresh_way(bakery):
    assert _line(bakery("is sell through not stale?", "bakers")).startswith("No:")
    assert _line(bakery("is burn share not stale?", "bakers")).startswith("Yes, fresh")
