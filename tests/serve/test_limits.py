"""Bounded work per question (issue 23, item 4): one cap on question length and one time budget per answer
(core/settings/budget.py), with the same message on every surface: core.answer.ask, the CLI, the MCP ask tool, the Ask page.

Catalog only (no search index): nothing here loads the embedding model.
"""
import json
from datetime import datetime, timezone

import pytest
from conftest import DEMO, ROOT, cli

from core.answer.ask import Question, ask
from core.catalog.store import Store, write_catalog
from core.explain.headline import headline
from core.ingest.load import load_catalog
from core.read.intents.intent import parse_intent
from core.serve import mcp_tools as tools
from core.serve.mcp_auth import Identity
from core.settings import budget
from core.settings.config import Settings

AT = datetime(2026, 11, 29, 12, tzinfo=timezone.utc)
CAP = budget.MAX_QUESTION_CHARS
SAYS = f"AsOf reads questions of up to {CAP:,} characters"


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> str:
    path = tmp_path_factory.mktemp("limits") / "demo.duckdb"
    write_catalog(load_catalog(DEMO), path)
    return str(path)


def _long(n: int) -> str:
    return ("What does net revenue mean on 2025-03-31? " * (n // 40 + 1))[:n]


# --- the cap -------------------------------------------------------------------------------------------------

def test_core_ask_refuses_a_question_over_the_cap_before_reading_it(db):
    store = Store(db)
    with pytest.raises(budget.QuestionTooLong, match=SAYS) as exc:
        ask(store, Question(role="analyst", text=_long(100_000), at=AT))
    assert "100,000 characters" in str(exc.value)
    # At the cap the question is read as usual.
    env = ask(store, Question(role="analyst", text=_long(CAP), at=AT))
    assert env.behavior.value in ("answer", "clarify") and env.entity_id == "metric.net_revenue"


def test_cli_refuses_an_over_long_question_with_the_message(db, tmp_path):
    r = cli("ask", "--db", db, "--role", "analyst", _long(CAP + 1))
    assert r.returncode == 2 and SAYS in r.stderr and r.stdout == ""
    batch = tmp_path / "q.jsonl"
    batch.write_text(json.dumps({"question": "What is net revenue?", "role": "analyst"}) + "\n"
                     + json.dumps({"question": _long(50_000), "role": "analyst"}) + "\n")
    r = cli("ask", "--db", db, "--batch", str(batch))
    assert r.returncode == 2 and "line 2" in r.stderr and SAYS in r.stderr and r.stdout == ""


def test_mcp_ask_tool_refuses_an_over_long_question(db):
    cat = tools.Catalog(store=Store(db), searcher=None, settings=Settings())
    who = Identity(principal="alice", role="analyst", resolved="only role")
    with pytest.raises(tools.ToolInputError, match=SAYS) as exc:
        tools.ask_tool(cat, who, _long(1_000_000), None, None, None, None)
    assert "argument 'question'" in str(exc.value) and "1,000,000 characters" in str(exc.value)


@pytest.fixture
def app_db(db, monkeypatch):
    import streamlit as st
    monkeypatch.setenv("ASOF_DB", db)
    monkeypatch.delenv("ASOF_AUTH", raising=False)
    st.cache_resource.clear()
    yield
    st.cache_resource.clear()


def test_ask_page_shows_the_message_for_an_over_long_question(app_db):
    from streamlit.testing.v1 import AppTest
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()
    at.text_input(key="question").input(_long(CAP + 500))
    at.button(key="ask").click().run()
    assert not at.exception, at.exception
    assert any(SAYS in e.value for e in at.error), [e.value for e in at.error]
    assert "envelope_json" not in at.session_state  # nothing was answered
    # A shared link carrying one is refused the same way.
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.query_params["q"] = _long(CAP * 3)
    at.run()
    assert not at.exception, at.exception
    assert any(SAYS in e.value for e in at.error) and "envelope_json" not in at.session_state


# --- the time budget -----------------------------------------------------------------------------------------

def test_an_answer_over_its_time_budget_stops_with_a_clear_envelope(db, monkeypatch):
    monkeypatch.setattr(budget, "ANSWER_BUDGET_S", 0.0)  # every answer is over budget at its first step
    env = ask(Store(db), Question(role="analyst", text="What does net revenue mean on 2025-03-31?", at=AT))
    assert env.behavior.value == "abstain" and env.selected == []
    assert env.verdict.startswith("Stopped: this question needed more than 0 seconds of work")
    assert env.trace[-1].rule == "time budget"
    assert headline(env).startswith("Stopped: this question needed")  # not "No approved version of ..."


def test_the_cli_prints_the_over_budget_answer(db, monkeypatch):
    monkeypatch.setattr(budget, "ANSWER_BUDGET_S", 0.0)
    r = cli("ask", "--db", db, "--role", "analyst", "--json", "What does net revenue mean on 2025-03-31?")
    assert r.returncode == 0, r.stderr
    env = json.loads(r.stdout)
    assert env["behavior"] == "abstain" and "Stopped" in env["verdict"]


def test_the_budget_is_per_answer_and_free_outside_one(db):
    budget.check()  # outside an answer nothing is counted
    env = ask(Store(db), Question(role="analyst", text="What does net revenue mean on 2025-03-31?", at=AT))
    assert env.behavior.value == "answer"
    with budget.answer_budget(0.0):
        with pytest.raises(budget.OverBudget):
            budget.check()
        with budget.not_counted():  # loading the embedding model, an LLM call: not the question's work
            pass
    budget.check()


# --- question reading stays linear: the inputs that were quadratic are read as before --------------------------

def test_column_questions_are_read_as_before():
    for q, column in [("where does product_price in revenue come from?", "product_price"),
                      ("the `order_total` column of fct_orders", "order_total"),
                      ("the product_price column of order_items", "product_price"),
                      ("trace customer_id from orders", "customer_id")]:
        assert parse_intent(q).column == column, q
    # A long run of word characters, the shape that made this pattern quadratic, holds no column.
    assert parse_intent("a_" * 1000).column is None and parse_intent("a" * CAP).column is None


def test_since_and_quotations_are_read_as_before():
    day = AT.date()
    since = parse_intent("What was churn since 2024-03-01?", day).dates
    assert since[0].rule.startswith("since")
    quoted = parse_intent("the wiki says 'active during 2023' - what applies on 2024-03-31?", day).dates
    assert [d.qualifier for d in quoted] == ["inside a quotation", ""]
