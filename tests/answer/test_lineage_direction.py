"""Three wrong answers a stranger found, each a family of wordings, on a catalog with none of the demo's names
(tests/visits_catalog.py: raw_site.visits -> stg_visits -> fct_visits and fct_clicks, the raw source seen by
planners only; raw_res.reservations -> fct_bookings -> bookings) and then on the demo:

1. the direction of lineage: "what gets built on top of X downstream?" lists what reads X, never what feeds it; an
   explicit "downstream"/"upstream" wins over a phrase leaning the other way;
2. a question asking both ways ("which raw tables feed X and what uses X?") gets both halves;
3. "what is X and who owns it" gets the governing definition and names the owner, not the owner alone.

A subject the role may not see gets exactly what a made-up one gets."""
from __future__ import annotations

import pytest
from conftest import build
from visits_catalog import AT, write

from core.answer.ask import Question, ask
from core.catalog.envelope import Behavior
from core.explain.explain import deterministic
from core.explain.headline import headline
from core.explain.render import render_text


@pytest.fixture(scope="module")
def ask_visits(tmp_path_factory, embedder):
    root = tmp_path_factory.mktemp("visits_direction")
    store, searcher = build(root, "visits", write(root / "catalog"), embedder)

    def _ask(text: str, role: str = "planner"):
        return ask(store, Question(role=role, text=text, at=AT), searcher=searcher)
    return _ask


def _said(env) -> str:
    """What a user reads: the headline, the terminal answer and the explanation's sentences."""
    sentences = deterministic(env, lambda ids: set(ids)).sentences
    return headline(env) + "\n" + render_text(env) + "\n" + "\n".join(s.text for s in sentences)


def _read_by(env) -> set[str]:
    return {i.id for i in env.downstream.items} if env.downstream else set()


STG_READERS = {"model.fct_visits.v1", "model.fct_clicks.v1"}


# ---- 1. which way: what reads it ------------------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    "what gets built on top of stg_visits downstream?", "what is built on top of stg_visits?",
    "what's built on top of stg_visits?", "anything built on top of stg_visits?", "what depends on stg_visits?",
    "what consumes stg_visits?", "what breaks if stg_visits changes?", "stg_visits downstream",
    # the explicit word wins over "feeds" / "come from", which lean upstream
    "what feeds stg_visits downstream?", "where does stg_visits go downstream?",
])
def test_asking_what_reads_it_lists_what_reads_it(ask_visits, text):
    env = ask_visits(text)
    assert env.intent == "downstream" and env.entity_id == "model.stg_visits", (text, env.intent, env.verdict)
    assert _read_by(env) == STG_READERS
    # never the upstream answer: the raw source feeding it is not what was asked
    assert not env.lineage.raw_sources and "comes from" not in headline(env)


# ---- 1. which way: what feeds it ------------------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    "what is fct_visits built from?", "what feeds fct_visits?", "where does fct_visits come from?",
    "what's upstream of fct_visits?", "what are the sources of fct_visits?", "what is fct_visits built on top of?",
    # the explicit word wins over "use", which leans downstream
    "which models use fct_visits upstream?",
])
def test_asking_what_feeds_it_gives_its_lineage(ask_visits, text):
    env = ask_visits(text)
    assert env.intent is None and env.entity_id == "model.fct_visits", (text, env.intent, env.verdict)
    assert env.lineage.raw_sources == ["source.raw_site.visits"] and env.downstream is None
    assert "raw_site.visits" in headline(env)


# ---- 2. both ways: both halves ----------------------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    "which raw tables feed stg_visits and what uses stg_visits?",
    "where does stg_visits come from and what depends on it?",
    "what feeds stg_visits, and what reads it?",
    "upstream and downstream of stg_visits",
    "what uses stg_visits and where does it come from?",
])
def test_a_question_asking_both_ways_gets_both_halves(ask_visits, text):
    env = ask_visits(text)
    assert env.behavior is Behavior.answer and env.entity_id == "model.stg_visits", (text, env.verdict)
    assert env.lineage.raw_sources == ["source.raw_site.visits"]  # what feeds it
    assert _read_by(env) == STG_READERS  # what reads it
    said = _said(env)
    assert "raw_site.visits" in headline(env) and "2 things you can see read it" in headline(env), headline(env)
    assert "fct_clicks" in env.verdict and "fct_visits" in env.verdict
    assert "The model fct_clicks reads it downstream" in said and "raw_site.visits" in said


def test_both_halves_keep_a_hidden_source_unsaid(ask_visits):
    """Partners may not see raw_site.visits: the upstream half stops at the view, naming nothing past it."""
    env = ask_visits("which raw tables feed stg_visits and what uses stg_visits?", "partner")
    assert _read_by(env) == STG_READERS and "raw_site" not in env.model_dump_json() + _said(env)


