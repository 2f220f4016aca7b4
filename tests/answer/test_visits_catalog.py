"""Three questions a stranger asked, on a catalog with none of the demo's names (tests/visits_catalog.py), so the
rules are not tuned to the demo's words: a magnitude in other words gets the value, the terminal answer to a
yes/no inclusion question leads with the Ask page's headline, and a freshness question whose name matches a
model and the sources it reads is answered with that chain's freshness instead of being asked back."""
from __future__ import annotations

import pytest
from conftest import build
from visits_catalog import AT, write

from core.answer.ask import Question, ask
from core.catalog.envelope import Behavior
from core.explain.headline import headline
from core.explain.render import render_text


@pytest.fixture(scope="module")
def visits(tmp_path_factory, embedder):
    root = tmp_path_factory.mktemp("visits")
    return build(root, "visits", write(root / "catalog"), embedder)


@pytest.fixture(scope="module")
def ask_visits(visits):
    store, searcher = visits

    def _ask(text: str, role: str = "planner"):
        return ask(store, Question(role=role, text=text, at=AT), searcher=searcher)
    return _ask


# ---- 1. a magnitude in other words asks for the value ----------------------------------------------------------

@pytest.mark.parametrize("text", ["how big were bookings for the agency in the first quarter of 2026?",
                                  "what did bookings come to across the first quarter of 2026 for us?",
                                  "how large were bookings over the whole of Q1 2026, roughly?"])
def test_a_magnitude_question_gets_the_value_step(ask_visits, text):
    env = ask_visits(text)
    assert env.entity_id == "metric.bookings" and env.values is not None
    # No warehouse here: the value step runs and says why there is no number, as for "what were bookings in Q1".
    assert "no warehouse" in env.values.message
    assert env.values.message == ask_visits("what were bookings in Q1 2026?").values.message


@pytest.mark.parametrize("text", ["how are bookings calculated in the first quarter of 2026?",
                                  "what do bookings include for Q1 2026?"])
def test_a_definition_question_gets_no_value_step(ask_visits, text):
    env = ask_visits(text)
    assert env.entity_id == "metric.bookings" and env.values is None


# ---- 2. the terminal answer leads with the headline ------------------------------------------------------------

@pytest.mark.parametrize("text,lead", [("does bookings include agency fees?", "No:"),
                                       ("do bookings include gross fares?", "Yes:"),
                                       ("are loyalty points counted in bookings?", "Not stated:")])
def test_an_inclusion_answer_leads_with_yes_no_or_not_stated(ask_visits, text, lead):
    env = ask_visits(text)
    assert env.inclusion is not None
    first = render_text(env).splitlines()[0]
    assert first == f"[answer] {headline(env)}"
    assert first.startswith(f"[answer] {lead}")


# Asked the exclusion way the yes is the other side ("does it exclude X?" Yes when it does), and said passively the
# term is what stands before the verb ("are agency fees left out of bookings?" asks about agency fees).
@pytest.mark.parametrize("text,lead,term", [
    ("does bookings exclude agency fees?", "Yes: Bookings v1 excludes agency fees", "agency fees"),
    ("are agency fees excluded from bookings?", "Yes: Bookings v1 excludes agency fees", "agency fees"),
    ("is travel insurance left out of bookings?", "Yes: Bookings v1 excludes travel insurance", "travel insurance"),
    ("are cancelled fares excluded from bookings?", "No: Bookings v1's formula uses cancelled fares", "cancelled fares"),
    ("are agency fees included in bookings?", "No: Bookings v1 excludes agency fees", "agency fees"),
    ("are gross fares counted in bookings?", "Yes: Bookings v1's formula uses gross fares", "gross fares"),
    # The verb right after a one-word name ends the name: "bookings leave" is no longer name for something else.
    ("does bookings leave out agency fees?", "Yes: Bookings v1 excludes agency fees", "agency fees"),
    ("do bookings omit travel insurance?", "Yes: Bookings v1 excludes travel insurance", "travel insurance"),
    ("does bookings leave cancelled fares out?", "No: Bookings v1's formula uses cancelled fares", "cancelled fares"),
    ("is travel insurance omitted from bookings?", "Yes: Bookings v1 excludes travel insurance", "travel insurance"),
])
def test_an_inclusion_asked_the_exclusion_way_or_passively_answers_the_question_put(ask_visits, text, lead, term):
    env = ask_visits(text)
    assert env.inclusion is not None and env.inclusion.term == term, (text, env.inclusion)
    assert headline(env).startswith(lead), (text, headline(env))


# ---- 3. freshness of a chain, not a question back --------------------------------------------------------------

@pytest.mark.parametrize("text", ["is the visits data ok right now?", "is the visits data fresh?",
                                  "when was the visits data last loaded?", "are visits up to date?"])
def test_a_freshness_question_over_one_lineage_chain_is_answered(ask_visits, text):
    env = ask_visits(text)
    assert env.behavior is Behavior.answer, render_text(env)
    status = {f.source: f.status for f in env.freshness}
    assert status == {"source.raw_site.visits": "error"}
    assert headline(env).startswith("No: raw_site.visits")
    # Which of the matches answered, and why, is said.
    assert any("stg_visits" in n and "raw_site.visits" in n for n in env.notes)


