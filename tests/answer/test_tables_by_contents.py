"""Sources and models named by what they hold (issue 39 item 3): "is the ticket sales feed late?", "is the vessel
position data fresh?". A source is often named in its loader's shorthand while its description or columns say what
an analyst calls it; nothing the role may see is answered "not found" for that. A name made up of words the closest
object never uses is still not found, never answered by a look-alike of another kind ("what is the ticket velocity
metric?" is no metric). On a ferry line's catalog the test writes itself."""
from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pytest
from builders import watched_source
from conftest import asker, build

from core.answer.ask import Question, ask
from core.catalog.envelope import Behavior

NORTHGATE = Path(__file__).resolve().parents[1] / "fixtures" / "read" / "northgate.catalog.yaml"

AT = datetime(2027, 10, 4, 6, 0, tzinfo=timezone.utc)
ROLES = ["dispatch", "purser"]
OWNER = "Fleet Data (Hanne Voss)"


def _source(name: str, text: str, columns: list[str], loaded_at: str, acl: list[str] = ROLES) -> list[dict]:
    out = watched_source(name, acl, loaded_at, owner=OWNER, since="2026-01-01", text=text, warn=6, error=24)
    out[0]["model"] = {"columns": columns}
    return out


EVIDENCE = [
    *_source("bk_x.tx01", "Exported nightly from the booking platform.", ["ticket_id", "sold_at", "fare_eur"],
             "2027-10-03T01:00:00Z"),
    *_source("ais_gw.pings", "Transponder messages from every vessel.", ["mmsi", "vessel_position", "heading"],
             "2027-10-04T05:30:00Z"),
    *_source("qx_pull.resp", "CX survey answers from passengers, pulled weekly.", ["response_id", "score"],
             "2027-09-30T00:00:00Z", ["purser"]),
    {"evidence_id": "model.fct_sailings.v1", "entity_id": "model.fct_sailings", "kind": "model",
     "title": "fct_sailings", "version": "1", "authority": "authoritative", "lifecycle": "current",
     "authority_class": "dbt_manifest", "valid_from": "2026-01-01", "acl": ROLES, "owner": OWNER,
     "model": {"relation": "analytics.fct_sailings", "grain": "one row per sailing"},
     "text": "One row per departure with its scheduled and actual times."},
    # "velocity" is a word the role knows, from this page only: a name using it is not made of unknown words.
    {"evidence_id": "wiki.weather_limits.1", "entity_id": "wiki.weather_limits", "kind": "documentation",
     "title": "Crossing weather limits (wiki)", "version": "1", "authority": "non_authoritative",
     "lifecycle": "current", "authority_class": "wiki", "valid_from": "2026-01-01", "acl": ROLES, "owner": OWNER,
     "text": "Sailings stop when wind velocity exceeds 25 metres per second."},
    {"evidence_id": "metric.punctuality.v1", "entity_id": "metric.punctuality", "kind": "metric_definition",
     "title": "Sailing punctuality v1", "version": "1", "authority": "authoritative", "lifecycle": "current",
     "authority_class": "semantic_registry", "valid_from": "2026-01-01", "acl": ROLES, "owner": OWNER,
     "links": {"implemented_by": ["model.fct_sailings.v1"]},
     "metric": {"formula": "COUNT_IF(delay_min <= 5) / COUNT(*)", "grain": "one row per sailing", "unit": "ratio"},
     "text": "Share of sailings leaving within five minutes of schedule."},
]


@pytest.fixture(scope="module")
def ask_ferry_line(tmp_path_factory, embedder):
    return asker(tmp_path_factory, embedder, "ferry_line", ROLES, EVIDENCE, AT)


@pytest.mark.parametrize("question, role, entity", [
    ("is the booking platform export late?", "dispatch", "source.bk_x.tx01"),
    ("is the vessel position data fresh?", "dispatch", "source.ais_gw.pings"),
    ("is the transponder feed up to date?", "purser", "source.ais_gw.pings"),
    ("is the CX feed late?", "purser", "source.qx_pull.resp"),
    ("is the sailings data up to date?", "dispatch", "model.fct_sailings"),
    ("is the departures data fresh?", "purser", "model.fct_sailings"),
])
def test_a_table_named_by_what_it_holds_is_found(ask_ferry_line, question, role, entity):
    env = ask_ferry_line(question, role)
    assert env.behavior in (Behavior.answer, Behavior.abstain), (env.behavior, env.verdict)
    assert env.entity_id == entity


def test_several_tables_holding_it_are_offered_not_lost(ask_ferry_line):
    env = ask_ferry_line("is the nightly export fresh?", "purser")  # the booking export; the survey is weekly
    assert env.behavior in (Behavior.answer, Behavior.abstain) and env.entity_id == "source.bk_x.tx01", env.verdict
    env = ask_ferry_line("are the passenger answers fresh?", "purser")  # only the survey's text says so
    assert env.entity_id == "source.qx_pull.resp", env.verdict


@pytest.mark.parametrize("question, role", [
    ("what is the ticket velocity metric?", "dispatch"),
    ("what is the vessel heading drift metric?", "dispatch"),
    ("is the catering feed late?", "dispatch"),
    ("is the CX feed late?", "dispatch"),  # the survey source is the purser's only: as if never written
])
def test_a_made_up_name_is_not_answered_by_a_look_alike(ask_ferry_line, question, role):
    env = ask_ferry_line(question, role)
    assert env.behavior is Behavior.not_found_or_not_authorized, (env.behavior, env.entity_id, env.verdict)
    assert "qx_pull" not in env.model_dump_json()


@pytest.fixture(scope="module")
def ask_hospital(tmp_path_factory, embedder):
    store, searcher = build(tmp_path_factory.mktemp("northgate"), "northgate", NORTHGATE, embedder)
    yield lambda text, role: ask(store, Question(role=role, text=text), searcher=searcher)
    store.close()


@pytest.mark.parametrize("question", ["what is the lab results velocity metric?",
                                      "define the lab results velocity kpi"])
def test_a_source_that_sounds_like_a_made_up_metric_does_not_stand_in(ask_hospital, question):
    # On the hospital network's catalog "velocity" is a word the clinician knows (a chat export uses it) and the lab
    # source's columns say "lab results": similarity picked the source and answered its freshness.
    env = ask_hospital(question, "clinician")
    assert env.behavior is Behavior.not_found_or_not_authorized, (env.entity_id, env.verdict)
    env = ask_hospital("what is the lab results data?", "clinician")
    assert env.entity_id == "source.lis.specimen_results"
