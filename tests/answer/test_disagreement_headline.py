"""A question whether drafts, pages or documents disagree with a definition gets a headline that answers it: yes, with
how many and which the role can see, or no; then the version that governs. Never "No: the draft is an unapproved
draft", which answers whether the draft governs. With no date it notes no date nobody wrote and no "upcoming" nobody
asked about. On the demo (its clock: 29 Nov 2026), then on the ferry catalog (tests/ferry_catalog.py)."""
from __future__ import annotations

import pytest
from ferry_catalog import ask_ferry, shown  # noqa: F401  (ask_ferry is the fixture)

from core.catalog.envelope import Behavior
from core.explain.headline import MAX_WORDS, date_source, headline, status_line

CHURN_DRAFT = "Draft - churn on a 60-day inactivity window"
NR_DRAFT = "draft.net_revenue.2025-02"  # the analyst's and finance's, not marketing's


def _no_date_notes(env) -> list[str]:
    return [date_source(env, None, None) or ""] + [s.text for s in status_line(env)]


@pytest.mark.parametrize("question", [
    "are there drafts or wiki pages that contradict how churn is defined?",  # the stranger's question
    "Are there any drafts or wiki pages that contradict how churn is defined?",
    "do any drafts disagree with how churn is defined?",
    "any conflicting docs about churn?",
    "does anything contradict how churn is defined",
    "do any pages differ from how churn is defined?",
    "any proposals that contradict the churn definition?",
])
@pytest.mark.parametrize("role", ["analyst", "marketing"])
def test_yes_names_the_draft_then_what_governs(ask_demo, question, role):
    env = ask_demo(question, role=role)
    assert env.behavior is Behavior.answer and env.intent is None, (env.intent, env.verdict)
    assert env.disagreement.verdict == "yes" and env.disagreement.evidence_ids == ["draft.churn_rate.2026-q1"]
    assert headline(env) == f"Yes, 1 draft disagrees: {CHURN_DRAFT}; Churn rate v2 governs on 29 Nov 2026"
    # No date was written and "upcoming" was not asked: no note says otherwise.
    notes = " ".join(_no_date_notes(env))
    assert "from your question" not in notes and "upcoming" not in notes, notes
    assert date_source(env, None, None).startswith("no reporting date given: answered for today, 29 Nov 2026")


@pytest.mark.parametrize("question, day", [
    ("do any drafts disagree with how net revenue was defined on 31 Mar 2025?", "31 Mar 2025"),
    ("what does net revenue mean on 2025-03-31 and are there drafts disagreeing?", "31 Mar 2025"),
    ("are there drafts that contradict net revenue as of 2025-03-31?", "31 Mar 2025"),
])
def test_with_a_date_the_answer_is_that_dates(ask_demo, question, day):
    analyst = ask_demo(question, role="analyst")
    assert headline(analyst).startswith("Yes, 1 draft disagrees: Draft proposal - net revenue")
    assert headline(analyst).endswith(f"Net revenue v2 governs on {day}")
    assert date_source(analyst, None, None) == f"using {day} from your question"
    # Marketing may not see that draft: no, in the words a catalog without it gets, and it is never named.
    marketing = ask_demo(question, role="marketing")
    assert marketing.disagreement.verdict == "no" and NR_DRAFT not in shown(marketing)
    assert headline(marketing).startswith("No: no draft you can see disagrees"), headline(marketing)


def test_a_kind_asked_that_does_not_disagree_is_a_no_that_says_what_does(ask_demo):
    env = ask_demo("is there a wiki page that contradicts the definition of churn?")
    assert env.disagreement.verdict == "no" and env.disagreement.others == ["draft.churn_rate.2026-q1"]
    # The draft's title has no room whole: named by its date, never cut mid-name (tests/explain/test_draft_names.py)
    assert headline(env) == ("No: no wiki page you can see disagrees, but 1 draft does: the draft of 2026-01; "
                             "Churn rate v2 governs on 29 Nov 2026")


def test_a_wiki_page_that_disagrees_is_named(ask_demo):
    env = ask_demo("is there a wiki page that contradicts the definition of net revenue on 2024-06-30?")
    assert headline(env) == ("Yes, 1 wiki page disagrees: Revenue Handbook (old wiki page); "
                             "Net revenue v1 governs on 30 Jun 2024")


