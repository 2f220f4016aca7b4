"""dbt metric values in answers: a question asked of a catalog ingested from a dbt project with a semantic
manifest is answered with MetricFlow's values (core/compute/metricflow_engine.py, chosen by
core/compute/choose.py) on every surface: ask(), the CLI's --json (audited, and replayed), the MCP tool
`metric_value`. The values equal `mf query` run by hand in the project and SQL written here over the warehouse;
a role that may not see the metric gets the same not-found as for a metric that does not exist.

The project and catalog are jaffle_project.py's fixtures; each `mf query` costs seconds, so every request
here is one query (months batched at grain month)."""
from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from datetime import date, datetime
from pathlib import Path

import pytest
from jaffle_project import catalog, jaffle  # noqa: F401  (fixtures, named as arguments)
from test_metricflow import warehouse  # the independently written SQL, over the same built warehouse

from core.answer.ask import Question, ask
from core.compute.choose import value_engine
from core.explain.value_text import number
from core.ingest.metricflow import DbtTools, tool_env
from core.serve import mcp_tools
from core.serve.audit import read_all
from core.serve.mcp_auth import Identity
from core.serve.mcp_server import CatalogHolder
from core.serve.replay import replay
from core.settings.config import Settings

ROOT = Path(__file__).resolve().parents[2]
MONTH = "date_trunc('month', ordered_at)::date"




def large_orders(project: Path, threshold: int) -> dict[date, float]:
    return warehouse(project, f"SELECT {MONTH}, count(*) FROM orders WHERE order_total >= {threshold} "
                              "AND ordered_at >= '2024-01-01' AND ordered_at < '2024-04-01' GROUP BY 1")


def by_start(values) -> dict[date, float]:
    return {v.start: v.value for v in values}


@pytest.fixture(scope="module")
def engine(catalog):
    store, _, _ = catalog
    return value_engine(store, Settings.from_env())


def test_an_ask_on_the_ingested_project_gives_what_mf_query_gives(jaffle, catalog, engine):
    store, v2, _ = catalog
    assert engine.name == "metricflow" and engine.project == v2  # the last ingested target/'s project
    env = ask(store, Question(role="analyst", text="what was revenue in 2024 by month?"), engine=engine)
    assert env.values.status == "computed", env.values.message
    values = env.values.values
    assert [v.start for v in values] == [date(2024, m, 1) for m in range(1, 13)]
    assert {(v.engine, v.evidence_id) for v in values} == {("metricflow", "metric.jaffle_shop.revenue")}
    assert len({v.sql for v in values}) == 1 and "metric_time__month" in values[0].sql  # one query, not twelve
    out = jaffle.parent / "revenue-2024.csv"
    subprocess.run([str(DbtTools.from_settings().tool("mf")), "query", "--metrics", "revenue", "--group-by",
                    "metric_time__month", "--start-time", "2024-01-01", "--end-time", "2024-12-31", "--csv",
                    str(out), "--quiet"], cwd=jaffle, env=tool_env(jaffle), check=True, capture_output=True,
                   timeout=300)
    with open(out, newline="") as fh:
        direct = {datetime.fromisoformat(r["metric_time__month"]).date(): float(r["revenue"])
                  for r in csv.DictReader(fh)}
    assert by_start(values) == direct


def test_values_use_the_definition_of_the_state_that_answers(jaffle, catalog, engine):
    # large_orders counted orders of 20 or more at the first ingest, 30 or more since the second.
    store, _, between = catalog
    text = "what was large orders in Q1 2024 by month?"
    now = ask(store, Question(role="analyst", text=text), engine=engine)
    then = ask(store, Question(role="analyst", text=text, recorded_at=between), engine=engine)
    assert by_start(now.values.values) == large_orders(jaffle, 30)
    assert by_start(then.values.values) == large_orders(jaffle, 20)
    assert "kept at ingest 2" in now.values.values[0].sql and "kept at ingest 1" in then.values.values[0].sql


def test_a_role_that_may_not_see_the_metric_gets_the_not_found(catalog, tmp_path):
    store, v2, _ = catalog
    # A toolchain that does not exist: were MetricFlow reached, the values would say it is missing.
    nowhere = value_engine(store, Settings.from_env().model_copy(update={"dbt_venv": tmp_path / "no-venv"}))
    hidden = ask(store, Question(role="analyst", text="what was order gross profit in 2024 by month?"),
                 engine=nowhere)
    absent = ask(store, Question(role="analyst", text="what was order gross profix in 2024 by month?"),
                 engine=nowhere)
    assert hidden.behavior.value == "not_found_or_not_authorized" and hidden.values is None
    assert hidden.verdict == absent.verdict
    allowed = ask(store, Question(role="finance", text="what was order gross profit in 2024 by month?"),
                  engine=nowhere)
    assert allowed.values.status == "unavailable" and "no-venv" in allowed.values.message


