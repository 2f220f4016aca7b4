"""Questions that were answered wrongly or blamed on permissions, each as a family of wordings, on the ferry catalog
(tests/ferry_catalog.py: other names, roles and dates than the demo's) with a few objects added here, then on the demo:

- a question naming no subject at all ("is it current?") is asked back, never answered "not found"; an unknown or
  hidden NAMED subject still gets exactly the not-found sentence;
- "what's waiting for my review?" and its kin answer with the review queue the role can see, and a role with nothing
  in it hears that, and nothing about anyone else's objects;
- "has X changed this year?" leads with Yes (when, which versions) or No (one version throughout), by the version rules;
- "diff between the X draft and the approved one" compares the draft with the version that governs;
- "the cost of ML" keeps its short all-caps word: only what says it answers, never every "cost";
- "anything look off with the X feed?" is a freshness question asked the stale way: Yes when it is stale.
"""
import pytest
from conftest import DEMO_AT, asker
from ferry_catalog import AT, EVIDENCE, OWNER, shown
from visits_catalog import _source

from core.answer.ask import Question
from core.answer.steward import steward_answer
from core.catalog.envelope import NOT_FOUND, Behavior
from core.explain.headline import headline

NO_SUBJECT = "Which metric, model or source do you mean? Your question doesn't name one."
ROLES = ["dispatcher", "purser", "deckhand"]
DECK = ["deckhand"]


def _metric(name: str, title: str, text: str, acl: list[str]) -> dict:
    return {"evidence_id": f"metric.{name}.v1", "entity_id": f"metric.{name}", "kind": "metric_definition",
            "title": f"{title} v1", "version": "1", "authority": "authoritative", "lifecycle": "current",
            "authority_class": "semantic_registry", "valid_from": "2024-01-01", "acl": acl, "owner": OWNER,
            "metric": {"formula": "SUM(cost_eur)", "grain": "one row per month", "unit": "EUR"}, "text": text}


EXTRA = [
    # Two "cost" metrics, one of them the cost of ML: the deckhand sees only these and two sources.
    _metric("ml_training_cost", "Cost of ML training", "GPU hours bought to train the ML models, in EUR.", DECK),
    _metric("fuel_cost", "Fuel cost", "Marine diesel bought for the fleet, in EUR.", DECK),
    # 30 h before the clock with a 12 h warning: stale. 1 h before: fresh.
    *_source("raw_port.gate_scans", "2027-08-01T03:00:00Z", 12, 48, DECK),
    *_source("raw_port.berth_log", "2027-08-02T08:00:00Z", 12, 48, DECK),
]


@pytest.fixture(scope="module")
def ferry(tmp_path_factory, embedder):
    return asker(tmp_path_factory, embedder, "ferry_asked_back", ROLES, EVIDENCE + EXTRA, AT)


NO_SUBJECT_WORDINGS = ["is it current?", "who owns it?", "what does it mean?", "when did it change?",
                       "is the data fresh?", "which version applies?", "is that still right?", "what about last year?"]
# The same wordings with a name in them: the purser-only boarding fee, and a name nobody wrote.
NAMED = ["is the boarding fee current?", "who owns the zorblax?", "what does the boarding fee mean?",
         "when did the zorblax change?", "is the zorblax data fresh?", "which version of the boarding fee applies?",
         "is the zorblax still right?", "what about the boarding fee last year?"]


@pytest.mark.parametrize("bare, named", zip(NO_SUBJECT_WORDINGS, NAMED))
def test_a_question_naming_nothing_is_asked_back_and_a_named_one_stays_not_found(ferry, bare, named):
    env = ferry(bare, "dispatcher")
    assert env.behavior is Behavior.clarify and env.verdict == NO_SUBJECT, (bare, env.behavior, env.verdict)
    assert headline(env) == NO_SUBJECT
    offered = [o.entity_id for o in env.clarify.options]
    assert offered and "metric.passenger_boarding_fee" not in offered, offered  # only what the dispatcher can see
    hidden = ferry(named, "dispatcher")
    assert hidden.behavior is Behavior.not_found_or_not_authorized and hidden.verdict == NOT_FOUND, (named,
                                                                                                      hidden.verdict)


@pytest.mark.parametrize("text", ["int_model_7 for 2027-06-30", "is deck_rota_v9 current?", "who owns raw.zorblax?"])
def test_an_identifier_made_of_asking_words_still_names_a_subject(ferry, text):
    # "int_model_7" is made of words that ask nothing of their own ("model", a number), but written as one identifier
    # it names something: an unknown one is not found, worded like any other, never asked back.
    env = ferry(text, "dispatcher")
    assert env.behavior is Behavior.not_found_or_not_authorized and env.verdict == NOT_FOUND, (text, env.verdict)