def test_nothing_disagrees(ask_demo):
    env = ask_demo("does anything contradict how contribution margin is defined?", role="finance")
    assert env.disagreement.verdict == "no" and not env.disagreement.evidence_ids
    assert headline(env) == "No: nothing you can see disagrees; Contribution margin v2 governs on 29 Nov 2026"


@pytest.mark.parametrize("question, no", [
    ("is there a conflict in how churn is defined on 2025-06-30?", "nothing you can see disagrees"),
    # Naming drafts makes the draft one the question names: it is still a change to come on that date.
    ("are there drafts or wiki pages that contradict how churn is defined on 2025-06-30?",
     "no draft or wiki page you can see disagrees"),
    ("do any drafts disagree with the churn definition as of 2025-06-30?", "no draft you can see disagrees"),
])
def test_a_draft_that_starts_later_is_no_disagreement_on_the_date(ask_demo, question, no):
    """The churn draft starts on 1 Jan 2026: on 30 Jun 2025 it is a change to come (listed as not yet in effect), and
    the headline says no. The status line names the draft as a change to come, never "No draft disagrees" beside a
    draft the answer lists (issue 45 item 8)."""
    env = ask_demo(question)
    assert "draft.churn_rate.2026-q1" in {c.evidence_id for c in env.conflicts if c.label == "NOT YET IN EFFECT"}
    assert headline(env) == f"No: {no}; Churn rate v1 governs on 30 Jun 2025"
    said = [s.text for s in status_line(env)]
    assert "No draft disagrees" not in said
    assert any(t.startswith("A draft starts later: ") and t.endswith("(not in effect on 30 Jun 2025)") for t in said)


@pytest.mark.parametrize("question", [
    "does anything contradict how net revenue is defined as of last month?",
    "are there notes or wiki pages contradicting net revenue for Q1 2025?",
    "any conflicting docs about net revenue on 2025-03-31?",
])
def test_every_headline_is_short_and_answers_yes_or_no(ask_demo, question):
    text = headline(ask_demo(question))
    assert text.startswith(("Yes, ", "No: ")) and len(text.split()) <= MAX_WORDS and "governs" in text, text


def test_a_question_about_the_queue_is_still_the_review_queues(ask_demo):
    """No metric named: the review queue answers, and it too says yes or no (core/answer/intents/review.py). Naming one
    ("do any drafts disagree with churn?") makes it that metric's question (tests/answer/test_disagreement_wordings.py)."""
    env = ask_demo("do any drafts disagree?")
    assert env.intent == "review" and env.verdict.startswith("Yes: 2 in the review queue")
    env = ask_demo("which metrics have conflicting drafts?")
    assert env.intent == "review" and {i.title.split(":")[0] for i in env.review.items} == {"Churn rate", "Net revenue"}


def test_an_upcoming_question_says_its_date_is_today_not_the_questions(ask_demo):
    env = ask_demo("what's upcoming for net revenue?")
    assert env.intent == "upcoming"
    assert date_source(env, None, None) == ("no reporting date given: answered as of today, 29 Nov 2026 "
                                            "(the evaluation date)")


# ---- the ferry catalog: the purser sees fare revenue's draft, the dispatcher does not ------------------------------

@pytest.mark.parametrize("question", [
    "what does fare revenue mean on 2025-06-30 and are there drafts disagreeing?",
    "is there any document that contradicts how fare revenue is defined on 2025-06-30?",
])
def test_ferry_roles(ask_ferry, question):
    purser = ask_ferry(question, "purser")
    assert headline(purser) == ("Yes, 1 draft disagrees: Draft - fare revenue net of port taxes; "
                                "Fare revenue v2 governs on 30 Jun 2025"), headline(purser)
    dispatcher = ask_ferry(question, "dispatcher")
    assert dispatcher.disagreement.verdict == "no" and "port taxes" not in shown(dispatcher)
    assert headline(dispatcher).startswith("No: ") and "Fare revenue v2 governs on 30 Jun 2025" in headline(dispatcher)