def test_the_cli_json_carries_them_the_record_replays_and_restates_from_an_earlier_ingest(jaffle, catalog, engine):
    store, _, between = catalog
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    run = subprocess.run([sys.executable, "-m", "core", "ask", "--db", str(store.path), "--role", "analyst",
                          "--json", "--restate-from", between.isoformat(),
                          "what was large orders in Q1 2024 by month?"], cwd=ROOT, env=env, capture_output=True,
                         text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    assert {date.fromisoformat(v["start"]): v["value"] for v in out["values"]["values"]} == large_orders(jaffle, 30)
    assert {v["engine"] for v in out["values"]["values"]} == {"metricflow"}
    # As recorded at the first ingest (orders of 20 or more) vs now (30 or more), month by month.
    r = out["dbt_restatement"]
    assert r["definition_changed"] and (r["then"]["manifest"]["ingest"], r["now"]["manifest"]["ingest"]) == (1, 2)
    then, now = large_orders(jaffle, 20), large_orders(jaffle, 30)
    assert [(p["period_start"], p["then"], p["now"], p["difference"]) for p in r["periods"]] == [
        (d.isoformat(), then[d], now[d], now[d] - then[d]) for d in sorted(now)]
    rec = [r for r in read_all(store.path) if r.source == "cli"][-1]
    assert rec.values and rec.values[0]["sql_hash"].startswith("sha256:")
    # Replayed as `audit replay` does: MetricFlow runs again, and the SQL and result hashes must match.
    replayed = replay(store.path, rec.id, store=store, engine=engine)
    assert replayed.reproduced, replayed.reasons
    refused = subprocess.run([sys.executable, "-m", "core", "ask", "--db", str(store.path), "--role", "analyst",
                              "--restate-from", between.isoformat(), "what is the definition of revenue?"],
                             cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert refused.returncode != 0 and "no values of a dbt metric" in refused.stderr


def test_the_mcp_tool_returns_them(jaffle, catalog):
    store, _, _ = catalog
    cat = CatalogHolder(store.path, Settings.from_env()).current()
    analyst = Identity(principal="tester", role="analyst", resolved="test runs as analyst")
    (body, _env), _ = mcp_tools.metric_value_tool(cat, analyst, "revenue", "2024-01-01..2024-03-31", "month",
                                                  None, None)
    got = {v["start"]: v["value"] for v in body["values"]["values"]}
    assert got == {d.isoformat(): v for d, v in warehouse(
        jaffle, f"SELECT {MONTH}, sum(product_price) FROM order_items "
                "WHERE ordered_at >= '2024-01-01' AND ordered_at < '2024-04-01' GROUP BY 1").items()}
    (hidden, _), _ = mcp_tools.metric_value_tool(cat, analyst, "order gross profit", "2024-01-01..2024-03-31",
                                                 "month", None, None)
    assert hidden["behavior"] == "not_found_or_not_authorized" and "values" not in hidden


def test_the_ask_page_renders_the_value_card(jaffle, catalog, monkeypatch):
    import streamlit as st
    from streamlit.testing.v1 import AppTest
    store, _, _ = catalog
    monkeypatch.setenv("ASOF_DB", str(store.path))
    monkeypatch.setenv("ASOF_WAREHOUSE", "/nonexistent/warehouse.duckdb")  # only MetricFlow computes here
    st.cache_resource.clear()  # settings, the store and the engine are cached per process
    try:
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
        at.session_state["role"] = "analyst"
        at.session_state["date_mode"] = "No date"
        at.run()
        at.text_input(key="question").input("what was revenue in Q1 2024 by month?")
        at.button(key="ask").click().run()
        assert not at.exception, at.exception
    finally:
        st.cache_resource.clear()
    expected = warehouse(jaffle, f"SELECT {MONTH}, sum(product_price) FROM order_items "
                                 "WHERE ordered_at >= '2024-01-01' AND ordered_at < '2024-04-01' GROUP BY 1")
    assert [m.value for m in at.metric] == [number(v, None) for _, v in sorted(expected.items())]  # jaffle: no unit
    captions = "\n".join(c.value for c in at.caption)
    assert "computed by metricflow" in captions
    assert any(c.value.startswith("mf query --metrics revenue") for c in at.code)
