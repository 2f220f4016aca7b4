"""The optional LLM reading: the model sees the question and visible names only; every field is checked
against the catalog and the date parser, and anything else falls back to the deterministic reading."""
import json
from datetime import date
from functools import partial

import litellm
from conftest import DEMO_AT
from test_explain import MODEL, fake  # noqa: F401  (the fake provider fixture)

from core.answer.ask import Question, ask


def _ask(demo, text, role="analyst", model=MODEL):
    store, searcher = demo
    return ask(store, Question(role=role, text=text, at=DEMO_AT), searcher=searcher, llm=(model, 5.0))


def _reply(ids=(), dates=(), intent="definition"):
    return json.dumps({"entity_ids": list(ids), "dates": list(dates), "intent": intent})


def test_prompt_holds_the_question_and_visible_names_only(demo, fake):
    fake.reply = _reply(["metric.net_revenue"], ["2025-03-31"])
    env = _ask(demo, "net revenue on 2025-03-31")
    assert env.behavior.value == "answer" and env.entity_id == "metric.net_revenue"
    sent = json.dumps(fake.calls[0])
    assert "net revenue on 2025-03-31" in sent and "metric.net_revenue" in sent
    for hidden in ("customer_acquisition_cost", "contribution_margin", "fct_order_costs", "board_memo"):
        assert hidden not in sent
    assert "chargeback" not in sent, "no definitions or document text go to the model"


def test_llm_settles_an_ambiguous_numeric_date_with_one_of_its_readings(demo, fake):
    fake.reply = _reply(["metric.net_revenue"], ["2025-04-03"])
    env = _ask(demo, "net revenue on 03/04/2025")
    assert env.behavior.value == "answer" and env.reporting_date == date(2025, 4, 3)
    fake.reply = _reply(["metric.net_revenue"], ["2025-05-05"])  # not a reading of the text
    env = _ask(demo, "net revenue on 03/04/2025")
    assert env.behavior.value == "clarify"
    assert any("did not read" in t.detail for t in env.trace if t.rule == "llm reading")


def test_llm_picks_among_the_rankers_options_only(demo, fake):
    fake.reply = _reply(["metric.churn_rate"])
    env = _ask(demo, "net revenue and churn rate on 2025-03-31")
    assert env.behavior.value == "answer" and env.entity_id == "metric.churn_rate"
    fake.reply = _reply(["metric.refund_rate"])  # visible, but not what the question names
    env = _ask(demo, "net revenue and churn rate on 2025-03-31")
    assert env.behavior.value == "clarify"


def test_a_proposed_hidden_id_is_rejected_and_never_shown(demo, fake):
    fake.reply = _reply(["metric.customer_acquisition_cost"], ["2025-06-30"])
    env = _ask(demo, "what is cac on 2025-06-30?")
    assert env.behavior.value == "not_found_or_not_authorized"
    assert "customer_acquisition_cost" not in env.model_dump_json()
    fake.reply = _reply(["metric.customer_acquisition_cost"])
    env = _ask(demo, "net revenue and churn rate on 2025-03-31")
    assert env.behavior.value == "clarify" and "customer_acquisition_cost" not in env.model_dump_json()
    assert any("not in the role's visible catalog" in t.detail for t in env.trace)


def test_garbage_and_errors_fall_back_to_the_deterministic_reading(demo, fake):
    for reply in ("I think it is net revenue", "{\"entity_ids\": \"metric.net_revenue\"", "[]", ""):
        fake.reply = reply
        env = _ask(demo, "net reveneu on 2025-03-31")
        assert env.behavior.value == "answer" and env.entity_id == "metric.net_revenue"
        assert any(t.rule == "llm reading" and "not used" in t.detail for t in env.trace)
    fake.reply = lambda messages: (_ for _ in ()).throw(RuntimeError("provider down"))
    env = _ask(demo, "net revenue on 2025-03-31")
    assert env.behavior.value == "answer" and env.selected[0].evidence_id == "metric.net_revenue.v2"


def test_litellm_mock_response_path(demo, monkeypatch):
    monkeypatch.setattr(litellm, "completion",
                        partial(litellm.completion, mock_response=_reply(["metric.active_customers"], ["2025-07-01"])))
    env = _ask(demo, "active customers on 1/7/2025", model="openai/gpt-4o-mini")
    assert env.behavior.value == "answer" and env.reporting_date == date(2025, 7, 1)
    assert env.selected[0].evidence_id == "metric.active_customers.v2"