# Asked yes or no, the answer leads with Yes; asked what, with what there is.
REVIEW_WORDINGS = [("what's waiting for my review?", "1 item waits in"), ("what needs my attention?", "1 item waits in"),
                   ("anything to review?", "Yes: 1 in"), ("anything for me to review?", "Yes: 1 in"),
                   ("what should I review?", "1 item waits in"), ("is anything awaiting my approval?", "Yes: 1 in")]


@pytest.mark.parametrize("text,lead", REVIEW_WORDINGS)
def test_what_is_waiting_for_review_is_the_review_queue(ferry, text, lead):
    env = ferry(text, "dispatcher")
    assert env.behavior is Behavior.answer and env.intent == "review", (text, env.behavior, env.verdict)
    assert headline(env).startswith(f"{lead} the review queue you can see"), headline(env)
    assert [f.evidence_ids[0] for f in env.review.items] == ["draft.seated_passengers.2025"]
    purser = ferry(text, "purser")  # the purser's queue holds the fare revenue draft too
    assert {"draft.seated_passengers.2025", "draft.fare_revenue.2025"} <= {i for f in purser.review.items
                                                                           for i in f.evidence_ids}
    deck = ferry(text, "deckhand")
    assert deck.behavior is Behavior.answer and headline(deck).startswith("Nothing is waiting for your role"), (
        headline(deck))
    leaked = shown(deck).lower()
    assert not any(w in leaked for w in ("draft.", "seated", "fare", "glossary", "port taxes")), leaked


CHANGE = [
    ("has fare revenue changed this year?", "No: Fare revenue v2 is in effect throughout: nothing changed"),
    ("were there any changes to fare revenue in 2024?", "No: Fare revenue v1 is in effect throughout: nothing changed"),
    ("did the definition of fare revenue change last quarter?",
     "No: Fare revenue v2 is in effect throughout: nothing changed"),
    ("did fare revenue change in 2025?", "Yes: Fare revenue changed on 1 Jan 2025, v1 to v2; "),
    ("has fare revenue been redefined since 2024?", "Yes: Fare revenue changed on 1 Jan 2025, v1 to v2; "),
    ("has seated passengers changed this year?", "No: Seated passengers v1 is in effect throughout: nothing changed"),
]


@pytest.mark.parametrize("text, lead", CHANGE)
def test_a_change_over_a_period_is_answered_yes_or_no(ferry, text, lead):
    env = ferry(text, "dispatcher")
    assert env.behavior is Behavior.answer, (text, env.behavior, env.verdict)
    assert headline(env).startswith(lead), (text, headline(env))


PERIOD_FIRST = [
    ("hey, fare revenue from July 2024 to June 2025 pls, did the definition change mid way",
     Behavior.split, "Yes: Fare revenue changed definition"),
    ("fare revenue for all of 2025, did the definition change?", Behavior.answer,
     "Fare revenue v2 took effect on 1 Jan 2025 and is in effect"),
    ("fare revenue from March 2024 to October 2024, has it changed?", Behavior.answer,
     "No: Fare revenue v1 is in effect"),
]


@pytest.mark.parametrize("text, behavior, lead", PERIOD_FIRST)
def test_a_period_asked_before_the_change_is_answered_over_that_period(ferry, text, behavior, lead):
    # The subject asked over a period, then whether it changed: the answer for that period (split where a version took
    # over), led by Yes or No.
    env = ferry(text, "dispatcher")
    assert env.behavior is behavior, (text, env.behavior, env.verdict)
    assert headline(env).startswith(lead), (text, headline(env))


@pytest.mark.parametrize("text", ["diff between the fare revenue draft and the approved one",
                                  "how does the fare revenue proposal differ from the current definition?",
                                  "compare the fare revenue draft with the official version",
                                  "compare the fare revenue draft with the approved one",
                                  "compare the draft to the current fare revenue"])
def test_a_draft_is_compared_with_the_version_that_governs(ferry, text):
    env = ferry(text, "purser")
    assert env.behavior is Behavior.answer and env.comparison is not None, (text, env.verdict)
    assert (env.comparison.left.evidence_id, env.comparison.right.evidence_id) == (
        "metric.fare_revenue.v2", "draft.fare_revenue.2025"), (text, env.comparison.how)
    assert headline(env).startswith("Fare revenue v2 and the draft “Draft - fare revenue net of port taxes”")
    # The dispatcher cannot see that draft: told it has none it can see, never what the purser's says.
    hidden = ferry(text, "dispatcher")
    assert hidden.comparison is None and "port taxes" not in shown(hidden), hidden.verdict


