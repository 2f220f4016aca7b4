"""The words saying what kind of thing or what status is asked ("drafts", "wiki pages", "disagreeing", "superseded",
"approved", "definition", "mean") are never what a subject is found by. "what does cabin upgrades mean and are there
drafts disagreeing?" names nothing the ferry dispatcher can see, yet was answered about Seated passengers, the one
metric with a draft: entity search matched "drafts disagreeing" on its draft. Such a question is not-found, worded
exactly as for a made-up subject, and a hidden subject reads the same; the same wording about a visible name answers
it. On the ferry catalog (tests/ferry_catalog.py: the dispatcher sees a seated passengers draft, the boarding fee is
the purser's only), then on the demo."""
from __future__ import annotations

import pytest
from ferry_catalog import ROLES, ask_ferry, not_found  # noqa: F401  (ask_ferry is the fixture)

from core.explain.render import render_text

# One family: a definition or meaning, and whether drafts or pages disagree or what their status is.
WORDINGS = [
    "what does {} mean and are there drafts disagreeing?",
    "what does {} mean, and is there a conflicting draft?",
    "how is {} defined and do any drafts contradict it?",
    "define {}; are there drafts that disagree?",
    "{} definition - any drafts disagreeing?",
    "what is the superseded definition of {} and is there a draft?",
    "are the drafts about {} approved?",
]


@pytest.mark.parametrize("wording", WORDINGS)
@pytest.mark.parametrize("role", ROLES)
def test_an_unknown_subject_beside_review_words_is_not_found(ask_ferry, wording, role):
    made_up = not_found(ask_ferry(wording.format("zorblax"), role))
    env = ask_ferry(wording.format("cabin upgrades"), role)
    assert not_found(env) == made_up
    assert "Seated passengers" not in render_text(env)
    # The same words about a name the role sees answer that name.
    assert ask_ferry(wording.format("fare revenue"), role).entity_id == "metric.fare_revenue"


@pytest.mark.parametrize("wording", WORDINGS)
def test_a_hidden_subject_beside_review_words_reads_as_a_made_up_one(ask_ferry, wording):
    """The boarding fee is the purser's: the dispatcher reads what a made-up subject reads, word for word."""
    made_up = not_found(ask_ferry(wording.format("zorblax fee"), "dispatcher"))
    assert not_found(ask_ferry(wording.format("boarding fee"), "dispatcher")) == made_up
    assert ask_ferry(wording.format("boarding fee"), "purser").entity_id == "metric.passenger_boarding_fee"


@pytest.mark.parametrize("wording", WORDINGS)
@pytest.mark.parametrize("subject, role", [("loyalty points", "analyst"), ("loyalty points", "marketing"),
                                           ("contribution margin", "marketing")])  # finance's metric
def test_demo_unknown_or_hidden_subject_beside_review_words_is_not_found(ask_demo, wording, subject, role):
    """The demo's drafts are about churn and net revenue; neither stands in for a subject the role cannot see."""
    made_up = not_found(ask_demo(wording.format("zorblax"), role=role))
    assert not_found(ask_demo(wording.format(subject), role=role)) == made_up
    assert ask_demo(wording.format("churn"), role=role).entity_id == "metric.churn_rate"
    if subject == "contribution margin":
        assert ask_demo(wording.format(subject), role="finance").entity_id == "metric.contribution_margin"
