"""Extreme days and times on every surface (issue 40, item 3): a reporting date, a period's ends or an evaluation
time outside the days AsOf answers for (core.read.dates.day_range: FIRST_DAY..LAST_DAY) get the one out-of-range refusal,
in the same words, from the CLI (--date, --period, --at), the MCP tools (ask, metric_value, get_freshness, over the
SDK's in-memory client) and the Ask page (AppTest); a day inside is answered. Never an internal error or a
traceback. Before: --at 9999-12-31 ended in an OverflowError traceback, a period ending in 9999 by month in "year
10000 is out of range", the Ask page raised on a shared link's 1990 date and on an evaluation day in 9999.
A tide-gauge catalog this file builds; Hypothesis draws the days from the whole calendar."""
from __future__ import annotations

import json
import os
from datetime import date, datetime, time, timedelta, timezone

import anyio
import pytest
import yaml
from builders import watched_source
from conftest import ROOT, cli
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from mcp import Client
from streamlit.testing.v1 import AppTest

from core.catalog.store import write_catalog
from core.ingest.load import load_catalog
from core.read.dates.day_range import FIRST_DAY, LAST_DAY, RANGE
from core.serve.mcp_server import CatalogHolder, Principal, build_server
from core.settings.config import Settings

ROLE = "surveyor"
OWNER = "Coastal Survey (Mira Lund)"
COMMON = {"authority": "authoritative", "authority_class": "semantic_registry", "acl": [ROLE], "owner": OWNER}
CATALOG = {
    "roles": [{"name": ROLE, "description": "Harbour surveyors"}],
    "principals": [{"name": "kai", "roles": [ROLE]}],
    "evidence": [
        {**COMMON, "evidence_id": "metric.tide_range.v1", "entity_id": "metric.tide_range", "kind": "metric_definition",
         "title": "Tide range v1", "version": "1", "lifecycle": "historical", "valid_from": "1950-01-01",
         "valid_through": "2019-12-31", "links": {"implemented_by": ["model.fct_tides.v1"]},
         "metric": {"formula": "MAX(level_cm) - MIN(level_cm)"}, "text": "Tide range by daily extremes."},
        {**COMMON, "evidence_id": "metric.tide_range.v2", "entity_id": "metric.tide_range", "kind": "metric_definition",
         "title": "Tide range v2", "version": "2", "lifecycle": "current", "valid_from": "2020-01-01",
         "links": {"implemented_by": ["model.fct_tides.v1"]},
         "metric": {"formula": "AVG(high_cm - low_cm)"}, "text": "Tide range as the mean of tidal cycles."},
        {**COMMON, "evidence_id": "model.fct_tides.v1", "entity_id": "model.fct_tides", "kind": "model",
         "title": "fct_tides", "version": "1", "lifecycle": "current", "authority_class": "dbt_manifest",
         "valid_from": "1950-01-01", "model": {"relation": "survey.fct_tides"}, "text": "One row per tidal cycle."},
        {**COMMON, "evidence_id": "lineage.tides.v1", "entity_id": "lineage.tides", "kind": "lineage",
         "title": "Tides lineage", "version": "1", "lifecycle": "current", "authority_class": "dbt_manifest",
         "valid_from": "1950-01-01", "edges": [["source.gauge_readings", "model.fct_tides.v1"],
                                               ["model.fct_tides.v1", "metric.tide_range.v1"],
                                               ["model.fct_tides.v1", "metric.tide_range.v2"]],
         "text": "Gauge readings feed fct_tides, which backs tide range."},
        *watched_source("gauge_readings", [ROLE], "2027-03-01T06:00:00Z", owner=OWNER, since="1950-01-01"),
    ]}
