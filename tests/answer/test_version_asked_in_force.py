"""Whether a named version was in force, asked yes or no, about a version that is not there: a draft of a metric that
has none (or none the role may see), "v7" of a metric with three versions. A stranger's "was the draft definition of
active customers in force in Q3 2024?" was answered with v2's period and never said there was no draft. The headline
now says plainly that no such version exists in what the role can see, then what did apply; where the draft exists,
that a draft is never in force; a real version asked about is answered Yes or No. The rule:
core/answer/resolution.py `_version_asked`, said by core/explain/headline.py. On the orchard catalog."""
from __future__ import annotations

import pytest
from orchard_catalog import CIDER_DRAFT, ask_orchard  # noqa: F401  (ask_orchard is the fixture)

from core.catalog.envelope import Behavior
from core.explain.headline import headline
from core.explain.render import render_text

NO_DRAFT = ["was the draft definition of harvest yield in force in Q3 2027?",
            "did the draft of harvest yield apply in Q3 2027?",
            "was harvest yield's draft in effect in Q3 2027?",
            "is the proposal for harvest yield what governed in Q3 2027?"]
NO_V7 = ["was v7 of harvest yield in force in Q3 2027?", "did harvest yield version 7 apply in Q3 2027?",
         "was harvest yield v7 in effect in Q3 2027?"]
Q3 = "for 1 Jul 2027 to 30 Sep 2027"


def _answered(env):
    assert env.behavior is Behavior.answer and env.entity_id, (env.behavior, env.verdict)
    return headline(env)


@pytest.mark.parametrize("text", NO_DRAFT)
def test_a_draft_that_does_not_exist_is_said_not_to(ask_orchard, text):
    said = _answered(ask_orchard(text, "grower"))
    assert said == f"No: Harvest yield has no draft you can see; Harvest yield v3 applies {Q3}", (text, said)


@pytest.mark.parametrize("text", NO_V7)
def test_a_version_that_does_not_exist_is_said_not_to(ask_orchard, text):
    said = _answered(ask_orchard(text, "packer"))
    assert said == f"No: Harvest yield has no v7 you can see; Harvest yield v3 applies {Q3}", (text, said)


def test_a_draft_hidden_from_the_role_reads_as_one_never_written(ask_orchard):
    hidden = _answered(ask_orchard("was the draft of cider share in force in Q3 2028?", "packer"))
    assert hidden == "No: Cider share has no draft you can see; Cider share v1 applies for 1 Jul 2028 to 30 Sep 2028"
    assert "pressed weight" not in render_text(ask_orchard("was the draft of cider share in force in Q3 2028?",
                                                           "packer"))


@pytest.mark.parametrize("role", ["grower", "packer"])
def test_a_draft_that_exists_is_never_in_force_and_named_whole(ask_orchard, role):
    said = _answered(ask_orchard("was the draft of bruise rate in force on 2028-09-30?", role))
    assert said == ("No: Proposal - bruise rate after sorting is a draft, never in force; Bruise rate v1 governs on "
                    "30 Sep 2028"), said


def test_a_draft_whose_title_does_not_fit_is_never_cut(ask_orchard):
    said = _answered(ask_orchard("was the draft of cider share in force in Q3 2028?", "grower"))
    assert said == "No: a draft is never in force; Cider share v1 governs for 1 Jul 2028 to 30 Sep 2028", said
    assert CIDER_DRAFT in render_text(ask_orchard("was the draft of cider share in force in Q3 2028?", "grower"))


def test_a_real_version_asked_about_is_answered_yes_or_no(ask_orchard):
    assert _answered(ask_orchard("was v3 of harvest yield in force in Q3 2027?", "packer")) == \
        f"Yes: Harvest yield v3 applies {Q3}"
    said = _answered(ask_orchard("was v1 of harvest yield in force in Q3 2027?", "packer"))
    assert said == f"No: Harvest yield v3 applies {Q3}, not v1", said


def test_a_question_that_asks_no_yes_or_no_keeps_its_headline(ask_orchard):
    said = _answered(ask_orchard("what did harvest yield mean in Q3 2027?", "packer"))
    assert said == f"Harvest yield v3 applies {Q3}", said
