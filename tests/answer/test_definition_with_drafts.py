"""A definition asked on a date with a second part about drafts ("what does fare revenue mean on 2025-06-30 and are
there drafts disagreeing?") is answered for that subject and that date, its conflicts listing the drafts the role may
see; it is not the review queue's answer about another metric's draft. On the ferry catalog (tests/ferry_catalog.py)."""
from __future__ import annotations

import pytest
from ferry_catalog import ROLES, ask_ferry, not_found, shown  # noqa: F401  (ask_ferry is the fixture)

from core.catalog.envelope import Behavior
from core.explain.render import render_text

# ---- a definition on a date, then a question about drafts: the subject and the date stay ---------------------

QUESTION_2 = "what does fare revenue mean on 2025-06-30 and are there drafts disagreeing?"


@pytest.mark.parametrize("role", ROLES)
def test_definition_and_drafts_keeps_the_metric_and_the_date(ask_ferry, role):
    env = ask_ferry(QUESTION_2, role)
    assert env.behavior is Behavior.answer and env.intent != "review", (env.intent, env.verdict)
    assert env.entity_id == "metric.fare_revenue" and str(env.reporting_date) == "2025-06-30"
    assert [s.evidence_id for s in env.selected][:1] == ["metric.fare_revenue.v2"]
    assert "Seated passengers" not in render_text(env)  # not the other metric's draft from the review queue


def test_the_drafts_part_is_answered_by_the_conflicts_the_role_may_see(ask_ferry):
    purser = ask_ferry(QUESTION_2, "purser")
    assert "draft.fare_revenue.2025" in {c.evidence_id for c in purser.conflicts}
    dispatcher = ask_ferry(QUESTION_2, "dispatcher")
    assert "draft.fare_revenue.2025" not in shown(dispatcher) and "port taxes" not in shown(dispatcher)


@pytest.mark.parametrize("question", [
    "how is fare revenue defined for 2025-06-30, and is any draft in conflict with it?",
    "fare revenue on 2025-06-30: do any drafts contradict it?",
])
def test_other_wordings_of_the_two_part_question(ask_ferry, question):
    env = ask_ferry(question, "purser")
    assert env.entity_id == "metric.fare_revenue" and str(env.reporting_date) == "2025-06-30", (question, env.verdict)
    assert "draft.fare_revenue.2025" in {c.evidence_id for c in env.conflicts}


def test_a_hidden_subject_in_the_two_part_question_reads_as_a_made_up_one(ask_ferry):
    hidden = ask_ferry("what does passenger boarding fee mean on 2025-06-30 and are there drafts disagreeing?",
                       "dispatcher")
    made_up = ask_ferry("what does passenger zorvex fee mean on 2025-06-30 and are there drafts disagreeing?",
                        "dispatcher")
    assert not_found(hidden) == not_found(made_up)


def test_a_question_about_the_queue_alone_is_still_the_review_queue(ask_ferry):
    env = ask_ferry("are there drafts disagreeing?", "dispatcher")
    assert env.intent == "review" and env.review is not None
    assert [i.title for i in env.review.items] == ["Seated passengers: draft 'Draft - seated passengers incl. standby'"]


@pytest.mark.parametrize("role, draft_seen", [("marketing", False), ("analyst", True)])
def test_demo_net_revenue_and_drafts(ask_demo, role, draft_seen):
    """The reading reported on the demo; the net revenue draft is the analyst's and finance's only."""
    env = ask_demo("what does net revenue mean on 2025-03-31 and are there drafts disagreeing?", role=role)
    assert env.entity_id == "metric.net_revenue" and str(env.reporting_date) == "2025-03-31"
    assert [s.evidence_id for s in env.selected][:1] == ["metric.net_revenue.v2"]
    assert ("draft.net_revenue.2025-02" in {c.evidence_id for c in env.conflicts}) is draft_seen
    assert ("draft.net_revenue.2025-02" in shown(env)) is draft_seen and "Churn rate" not in render_text(env)


# ---- a question whether drafts disagree that names a metric is about that metric only ---------------------------

@pytest.mark.parametrize("question", [
    "is there any draft proposal for fare revenue that disagrees with the registry?",
    "are there drafts of fare revenue that contradict the registry?",
])
def test_a_drafts_question_naming_a_metric_is_about_that_metric_only(ask_ferry, question):
    purser = ask_ferry(question, "purser")
    assert purser.entity_id == "metric.fare_revenue", (purser.intent, purser.verdict)
    assert purser.disagreement.evidence_ids == ["draft.fare_revenue.2025"]
    # The dispatcher may not see fare revenue's draft: no for fare revenue, never the seated passengers draft as a
    # "Yes", and the same words as for a metric with no draft at all.
    dispatcher = ask_ferry(question, "dispatcher")
    assert dispatcher.entity_id == "metric.fare_revenue" and dispatcher.disagreement.verdict == "no"
    assert "Seated passengers" not in render_text(dispatcher) and "port taxes" not in shown(dispatcher)


@pytest.mark.parametrize("question", ["what's in my review queue?", "show me the open review items"])
def test_the_whole_queue_asked_without_a_kind_lists_every_item_the_role_may_see(ask_ferry, question):
    for role in ROLES:
        env = ask_ferry(question, role)
        assert env.intent == "review" and env.behavior is Behavior.answer, (role, env.verdict)
        by_kind = ask_ferry("are there drafts disagreeing?", role).review.items
        assert by_kind and {i.title for i in by_kind} <= {i.title for i in env.review.items}
    assert "port taxes" not in shown(ask_ferry(question, "dispatcher"))
