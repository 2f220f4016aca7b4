"""Freshness asked of the whole catalog ("which sources are stale?", "is anything stale?", "what data is late?") lists
the role's visible sources by their freshness at the evaluation time, each with the status, hours since its last load
and its thresholds: stale is WARN or ERROR, fresh is PASS, and a source with no recorded load is said to be not known,
neither stale nor fresh (core/read/intents/listing_filter.py reads the condition, core/answer/intents/discover.py lists,
core/resolve/stale.py sorts by the status core/resolve/freshness.py computes). These questions answered "not found".
A source the role cannot see is never counted or named: the answer is the one the catalog without it gives.

On a catalog the tests write (an orchard's packhouse: other names, roles and clock than the demo's), then on the
demo."""
from datetime import datetime, timezone

import pytest
from builders import watched_source
from conftest import DEMO_AT, asker
from conftest import listed as _listed

from core.catalog.envelope import Behavior
from core.explain.render import render_text

AT = datetime(2029, 3, 5, 9, 0, tzinfo=timezone.utc)
ROLES = ["growers", "packhouse", "buyers"]
YARD = ["growers", "packhouse"]


def _source(name: str, text: str, acl: list[str], loaded_at: str | None) -> list[dict]:
    return watched_source(name, acl, loaded_at, owner="Packhouse Systems (Oda Rye)", since="2028-01-01", text=text,
                          warn=12, error=36)


BINS = _source("raw_scale.bins", "Apple bins weighed at the scale.", ROLES, "2029-03-05T06:00:00Z")  # 3 h: PASS
TEMPS = _source("raw_coldstore.temps", "Cold store temperatures.", YARD, "2029-03-04T13:00:00Z")  # 20 h: WARN
LANES = _source("raw_grader.lanes", "Grading lane counts.", YARD, "2029-03-03T09:00:00Z")  # 48 h: ERROR
WEATHER = _source("raw_weather.station", "Orchard weather station readings.", YARD, None)  # no load: not known
# Stale, and seen by the growers alone: the packhouse and the buyers must never learn of it.
PAYSLIPS = _source("raw_payroll.payslips", "Picker payslips.", ["growers"], "2029-03-01T09:00:00Z")
METRIC = {"evidence_id": "metric.pack_out.v1", "entity_id": "metric.pack_out", "kind": "metric_definition",
          "title": "Pack-out rate v1", "version": "1", "authority": "authoritative", "lifecycle": "current",
          "authority_class": "semantic_registry", "valid_from": "2028-01-01", "acl": ROLES,
          "owner": "Packhouse Finance (Eli Moss)", "metric": {"formula": "SUM(packed_kg) / SUM(received_kg)",
                                                             "grain": "one row per day", "unit": "ratio"},
          "text": "Share of received fruit that is packed."}
VISIBLE = [*BINS, *TEMPS, *LANES, *WEATHER, METRIC]
HIDDEN_MARKS = ("payroll", "payslip")

STALE = ["which sources are stale?", "what data is late?", "which tables failed their freshness check?",
         "are any sources overdue?", "is anything stale?", "which sources are out of date?", "any stale tables?",
         "what's stale?", "which feeds are not fresh?", "has anything failed its freshness check?"]
FRESH = ["which sources are fresh?", "which tables are up to date?", "what data is on time?"]


@pytest.fixture(scope="module")
def orchard(tmp_path_factory, embedder):
    return asker(tmp_path_factory, embedder, "orchard", ROLES, [*VISIBLE, *PAYSLIPS], AT)


@pytest.fixture(scope="module")
def orchard_without_payslips(tmp_path_factory, embedder):
    return asker(tmp_path_factory, embedder, "orchard_nopay", ROLES, VISIBLE, AT)


@pytest.mark.parametrize("text", STALE)
def test_stale_lists_the_visible_sources_past_their_thresholds(orchard, text):
    env = orchard(text, "packhouse")
    assert _listed(env) == ["source.raw_coldstore.temps", "source.raw_grader.lanes"], (text, env.verdict)
    assert env.listing.checked == 4 and env.listing.condition == "is stale", text
    temps, lanes = env.listing.items
    assert (temps.freshness.status, temps.freshness.age_hours) == ("warn", 20.0)
    assert (lanes.freshness.status, lanes.freshness.age_hours, lanes.freshness.warn_after_hours,
            lanes.freshness.error_after_hours) == ("error", 48.0, 12.0, 36.0)
    assert "last loaded 2 days ago" in lanes.status and "error after 36 h" in lanes.status
    assert "raw_grader.lanes (ERROR, last loaded 2 days ago)" in env.verdict, env.verdict
    assert "raw_scale.bins" not in env.verdict, env.verdict  # fresh: not stale


