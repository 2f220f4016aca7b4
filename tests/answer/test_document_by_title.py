"""A document named by its title ("what does the fleet glossary say about passengers?") is answered from that
document when the role may see it; otherwise not found, as for a made-up title, never from another document that
only mentions the topic (a draft about passengers), and never said to be "named in the question". On the ferry
catalog (tests/ferry_catalog.py)."""
from __future__ import annotations

import pytest
from ferry_catalog import ask_ferry, not_found, shown  # noqa: F401  (ask_ferry is the fixture)

from core.catalog.envelope import Behavior

# ---- a document named by its title ---------------------------------------------------------------------------

QUESTION_3 = "what does the fleet glossary say about passengers?"


def test_a_named_document_the_role_sees_is_the_answer(ask_ferry):
    env = ask_ferry(QUESTION_3, "purser")
    assert env.behavior is Behavior.answer and env.intent == "document"
    assert [d.evidence_id for d in env.documents] == ["doc.fleet_glossary.2023"]
    assert "passenger is anyone holding a ticket" in env.documents[0].quote


@pytest.mark.parametrize("made_up", ["what does the zorblax glossary say about passengers?",
                                     "what does the fleet zorblax say about passengers?"])
def test_a_named_document_the_role_cannot_see_is_not_found_like_a_made_up_one(ask_ferry, made_up):
    env = ask_ferry(QUESTION_3, "dispatcher")
    text = not_found(env)
    # Not the draft that mentions passengers, not said to be named, and nothing of the glossary.
    assert "named in the question" not in shown(env) and "draft.seated_passengers" not in shown(env)
    assert "glossary" not in shown(env).lower().replace(QUESTION_3, "")
    assert text == not_found(ask_ferry(made_up, "dispatcher"))


def test_a_document_type_no_visible_document_has_is_not_a_draft_about_the_topic(ask_ferry):
    for question in ("what does the glossary say about passengers?", "what does the memo say about fare revenue?",
                     "what does the passengers glossary say?"):
        env = ask_ferry(question, "dispatcher")
        assert not env.documents and "named in the question" not in shown(env), (question, env.verdict)


def test_a_document_named_by_its_type_and_topic_still_answers(ask_ferry):
    env = ask_ferry("what does the seated passengers draft say about standby?", "dispatcher")
    assert [d.evidence_id for d in env.documents] == ["draft.seated_passengers.2025"]
    env = ask_ferry("what does the draft say about standby passengers?", "dispatcher")
    assert [d.evidence_id for d in env.documents] == ["draft.seated_passengers.2025"]


def test_demo_kpi_glossary_nobody_may_see(ask_demo):
    """The reading reported on the demo: the KPI glossary export's ACL is empty, so for marketing it is not found,
    as a made-up glossary is, and the churn draft is not quoted in its place."""
    env = ask_demo("what does the KPI glossary say about churn?", role="marketing")
    text = not_found(env)
    assert "named in the question" not in shown(env) and "draft.churn_rate" not in shown(env)
    assert text == not_found(ask_demo("what does the zorblax glossary say about churn?", role="marketing"))