# ---- 3. what it is, and who owns it ---------------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    "what is bookings and who owns it", "what are bookings, and who owns them?",
    "who owns bookings, and how is it calculated?", "what does bookings mean and who maintains it?",
    "define bookings and tell me who owns it",
])
def test_what_it_is_and_who_owns_it_gets_both(ask_visits, text):
    env = ask_visits(text)
    assert env.intent is None and env.ownership is None, (text, env.intent)
    definition = [s for s in env.selected if s.role_in_answer == "definition"]
    assert [s.evidence_id for s in definition] == ["metric.bookings.v1"], (text, env.verdict)
    assert "owned by Commercial Analytics (Mina Sato)" in env.verdict
    assert "SUM(gross_fare_eur) - SUM(cancelled_fare_eur)" in _said(env)


@pytest.mark.parametrize("text", ["who owns bookings?", "what is the owner of bookings?", "whose metric is bookings?"])
def test_the_owner_alone_is_still_the_owner_answer(ask_visits, text):
    env = ask_visits(text)
    assert env.intent == "owner" and env.ownership.owner == "Commercial Analytics (Mina Sato)", text


# ---- 4. the kind asked is in the asking words, not in the subject's own noun ----------------------------------

@pytest.mark.parametrize("text", ["which metrics use the fct_bookings model?", "what metrics read the fct_bookings model",
                                  "any metric depending on the fct_bookings model?", "Metrics built on the fct_bookings model?",
                                  "which metrics used fct_bookings on 2026-06-30?"])
def test_the_readers_asked_for_are_listed_whatever_the_subject_is_called(ask_visits, text):
    env = ask_visits(text)
    assert env.intent == "downstream" and env.downstream.asked == "metric", (text, env.intent)
    assert {"metric.bookings.v1", "metric.reservation_lead_time.v1"} <= _read_by(env)
    assert headline(env).startswith("2 metrics you can see use fct_bookings"), headline(env)


@pytest.mark.parametrize("text", ["what reads the fct_bookings model?", "what does the fct_bookings model feed?"])
def test_the_subjects_own_noun_asks_for_no_kind(ask_visits, text):
    env = ask_visits(text)
    assert env.downstream.asked is None, text
    assert not headline(env).startswith("No "), headline(env)


def test_a_kind_asked_that_reads_nothing_is_still_said(ask_visits):
    env = ask_visits("is the fct_bookings model used by any dashboard?")
    assert headline(env).startswith("No dashboard or report you can see uses fct_bookings"), headline(env)


# ---- permissions: a hidden subject reads as a made-up one ---------------------------------------------------

@pytest.mark.parametrize("wording", [
    "what gets built on top of {} downstream?", "what is built on top of {}?", "what feeds {} downstream?",
    "which raw tables feed {} and what uses {}?", "what is {} and who owns it", "upstream and downstream of {}",
])
def test_a_hidden_subject_reads_as_a_made_up_one(ask_visits, wording):
    hidden = ask_visits(wording.format("raw_site.visits", "raw_site.visits"), "partner")
    made_up = ask_visits(wording.format("raw_site.zorvex", "raw_site.zorvex"), "partner")
    assert hidden.behavior is made_up.behavior is Behavior.not_found_or_not_authorized, (wording, hidden.verdict)
    assert _said(hidden).replace("raw_site.visits", "NAME") == _said(made_up).replace("raw_site.zorvex", "NAME")


# ---- the demo: the three questions as asked -------------------------------------------------------------------

def test_demo_what_gets_built_on_top_of_fct_orders(ask_demo):
    env = ask_demo("what gets built on top of fct_orders downstream?")
    assert env.intent == "downstream" and env.entity_id == "model.fct_orders"
    assert "metric.net_revenue.v2" in _read_by(env) and not env.lineage.raw_sources
    assert "raw_shop.orders" not in _said(env)


def test_demo_raw_tables_and_what_uses_net_revenue(ask_demo):
    env = ask_demo("which raw tables feed net revenue and what uses net revenue?")
    assert {"source.raw_shop.orders", "source.raw_payments.payment_events"} <= set(env.lineage.raw_sources)
    assert "metric.average_order_value" in _read_by(env)
    assert "raw_shop.orders" in headline(env) and "read" in headline(env)


def test_demo_what_is_net_revenue_and_who_owns_it(ask_demo):
    env = ask_demo("what is net revenue and who owns it")
    assert [s.evidence_id for s in env.selected if s.role_in_answer == "definition"] == ["metric.net_revenue.v2"]
    assert "owned by Revenue Analytics (Priya Shah)" in env.verdict
    assert "SUM(captured_payment_usd)" in _said(env)


@pytest.mark.parametrize("wording", ["what is {} and who owns it", "which raw tables feed {} and what uses {}?",
                                     "what gets built on top of {} downstream?"])
def test_demo_a_hidden_metric_reads_as_a_made_up_one(ask_demo, wording):
    """Contribution margin is finance's only: for an analyst it is a name nobody wrote."""
    hidden = ask_demo(wording.format("contribution margin", "contribution margin"))
    made_up = ask_demo(wording.format("zorvex margin", "zorvex margin"))
    assert hidden.behavior is made_up.behavior is Behavior.not_found_or_not_authorized, (wording, hidden.verdict)
    assert hidden.verdict == made_up.verdict and "Farah" not in hidden.model_dump_json()
