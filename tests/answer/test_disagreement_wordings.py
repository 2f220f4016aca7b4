"""A question whether drafts, documents, pages or notes disagree with a named metric gets the same kind of answer
however it is worded: yes or no first, naming what the role can see that disagrees, then the version that governs
(core/answer/intents/review.py `queue_answers` routes it; core/explain/headline.py words it). Before, wordings that read like
a review-queue question ("which drafts disagree with X?", "any drafts that disagree about X?", "X drafts in
conflict?") got the queue's "Yes: 1 in the review queue ..." with no metric and no version. A question that names no
metric ("which drafts contradict a governing version?", "what's in my review queue?") stays the review queue's.

On a lending library the test writes itself (none of the demo's names), then on the demo."""
from __future__ import annotations

from datetime import datetime, timezone

import pytest
from conftest import asker
from ferry_catalog import shown

from core.catalog.envelope import Behavior
from core.explain.headline import headline

AT = datetime(2027, 3, 15, 10, 0, tzinfo=timezone.utc)
ROLES = ["librarian", "volunteer"]
OWNER = "Circulation Desk (Ines Rao)"


def _metric(name: str, title: str, version: str, formula: str, valid_from: str, valid_to: str | None = None,
            acl: list[str] = ROLES) -> dict:
    out = {"evidence_id": f"metric.{name}.v{version}", "entity_id": f"metric.{name}", "kind": "metric_definition",
           "title": f"{title} v{version}", "version": version, "authority": "authoritative", "lifecycle": "current",
           "authority_class": "semantic_registry", "valid_from": valid_from, "acl": acl, "owner": OWNER,
           "metric": {"formula": formula, "grain": "one row per loan", "unit": "count"}, "text": f"{title}: {formula}."}
    if valid_to:
        out["valid_to"] = valid_to
    return out


def _draft(evidence_id: str, entity_id: str, title: str, acl: list[str], text: str) -> dict:
    return {"evidence_id": evidence_id, "entity_id": entity_id, "kind": "documentation", "title": title,
            "version": "1", "authority": "non_authoritative", "lifecycle": "draft", "authority_class": "desk_draft",
            "valid_from": "2026-06-01", "acl": acl, "owner": OWNER, "text": text}


EVIDENCE = [
    _metric("books_lent", "Books lent", "1", "COUNT(loan_id)", "2024-01-01", "2026-01-01"),
    _metric("books_lent", "Books lent", "2", "COUNT(loan_id) WHERE NOT renewal", "2026-01-01"),
    # Nothing disagrees with it: the "No" side.
    _metric("overdue_share", "Overdue share", "1", "COUNT(overdue) / COUNT(loan_id)", "2024-01-01"),
    # The librarian's only: for the volunteer it does not exist, exactly like a name nobody wrote.
    _metric("fine_income", "Fine income", "1", "SUM(fine_eur)", "2024-01-01", acl=["librarian"]),
    # Two drafts that disagree with books lent: one both roles see, one the librarian's only.
    _draft("draft.books_lent.renewals", "metric.books_lent", "Draft - books lent counting renewals", ROLES,
           "DRAFT. Proposal to count every renewal as a new loan. Not approved."),
    _draft("draft.books_lent.ebooks", "metric.books_lent", "Draft - books lent including e-books", ["librarian"],
           "DRAFT. Proposal to count e-book checkouts as loans. Not approved."),
]
SHARED = "Draft - books lent counting renewals"
LIBRARIAN_ONLY = "Draft - books lent including e-books"
GOVERNS = "Books lent v2 governs on 15 Mar 2027"


@pytest.fixture(scope="module")
def ask_library(tmp_path_factory, embedder):
    return asker(tmp_path_factory, embedder, "library", ROLES, EVIDENCE, AT)


# Wordings of the family that read like a review-queue question: the kinds of item, a word for disagreeing, and the
# metric named with, about, for, before or by a slip of its name.
QUEUE_WORDED = [
    "which drafts disagree with {m}?",
    "do any drafts clash with the approved definition of {m}?",
    "is there any draft for {m} that disagrees?",
    "any drafts that disagree about {m}?",
    "{m} drafts in conflict?",
    "does {m} have conflicting drafts?",
    "are there drafts of {m} that contradict the registry?",
    "list the drafts that contradict {m}",
]


