"""Whole-catalog listings asked in other words, and what a role learns from them.

Freshness of the whole catalog said with loading as a verb ("is everything loaded on time?", "did everything load
today?", "did anything fail to load?") is the same question as "is anything stale?": a freshness word, a whole-catalog
quantifier, no subject (core/read/intents/listing_filter.py STALE_WORDS / FRESH_WORDS). It was read as naming nothing and
answered not-found, for a role with sources and one without alike.

An owner named as a team lists what the team owns; a name no visible object is owned by (a role's name, a team that
owns only what the asker cannot see, a made-up one) gets the very answer a made-up name gets.

On a catalog the tests write (a harbour: other names, roles and dates than the demo's), then on the demo."""
from datetime import datetime, timezone

import pytest
from builders import watched_source
from conftest import asker

from core.catalog.envelope import Behavior

AT = datetime(2029, 3, 5, 9, 0, tzinfo=timezone.utc)
ROLES = ["dock", "pilots", "tolls", "clerks"]


def _source(name: str, loaded_at: str, acl: list[str], owner: str) -> list[dict]:
    return watched_source(name, acl, loaded_at, owner=owner, since="2027-01-01",
                          text=f"{name} exported by the harbour system.")


def _metric(name: str, title: str, acl: list[str], owner: str) -> dict:
    return {"evidence_id": f"metric.{name}.v1", "entity_id": f"metric.{name}", "kind": "metric_definition",
            "title": f"{title} v1", "version": "1", "authority": "authoritative", "lifecycle": "current",
            "authority_class": "semantic_registry", "valid_from": "2027-01-01", "acl": acl, "owner": owner,
            "metric": {"formula": f"SUM({name}_hours) / COUNT(*)", "grain": "one row per call", "unit": "hours"},
            "text": f"{title} per ship call."}


TIDES = _source("raw_quay.tides", "2029-03-05T07:00:00Z", ["dock", "pilots"], "Harbour IT (Ola Vik)")  # fresh
GATES = _source("raw_lock.gates", "2029-03-03T07:00:00Z", ["dock"], "Lock Crew (Ida Moe)")  # stale
LEDGER = _source("raw_fees.ledger", "2029-03-05T08:00:00Z", ["tolls"], "Toll Office (Per Dahl)")
METRICS = [_metric("berth_turnaround", "Berth turnaround", ROLES, "Harbour Analytics (Siv Aas)"),
           _metric("pilot_wait", "Pilot wait", ["dock", "pilots"], "Harbour Analytics (Siv Aas)"),
           _metric("toll_yield", "Toll yield", ["tolls"], "Toll Office (Per Dahl)")]
FULL = [*TIDES, *GATES, *LEDGER, *METRICS]
# Every visible thing each role could be told of, by the words naming it.
SEES = {"dock": {"raw_quay.tides", "raw_lock.gates", "Berth turnaround", "Pilot wait"},
        "pilots": {"raw_quay.tides", "Berth turnaround", "Pilot wait"},
        "tolls": {"raw_fees.ledger", "Berth turnaround", "Toll yield"},
        "clerks": {"Berth turnaround"}}
NAMES = set().union(*SEES.values()) | {"Toll Office", "Per Dahl", "Lock Crew", "Ida Moe", "Harbour IT", "Ola Vik"}

# Loading said as a verb, with when: the fresh side, then the stale side.
LOADED_FRESH = ["is everything loaded on time?", "did everything load today?", "has everything been loaded on time?",
                "did all the data arrive on time?", "did all the feeds land on time?"]
LOADED_STALE = ["did anything fail to load?", "is anything loaded late?", "did any tables land late?",
                "did anything not load today?", "has anything not been refreshed today?"]
# ... and asked for the list, the negation said any way: the stale ones are listed.
NOT_LOADED_LISTS = ["which sources did not load today?", "which tables haven't loaded today?",
                    "what didn't load on time?", "what's not running on time?",
                    "which feeds weren't refreshed this morning?"]


@pytest.fixture(scope="module")
def harbour(tmp_path_factory, embedder):
    return asker(tmp_path_factory, embedder, "harbour", ROLES, FULL, AT)


def _listed(env) -> list[str]:
    assert env.behavior is Behavior.answer and env.intent == "discover", (env.behavior, env.intent, env.verdict)
    return [i.label for i in env.listing.items]


@pytest.mark.parametrize("text", LOADED_FRESH)
def test_loaded_on_time_asks_whether_every_source_is_fresh(harbour, text):
    env = harbour(text, "dock")
    assert _listed(env) == ["raw_quay.tides"] and env.listing.checked == 2, (text, env.verdict)
    assert env.verdict.startswith("No: 1 of the 2 sources you can see is fresh"), (text, env.verdict)
    assert "Stale: raw_lock.gates" in env.verdict, env.verdict


@pytest.mark.parametrize("text", LOADED_STALE)
def test_loaded_late_asks_whether_any_source_is_stale(harbour, text):
    env = harbour(text, "dock")
    assert _listed(env) == ["raw_lock.gates"], (text, env.verdict)
    assert env.verdict.startswith("Yes: 1 of the 2 sources you can see is stale"), (text, env.verdict)