@pytest.mark.parametrize("text", STALE + FRESH)
def test_a_source_with_no_recorded_load_is_said_to_be_not_known(orchard, text):
    env = orchard(text, "packhouse")
    assert [it.entity_id for it in env.listing.not_known] == ["source.raw_weather.station"], text
    assert "source.raw_weather.station" not in _listed(env), text
    assert "Not known for raw_weather.station" in env.verdict, env.verdict


@pytest.mark.parametrize("text", FRESH)
def test_fresh_lists_the_sources_within_their_thresholds_and_names_the_stale(orchard, text):
    env = orchard(text, "packhouse")
    assert _listed(env) == ["source.raw_scale.bins"] and env.listing.condition == "is fresh", (text, env.verdict)
    assert "Stale: raw_coldstore.temps (WARN" in env.verdict, env.verdict


@pytest.mark.parametrize("text, role, word", [
    ("is anything stale?", "packhouse", "Yes"), ("are any sources overdue?", "packhouse", "Yes"),
    ("is anything stale?", "buyers", "No"), ("is any data late?", "buyers", "No"),
    ("is everything up to date?", "packhouse", "No"), ("are all the sources fresh?", "packhouse", "No"),
    ("is everything up to date?", "buyers", "Yes"), ("are all the sources fresh?", "buyers", "Yes")])
def test_is_anything_stale_is_answered_yes_or_no(orchard, text, role, word):
    env = orchard(text, role)
    assert env.behavior is Behavior.answer and env.listing.answer == word.lower(), (text, role, env.verdict)
    assert env.verdict.startswith(f"{word}: "), env.verdict
    if role == "buyers":  # the one source the buyers see is the fresh bins
        assert env.listing.checked == 1, env.verdict


@pytest.mark.parametrize("text", STALE + FRESH + ["is everything up to date?"])
def test_a_hidden_stale_source_is_never_counted_or_named(orchard, orchard_without_payslips, text):
    growers = orchard(text, "growers")
    assert growers.listing.checked == 5, (text, growers.verdict)  # the growers see the payslips ...
    packhouse = orchard(text, "packhouse")
    shown = (packhouse.model_dump_json() + render_text(packhouse)).lower()
    assert not [m for m in HIDDEN_MARKS if m in shown], text  # ... the packhouse never learns of them
    assert packhouse.listing.checked == 4, text
    alone = orchard_without_payslips(text, "packhouse")
    assert (packhouse.verdict, packhouse.listing.model_dump()) == (alone.verdict, alone.listing.model_dump()), text


def test_growers_see_the_payslips_stale(orchard):
    env = orchard("which sources are stale?", "growers")
    assert "source.raw_payroll.payslips" in _listed(env), env.verdict


# ---- the demo -------------------------------------------------------------------------------------------------------
HIDDEN_FROM_ANALYST = ("raw_finance", "cogs", "raw_ads")


@pytest.mark.parametrize("text", ["which sources are stale?", "is anything stale?", "what data is late?",
                                  "which tables failed their freshness check?", "are any sources overdue?"])
def test_demo_analyst_stale_sources(ask_demo, text):
    env = ask_demo(text, "analyst", at=DEMO_AT)
    assert _listed(env) == ["source.raw_payments.payment_events", "source.raw_web.sessions"], (text, env.verdict)
    assert env.listing.checked == 4 and [it.entity_id for it in env.listing.not_known] == ["source.raw_crm.customers"]
    shown = (env.model_dump_json() + render_text(env)).lower()
    assert not [m for m in HIDDEN_FROM_ANALYST if m in shown], text


def test_demo_is_anything_stale_says_yes(ask_demo):
    env = ask_demo("is anything stale?", "analyst", at=DEMO_AT)
    assert env.verdict.startswith("Yes: 2 of the 4 sources you can see are stale"), env.verdict
