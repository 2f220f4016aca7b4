"""Whether a draft or a version exists, asked yes or no: "is there a draft for X?", "does X have a draft?", "has
anyone drafted a change to X?". A stranger's pass in the browser got "No: <the draft> is an unapproved draft" where
a draft existed: the question was read as a challenge of the draft ("the draft says ..., is that right?"). Now: Yes,
the draft named, then what governs; No where the role can see none (hidden or never written, in the same words); a
challenge of the draft is still answered No. The rule: core/read/intents/intent.py `EXISTS_ASKED`, kept by
core/answer/resolution.py `_version_asked`, said by core/explain/headline.py `_exists`. On the orchard catalog."""
from __future__ import annotations

import pytest
from orchard_catalog import CIDER_DRAFT, ask_orchard  # noqa: F401  (ask_orchard is the fixture)

from core.catalog.envelope import Behavior
from core.explain.headline import headline
from core.explain.render import render_text

EXISTS = ["is there a draft for bruise rate?", "are there any drafts of bruise rate?", "does bruise rate have a draft?",
          "do we have a draft of bruise rate?", "has anyone drafted a change to bruise rate?",
          "is there a proposal for bruise rate?", "any drafts pending for bruise rate?"]
ON = " on 30 Sep 2028"


def _said(env) -> str:
    assert env.behavior is Behavior.answer and env.entity_id, (env.behavior, env.verdict)
    return headline(env)


@pytest.mark.parametrize("text", EXISTS)
@pytest.mark.parametrize("role", ["grower", "packer"])
def test_a_draft_that_exists_is_said_to(ask_orchard, text, role):
    said = _said(ask_orchard(text.replace("?", " on 2028-09-30?"), role))
    assert said == f"Yes: Proposal - bruise rate after sorting is an unapproved draft; Bruise rate v1 governs{ON}", \
        (text, said)


@pytest.mark.parametrize("text", ["is there a draft for harvest yield?", "does harvest yield have a draft?"])
def test_no_draft_is_said_plainly(ask_orchard, text):
    said = _said(ask_orchard(text.replace("?", " on 2028-09-30?"), "grower"))
    assert said == f"No: Harvest yield has no draft you can see; Harvest yield v3 applies{ON}", (text, said)


def test_a_draft_hidden_from_the_role_reads_as_one_never_written(ask_orchard):
    env = ask_orchard("is there a draft for cider share on 2028-09-30?", "packer")
    assert _said(env) == f"No: Cider share has no draft you can see; Cider share v1 applies{ON}"
    assert "pressed weight" not in render_text(env)


def test_a_long_draft_title_is_named_whole(ask_orchard):
    said = _said(ask_orchard("is there a draft for cider share on 2028-09-30?", "grower"))
    assert said == f"Yes: {CIDER_DRAFT} is an unapproved draft; Cider share v1 governs{ON}", said


def test_a_version_that_exists_is_said_to(ask_orchard):
    said = _said(ask_orchard("is there a v1 of harvest yield on 2027-09-30?", "packer"))
    assert said == "Yes: Harvest yield v1 exists; Harvest yield v3 applies on 30 Sep 2027", said


def test_a_challenge_of_the_draft_is_still_answered_no(ask_orchard):
    said = _said(ask_orchard("the draft says bruise rate uses sorted crates, is that right on 2028-09-30?", "packer"))
    assert said.startswith("No: ") and said.endswith(f"Bruise rate v1 governs{ON}"), said
