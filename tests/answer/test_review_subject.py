"""A review question about a subject nothing visible is called ("any drafts that disagree about gross margin?") is
answered "None" for that subject, never with the rest of the queue as a "Yes" about other metrics; a hidden name reads
exactly as a made-up one. A question whether drafts disagree with a visible metric is that metric's definition
question (yes or no, then what governs: tests/answer/test_disagreement_wordings.py), and one that names no subject
keeps the whole queue of the kinds asked. On the ferry catalog (tests/ferry_catalog.py), whose dispatcher
sees one draft that disagrees (about seated passengers) and may not see the passenger boarding fee; then on the demo."""
from __future__ import annotations

import pytest
from ferry_catalog import ROLES, ask_ferry, shown  # noqa: F401  (ask_ferry is the fixture)

from core.catalog.envelope import Behavior
from core.explain.headline import headline
from core.explain.render import render_text

SEATED_DRAFT = "Seated passengers: draft 'Draft - seated passengers incl. standby'"


def _none(env) -> str:
    """A review answer with no item: what the user reads of it."""
    assert env.intent == "review" and env.behavior is Behavior.answer, (env.intent, env.verdict)
    assert env.review.items == [] and env.verdict.startswith("None"), env.verdict
    assert "Seated passengers" not in render_text(env) and "port taxes" not in shown(env)
    return shown(env)


# ---- a subject nothing visible is called: None for it, in the family's wordings ---------------------------------

@pytest.mark.parametrize("question", [
    "any drafts that disagree about cabin upgrades?",
    "are there drafts for cabin upgrades that contradict the registry?",
    "cabin upgrade drafts in conflict?",
    "do any drafts clash with the approved definition of cabin upgrades?",
    "is there any draft proposal for cabin upgrades that disagrees with the registry?",
    "any overlapping versions of cabin upgrades?",
    "what's in my review queue about cabin upgrades?",
])
@pytest.mark.parametrize("role", ROLES)
def test_a_review_question_about_a_made_up_subject_finds_nothing(ask_ferry, question, role):
    env = ask_ferry(question, role)
    _none(env)
    assert "cabin upgrade" in env.verdict and env.review.subject  # says what it looked for


@pytest.mark.parametrize("wording", ["any drafts that disagree about {}?", "{} drafts in conflict?",
                                     "what's in my review queue about {}?"])
def test_a_hidden_subject_reads_as_a_made_up_one(ask_ferry, wording):
    """The purser-only boarding fee: for the dispatcher the answer is the made-up name's, word for word."""
    hidden = _none(ask_ferry(wording.format("passenger boarding fee"), "dispatcher"))
    made_up = _none(ask_ferry(wording.format("passenger zorvex fee"), "dispatcher"))
    assert hidden.replace("boarding", "zorvex") == made_up


def test_the_role_that_sees_the_subject_is_answered_about_it(ask_ferry):
    # The purser sees the boarding fee, which has no draft: no, for that metric, by its name.
    env = ask_ferry("any drafts that disagree about passenger boarding fee?", "purser")
    assert env.disagreement.verdict == "no" and "Passenger boarding fee" in headline(env)
    env = ask_ferry("any drafts that disagree about fare revenue?", "purser")
    assert env.entity_id == "metric.fare_revenue" and env.disagreement.evidence_ids == ["draft.fare_revenue.2025"]


@pytest.mark.parametrize("question", ["any drafts that disagree about fare revnue?",
                                      "any drafts that disagree about fare revenue?"])
def test_a_misspelt_visible_name_is_still_that_metric(ask_ferry, question):
    """The purser sees two drafts: a slip in the name is read as the name itself, and only its metric's is named."""
    env = ask_ferry(question, "purser")
    assert env.entity_id == "metric.fare_revenue", env.verdict
    assert env.disagreement.evidence_ids == ["draft.fare_revenue.2025"], env.verdict


# ---- no subject at all: the queue, as before -----------------------------------------------------------------

@pytest.mark.parametrize("question", ["any drafts that disagree?", "any drafts that disagree with the registry?",
                                      "are there drafts that openly contradict what governs?",
                                      "what's in my review queue?"])
def test_a_review_question_with_no_subject_keeps_the_queue(ask_ferry, question):
    env = ask_ferry(question, "dispatcher")
    assert env.intent == "review" and env.review.subject == [], (question, env.review.subject)
    assert SEATED_DRAFT in [i.title for i in env.review.items], env.verdict


# ---- the demo ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("role", ["analyst", "finance", "governance"])
def test_demo_gross_margin_drafts(ask_demo, role):
    """The question the tester asked: no role has a gross margin."""
    env = ask_demo("any drafts that disagree about gross margin?", role=role)
    assert env.intent == "review" and env.review.items == [] and env.verdict.startswith("None"), env.verdict
    assert "Churn rate" not in env.verdict and "Net revenue" not in env.verdict


def test_demo_hidden_metric_reads_as_made_up(ask_demo):
    # Contribution margin is finance's only: the analyst is told what a made-up name gets.
    hidden = ask_demo("any drafts that disagree about contribution margin?", role="analyst")
    made_up = ask_demo("any drafts that disagree about zorblax margin?", role="analyst")
    assert hidden.review.items == made_up.review.items == []
    assert shown(hidden).replace("contribution", "zorblax") == shown(made_up)
    # Finance sees it (no draft disagrees with it): no, for that metric, by its name.
    env = ask_demo("any drafts that disagree about contribution margin?", role="finance")
    assert env.disagreement.verdict == "no" and "Contribution margin" in headline(env)


def test_demo_queue_without_a_subject_is_unchanged(ask_demo):
    env = ask_demo("any drafts that disagree?", role="analyst")
    assert {i.title.split(":")[0] for i in env.review.items} == {"Churn rate", "Net revenue"}