@pytest.mark.parametrize("text", NOT_LOADED_LISTS)
def test_what_did_not_load_lists_the_stale_sources(harbour, text):
    env = harbour(text, "dock")
    assert _listed(env) == ["raw_lock.gates"] and env.listing.checked == 2, (text, env.verdict)
    assert env.listing.condition == "is stale", (text, env.listing.condition)


@pytest.mark.parametrize("text", LOADED_FRESH + LOADED_STALE + NOT_LOADED_LISTS)
def test_a_role_with_no_sources_is_told_there_is_nothing_to_check(harbour, text):
    env = harbour(text, "clerks")
    assert _listed(env) == [] and env.listing.checked == 0, (text, env.verdict)
    assert env.verdict.startswith("You can see no sources: there is nothing to check"), (text, env.verdict)


@pytest.mark.parametrize("text", ["did berth turnaround load today?", "which metrics load ship calls?",
                                  "which sources are running today?"])
def test_load_with_a_subject_or_no_time_is_no_catalog_freshness_listing(harbour, text):
    env = harbour(text, "dock")
    assert not (env.intent == "discover" and env.listing and env.listing.kind == "source"), (text, env.verdict)


@pytest.mark.parametrize("text", ["which metrics are owned by Harbour Analytics?",
                                  "which metrics are owned by the Harbour Analytics team?",
                                  "what metrics does Siv Aas own?"])
def test_a_team_or_person_named_as_owner_lists_what_they_own(harbour, text):
    assert _listed(harbour(text, "dock")) == ["Berth turnaround", "Pilot wait"], text
    assert _listed(harbour(text, "clerks")) == ["Berth turnaround"], text


# (owner named, a role that sees nothing that owner owns): a role's name, a team or person owning only hidden objects.
UNSEEN_OWNERS = [("tolls", r) for r in ROLES] + [(n, r) for n in ("the Toll Office", "Per Dahl")
                                                  for r in ("dock", "pilots", "clerks")] + [
    ("Lock Crew", r) for r in ("pilots", "tolls", "clerks")]
# The owners each role sees something of, by the words of their names.
OWNERS_SEEN = {"dock": {"Harbour IT", "Ola Vik", "Lock Crew", "Ida Moe"}, "pilots": {"Harbour IT", "Ola Vik"},
               "tolls": {"Toll Office", "Per Dahl"}, "clerks": set()}


@pytest.mark.parametrize("name,role", UNSEEN_OWNERS)
def test_an_owner_of_only_hidden_objects_reads_as_a_made_up_name(harbour, name, role):
    got = harbour(f"which metrics are owned by {name}?", role)
    made_up = harbour("which metrics are owned by Zed Quorn?", role)
    assert got.behavior is made_up.behavior is Behavior.not_found_or_not_authorized, (name, role, got.verdict)
    assert got.verdict == made_up.verdict and got.listing is None, (name, role)


@pytest.mark.parametrize("text", ["what does Ida Moe own?", "what does the Lock Crew own?"])
def test_an_owner_asked_of_no_kind_gets_the_kind_they_own(harbour, text):
    # Ida Moe's crew owns one source and no metric: "None of the 2 metrics" would hide it.
    env = harbour(text, "dock")
    assert env.listing.kind == "source" and _listed(env) == ["raw_lock.gates"], (text, env.verdict)
    # Pilots may not see that source: the name reads as a made-up one.
    hidden, made_up = harbour(text, "pilots"), harbour("what does Zed Quorn own?", "pilots")
    assert hidden.behavior is made_up.behavior is Behavior.not_found_or_not_authorized, (text, hidden.verdict)
    assert hidden.verdict == made_up.verdict


def test_the_owning_team_sees_its_own(harbour):
    assert _listed(harbour("which metrics are owned by the Toll Office?", "tolls")) == ["Toll yield"]


@pytest.mark.parametrize("role", ROLES)
def test_no_listing_names_what_the_role_cannot_see(harbour, role):
    hidden = NAMES - SEES[role] - OWNERS_SEEN[role] - {"Harbour Analytics", "Siv Aas"}
    for text in [*LOADED_FRESH, *LOADED_STALE, *NOT_LOADED_LISTS, "is anything stale?", "which metrics are affected by stale data?",
                 "list the metrics", "list the sources", "which sources does Per Dahl own?",
                 "which metrics are owned by tolls?", "what does the Lock Crew own?", "which sources does Ida Moe own?"]:
        said = harbour(text, role).model_dump_json()
        assert not [n for n in hidden if n in said], (role, text, [n for n in hidden if n in said])


@pytest.mark.parametrize("text", ["is everything loaded on time", "did everything load today?"])
def test_demo_governance_gets_the_freshness_answer(ask_demo, text):
    env = ask_demo(text, "governance")
    assert _listed(env) == [] and env.verdict.startswith("You can see no sources"), env.verdict
    env = ask_demo(text, "analyst")
    assert env.listing.kind == "source" and env.listing.checked == 4 and env.verdict.startswith("No: "), env.verdict


def test_demo_a_role_name_as_owner_reads_as_a_made_up_name(ask_demo):
    got, made_up = (ask_demo(f"which metrics are owned by {n}", "analyst") for n in ("finance", "Zed Quorn"))
    assert got.behavior is Behavior.not_found_or_not_authorized and got.verdict == made_up.verdict