@pytest.mark.parametrize("wording", QUEUE_WORDED)
def test_a_queue_worded_question_about_a_metric_gets_yes_with_what_governs(ask_library, wording):
    env = ask_library(wording.format(m="books lent"), "volunteer")
    assert env.behavior is Behavior.answer and env.intent != "review", (env.intent, env.verdict)
    assert env.entity_id == "metric.books_lent"
    assert headline(env) == f"Yes, 1 draft disagrees: {SHARED}; {GOVERNS}"
    # The librarian's draft is never named, counted or hinted at for the volunteer.
    assert LIBRARIAN_ONLY not in shown(env) and "e-book" not in shown(env)


def test_each_role_is_told_what_it_can_see(ask_library):
    env = ask_library("which drafts disagree with books lent?", "librarian")
    assert headline(env).startswith("Yes, 2 drafts disagree: ") and headline(env).endswith(f"; {GOVERNS}")
    assert SHARED in headline(env) and LIBRARIAN_ONLY in headline(env)


@pytest.mark.parametrize("wording", ["which drafts disagree with {m}?", "any drafts that disagree about {m}?",
                                     "{m} drafts in conflict?"])
def test_nothing_disagrees_is_a_no_with_what_governs(ask_library, wording):
    env = ask_library(wording.format(m="overdue share"), "volunteer")
    assert env.entity_id == "metric.overdue_share"
    # One version, no date asked: the version is named as the approved definition.
    assert headline(env) == "No: no draft you can see disagrees; Overdue share v1 is the approved definition"


def test_a_slip_in_the_name_is_still_that_metric(ask_library):
    env = ask_library("any drafts that disagree about ovedrue share?", "volunteer")
    assert env.entity_id == "metric.overdue_share" and headline(env).startswith("No: no draft you can see disagrees")


@pytest.mark.parametrize("named, unnamed", [
    ("which drafts contradict books lent?", "which drafts contradict a governing version?"),
    ("are there drafts disagreeing with books lent?", "are there drafts disagreeing?"),
    ("what drafts conflict with books lent?", "what is in the review queue?"),
])
def test_only_the_question_that_names_a_metric_leaves_the_review_queue(ask_library, named, unnamed):
    assert ask_library(named, "volunteer").entity_id == "metric.books_lent"
    queue = ask_library(unnamed, "volunteer")
    assert queue.intent == "review" and SHARED in queue.verdict, queue.verdict


def test_the_family_answers_alike(ask_library):
    """Every wording, the ones that always read as a definition question among them, gets one headline."""
    wordings = QUEUE_WORDED + ["do any documents contradict how {m} is defined?", "does anything contradict {m}?",
                               "are there pages that conflict with the {m} definition?",
                               "do any drafts differ from how {m} is defined?"]
    said = {w: headline(ask_library(w.format(m="books lent"), "volunteer")) for w in wordings}
    assert set(said.values()) == {f"Yes, 1 draft disagrees: {SHARED}; {GOVERNS}"}, said


def test_a_metric_only_one_role_sees(ask_library):
    """The librarian is answered about fine income; for the volunteer it reads exactly as a name nobody wrote."""
    env = ask_library("which drafts disagree with fine income?", "librarian")
    assert headline(env) == "No: no draft you can see disagrees; Fine income v1 is the approved definition"
    hidden = ask_library("which drafts disagree with fine income?", "volunteer")
    made_up = ask_library("which drafts disagree with fine zorvex?", "volunteer")
    assert hidden.entity_id is None and "Fine income" not in shown(hidden)
    assert shown(hidden).replace("income", "zorvex") == shown(made_up)


# ---- the demo ----------------------------------------------------------------------------------------------------

CHURN = "Yes, 1 draft disagrees: Draft - churn on a 60-day inactivity window; Churn rate v2 governs on 29 Nov 2026"


@pytest.mark.parametrize("question", ["which drafts disagree with churn?", "do any drafts disagree with churn?",
                                      "do any drafts clash with the approved definition of churn?",
                                      "churn drafts in conflict?"])
def test_demo_churn(ask_demo, question):
    env = ask_demo(question, role="analyst")
    assert env.entity_id == "metric.churn_rate" and headline(env) == CHURN, (env.intent, headline(env))


def test_demo_net_revenue_draft_is_named_only_for_the_roles_that_see_it(ask_demo):
    analyst = ask_demo("is there any draft for net revenue that disagrees?", role="analyst")
    assert headline(analyst).startswith("Yes, 1 draft disagrees: Draft proposal - net revenue")
    marketing = ask_demo("is there any draft for net revenue that disagrees?", role="marketing")
    assert marketing.entity_id == "metric.net_revenue"
    assert headline(marketing).startswith("No: no draft you can see disagrees")
    assert headline(marketing).endswith("Net revenue v2 governs on 29 Nov 2026")
    assert "draft.net_revenue.2025-02" not in shown(marketing)