@pytest.mark.parametrize("text, entity", [("what is the cost of ML?", "metric.ml_training_cost"),
                                          ("what is the cost of AI?", None), ("what is the cost of BI?", None)])
def test_a_short_capitalised_word_of_an_of_phrase_is_kept(ferry, text, entity):
    env = ferry(text, "deckhand")
    if entity is None:  # no AI or BI cost: not found, never "which cost do you mean?"
        assert env.behavior is Behavior.not_found_or_not_authorized and env.verdict == NOT_FOUND, (text, env.verdict)
    else:
        assert env.behavior is Behavior.answer and env.entity_id == entity, (text, env.behavior, env.entity_id)


@pytest.mark.parametrize("text", ["anything look off with the gate scans feed", "is the gate scans feed broken?",
                                  "is something wrong with the gate scans data?"])
def test_trouble_with_data_is_answered_yes_or_no(ferry, text):
    stale = ferry(text, "deckhand")
    assert stale.entity_id == "source.raw_port.gate_scans" and stale.asks_stale, (text, stale.entity_id)
    assert headline(stale).startswith("Yes: raw_port.gate_scans is stale"), headline(stale)
    fresh = ferry(text.replace("gate scans", "berth log"), "deckhand")
    assert fresh.entity_id == "source.raw_port.berth_log", fresh.entity_id
    assert headline(fresh).startswith("No, fresh: raw_port.berth_log") or headline(fresh).startswith(
        "No: raw_port.berth_log is fresh"), headline(fresh)


DEMO = [
    ("is it current?", "analyst", NO_SUBJECT),
    ("what's waiting for my review?", "governance", "7 items wait in the review queue you can see"),
    ("anything to review?", "governance", "Yes: 7 in the review queue you can see"),
    ("has churn changed this year?", "analyst", "No: Churn rate v2 is in effect throughout"),
    ("did churn change in Q4 2025?", "analyst", "Yes: Churn rate changed on 1 Oct 2025, v1 to v2"),
    ("diff between the churn draft and the approved one", "analyst",
     "Churn rate v2 and the draft “Draft - churn on a 60-day inactivity window”"),
    ("what is the cost of AI", "finance", "Nothing you have access to matches this question"),
    ("anything look off with the payments feed", "analyst", "Yes: raw_payments.payment_events is stale"),
]


@pytest.mark.parametrize("text, role, lead", DEMO)
def test_the_demo(demo, text, role, lead):
    """As every page, the CLI and the MCP tools ask: a steward (governance) over its own objects and its queue."""
    store, searcher = demo
    env, _ = steward_answer(store, Question(role=role, text=text, at=DEMO_AT), searcher, today=DEMO_AT.date())
    assert headline(env).startswith(lead), (text, headline(env))


@pytest.mark.parametrize("heading", ["DRAFT.", "DRAFT, NOT APPROVED.", "PROPOSAL - FOR DISCUSSION ONLY."])
def test_a_changed_description_is_quoted_by_its_first_sentence_of_substance(heading):
    # A draft's description opens with a heading in capitals; the quote is the sentence that says what changes.
    from core.answer.intents.compare import quote_change
    from core.catalog.envelope import FieldChange
    change = FieldChange(field="description", changed=True, removed=["Fares minus refunds, in EUR."],
                         added=[heading, "Proposal to subtract port taxes from fare revenue."])
    assert quote_change(change) == "“Fares minus refunds, in EUR.” became “Proposal to subtract port taxes from fare revenue.”"


@pytest.mark.parametrize("text, role", [("what's the difference between hull and fuel cost?", "deckhand"),
                                        ("the differences between zorblax and fare revenue", "dispatcher")])
def test_a_difference_between_two_things_one_unknown_is_not_found(ferry, text, role):
    # "the difference between gross and net revenue" asks about two things; with one of them unknown ("hull") it is
    # not found, never the other side's versions compared.
    env = ferry(text, role)
    assert env.behavior is Behavior.not_found_or_not_authorized and env.verdict == NOT_FOUND, (text, env.verdict)


def test_a_difference_between_two_named_things_compares_them(ferry):
    env = ferry("what's the difference between seated passengers and fare revenue?", "dispatcher")
    assert env.comparison is not None and env.comparison.right_label == "Fare revenue", env.verdict