def test_unrelated_matches_are_still_asked_back(ask_visits):
    env = ask_visits("is the clicks data fresh?")
    assert env.behavior is Behavior.clarify
    assert {o.entity_id for o in env.clarify.options} == {"model.fct_clicks", "source.raw_ads.clicks"}


def test_a_chain_seen_in_part_never_names_what_the_role_may_not_see(ask_visits):
    env = ask_visits("is the visits data ok right now?", role="partner")
    out = env.model_dump_json() + render_text(env)
    assert "raw_site" not in out
    assert env.behavior is not Behavior.clarify


def test_a_metric_and_the_source_it_reads_are_one_chain_too(ask_visits):
    env = ask_visits("is the reservation data fresh?")
    assert env.behavior is Behavior.answer
    assert {f.source: f.status for f in env.freshness} == {"source.raw_res.reservations": "pass"}
    assert headline(env).startswith("Yes, fresh: raw_res.reservations")


# ---- an owner question with a second part: both parts answered -------------------------------------------------

@pytest.mark.parametrize("text", ["where do bookings come from, and who owns the metric?",
                                  "who owns bookings and what does it depend on?"])
def test_owner_and_lineage_both_answered(ask_visits, text):
    env = ask_visits(text)
    assert env.entity_id == "metric.bookings" and env.intent != "owner", (env.intent, env.verdict)
    assert env.lineage.raw_sources == ["source.raw_res.reservations"]
    assert "owned by Commercial Analytics (Mina Sato)" in env.verdict


def test_owner_and_freshness_of_a_source_both_answered(ask_visits):
    env = ask_visits("is raw_res.reservations fresh and who owns it?")
    assert [f.source for f in env.freshness] == ["source.raw_res.reservations"]
    assert "owned by Web Ops (Tove Berg)" in env.verdict


@pytest.mark.parametrize("text", ["who owns bookings?", "who owns the reservations source?"])
def test_an_owner_question_alone_is_still_the_owner_answer(ask_visits, text):
    env = ask_visits(text)
    assert env.intent == "owner" and env.ownership is not None and env.ownership.owner, (text, env.verdict)


# ---- an owner question that also asks which model backs it: the owner and the model --------------------------

@pytest.mark.parametrize("text, metric", [
    ("which model feeds bookings and who owns it?", "metric.bookings"),
    ("who owns bookings and what model is behind it?", "metric.bookings"),
    ("who owns bookings, and what's its backing model?", "metric.bookings"),
    ("what table builds bookings, and who maintains it?", "metric.bookings"),
    ("who looks after bookings and which model backs it?", "metric.bookings"),
    ("which dbt model implements reservation lead time, and who is responsible for it?",
     "metric.reservation_lead_time"),
])
def test_owner_and_backing_model_both_answered(ask_visits, text, metric):
    env = ask_visits(text)
    assert env.entity_id == metric and env.intent != "owner", (text, env.intent, env.verdict)
    assert [s.evidence_id for s in env.selected if s.role_in_answer == "model"] == ["model.fct_bookings.v1"]
    assert "owned by Commercial Analytics (Mina Sato)" in env.verdict, env.verdict
    assert "fct_bookings" in env.verdict


@pytest.mark.parametrize("text", ["which model backs bookings?", "what model is behind bookings?"])
def test_a_model_question_alone_is_still_the_definition_answer(ask_visits, text):
    env = ask_visits(text)
    assert env.intent is None and env.entity_id == "metric.bookings"
    assert [s.evidence_id for s in env.selected if s.role_in_answer == "model"] == ["model.fct_bookings.v1"]
    assert "owned by" not in env.verdict


def test_owner_and_model_of_a_hidden_source_reads_as_a_made_up_one(ask_visits):
    """raw_site.visits is the planner's only: the partner gets the made-up name's answer."""
    hidden = ask_visits("which model feeds raw_site.visits and who owns it?", role="partner")
    made_up = ask_visits("which model feeds raw_qxz.visits and who owns it?", role="partner")
    assert hidden.behavior is made_up.behavior is Behavior.not_found_or_not_authorized
    assert render_text(hidden) == render_text(made_up) and "Web Ops" not in render_text(hidden)


@pytest.mark.parametrize("text", ["which model feeds active customers and who owns it",
                                  "who owns active customers and what model is behind it?"])
def test_demo_owner_and_backing_model(ask_demo, text):
    """The question the tester asked, and its other order."""
    env = ask_demo(text)
    assert env.entity_id == "metric.active_customers" and env.intent != "owner", env.verdict
    assert "owned by Growth Analytics (Jonas Berg)" in env.verdict
    assert any(s.role_in_answer == "model" and s.evidence_id.startswith("model.dim_customers") for s in env.selected)


# ---- trust asked of numbers is their freshness, asked the fresh way --------------------------------------------

@pytest.mark.parametrize("text,lead", [
    ("can I trust today's fct_visits numbers?", "No: raw_site.visits"),
    ("are the fct_visits figures reliable?", "No: raw_site.visits"),
    ("can we rely on the bookings numbers this morning?", "Yes"),
])
def test_trust_in_numbers_is_answered_by_their_loads(ask_visits, text, lead):
    env = ask_visits(text)
    assert env.freshness, (text, env.verdict)
    assert headline(env).startswith(lead), (text, headline(env))