PROFILE = dict(deadline=None, derandomize=True, database=None,
               suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
EDGES = [date(1, 1, 1), date(9999, 12, 31), date(9999, 1, 1), FIRST_DAY - timedelta(days=1), FIRST_DAY, LAST_DAY,
         LAST_DAY + timedelta(days=1), date(2024, 6, 30)]
DAYS = st.one_of(st.sampled_from(EDGES), st.dates())
ZONES = st.sampled_from([timezone.utc, timezone(timedelta(hours=14)), timezone(timedelta(hours=-12))])


def _inside(*days: date) -> bool:
    return all(FIRST_DAY <= d <= LAST_DAY for d in days)


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    folder = tmp_path_factory.mktemp("tides")
    (folder / "tides.yaml").write_text(yaml.safe_dump(CATALOG, sort_keys=False))
    path = folder / "tides.duckdb"
    write_catalog(load_catalog(folder / "tides.yaml"), path)
    return path


def _cli_says(r, refused: bool) -> None:
    said = r.stdout + r.stderr
    assert "Traceback" not in said and "internal error" not in said, said
    if refused:
        assert r.returncode == 2 and "is out of range" in r.stderr and RANGE in r.stderr, said
    else:
        assert r.returncode == 0, said


@settings(max_examples=25, **PROFILE)
@given(day=DAYS, other=DAYS)
@example(day=date(1, 1, 1), other=date(9999, 12, 31))  # ten thousand years, asked for by month
def test_the_cli_refuses_days_out_of_range_and_answers_the_others(db, day, other):
    a, b = sorted((day, other))
    r = cli("ask", "--db", str(db), "--role", ROLE, "--date", day.isoformat(), "what is tide range?")
    _cli_says(r, not _inside(day))
    r = cli("ask", "--db", str(db), "--role", ROLE, "--period", f"{a}..{b}", "tide range by month")
    _cli_says(r, not _inside(a, b))


@settings(max_examples=25, **PROFILE)
@given(when=st.datetimes(min_value=datetime(1, 1, 2), max_value=datetime(9999, 12, 30, 23, 59), timezones=ZONES))
@example(when=datetime(9999, 12, 30, 23, 59, tzinfo=timezone.utc))
@example(when=datetime(1, 1, 2, 0, 0, tzinfo=timezone(timedelta(hours=-12))))
def test_the_cli_refuses_evaluation_times_out_of_range(db, when):
    r = cli("ask", "--db", str(db), "--role", ROLE, "--at", when.isoformat(), "is the tide range data fresh?")
    _cli_says(r, not _inside(when.date()))


@pytest.fixture(scope="module")
def server(db):
    holder = CatalogHolder(db, Settings())
    holder.ready.set()  # no search index: nothing to warm
    return build_server(holder, Principal(name="kai"))


def _tools(server, calls: list[tuple[str, dict]]) -> list:
    async def main():
        async with Client(server) as c:
            return [await c.call_tool(name, args) for name, args in calls]
    return anyio.run(main)


@settings(max_examples=20, **PROFILE)
@given(day=DAYS, other=DAYS, zone=ZONES)
@example(day=date(1, 1, 1), other=date(9999, 12, 31), zone=timezone.utc)
def test_the_mcp_tools_refuse_days_out_of_range_and_answer_the_others(server, day, other, zone):
    a, b = sorted((day, other))
    at = datetime.combine(day, time(12), tzinfo=zone).isoformat()
    calls = [("ask", {"question": "what is tide range?", "date": day.isoformat()}),
             ("ask", {"question": "tide range by month", "period": f"{a}..{b}"}),
             ("ask", {"question": "is the tide range data fresh?", "at": at}),
             ("metric_value", {"entity": "metric.tide_range", "period": f"{a}..{b}", "grain": "month"}),
             ("get_freshness", {"entity": "metric.tide_range", "at": at})]
    refused = [not _inside(day), not _inside(a, b), not _inside(day), not _inside(a, b), not _inside(day)]
    for (name, args), out, no in zip(calls, _tools(server, calls), refused):
        text = out.content[0].text
        # a crash reaches the caller as the bare "Error executing tool NAME" (the SDK hides its message)
        assert "internal error" not in text and "Traceback" not in text, text
        assert text.strip() != f"Error executing tool {name}", (name, args)
        if no:
            assert out.is_error and "is out of range" in text and RANGE in text, (name, args, text)
        else:
            assert not out.is_error, (name, args, text)
            assert json.loads(text)["answered_as"]["role"] == ROLE


def _page(db, **link) -> AppTest:
    os.environ["ASOF_DB"] = str(db)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.session_state["role"] = ROLE
    state = link.pop("state", {})
    for k, v in state.items():
        at.session_state[k] = v
    for k, v in link.items():
        at.query_params[k] = v
    return at.run()


def _page_text(at: AppTest) -> str:
    return "\n".join(str(e.value) for part in (at.error, at.warning) for e in part)


@pytest.fixture(scope="module")
def page_db(db):
    yield db
    os.environ.pop("ASOF_DB", None)


@settings(max_examples=6, **PROFILE)
@given(day=DAYS, other=DAYS)
@example(day=date(1, 1, 1), other=date(9999, 12, 31))
@example(day=date(1990, 5, 1), other=date(2024, 6, 30))  # inside the range but outside the pickers' old bounds
def test_the_ask_page_refuses_days_out_of_range_and_answers_the_others(page_db, day, other):
    a, b = sorted((day, other))
    for link, inside in (({"date": day.isoformat()}, _inside(day)), ({"period": f"{a}..{b}"}, _inside(a, b)),
                         ({"state": {"at_day": day}}, _inside(day))):
        at = _page(page_db, q="what is tide range?", **link)
        assert not at.exception, (link, [e.value for e in at.exception])
        said = _page_text(at)
        if inside:
            assert "out of range" not in said, (link, said)
        else:
            assert "is out of range" in said and RANGE in said, (link, said)
        assert "envelope_json" in at.session_state, link  # the question is still answered, without that day


def test_a_question_naming_a_day_out_of_range_is_asked_back(db):
    for text in ("tide range on 0001-01-01", "tide range on 9999-12-31", "tide range for Q4 9999",
                 "tide range in March 0500", "tide range on 31 December 9999"):
        r = cli("ask", "--db", str(db), "--role", ROLE, "--json", text)
        assert r.returncode == 0, r.stderr
        env = json.loads(r.stdout)
        assert env["behavior"] == "clarify" and RANGE in env["verdict"], env["verdict"]
