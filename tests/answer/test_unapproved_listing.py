"""A listing's condition said as the approval it lacks ("not yet approved", "haven't been approved", "unapproved",
"awaiting approval", "pending sign-off") is the draft lifecycle, the same listing as "still drafts"
(core/read/intents/listing_filter.py UNAPPROVED). A stranger's "show me the drafts that haven't been approved yet"
was answered "Nothing you have access to matches" while "which documents are still drafts?" listed them. Drafts named
as what is listed ("show me the drafts", "list the drafts") are every draft the role sees, pages and versions alike.
On the orchard catalog (tests/orchard_catalog.py): other names, roles and clock than the demo's."""
from __future__ import annotations

import pytest
from orchard_catalog import DRAFTS, ROLES, ask_orchard  # noqa: F401  (ask_orchard is the fixture)

from core.catalog.envelope import Behavior

DOCUMENTS_UNAPPROVED = ["which documents haven't been approved yet?", "which documents are not yet approved?",
                        "list unapproved documents", "which documents are awaiting approval?",
                        "which documents are still pending sign-off?", "what documents are yet to be approved?",
                        "show me the documents that have not been approved", "which pages aren't signed off yet?"]
DRAFTS_LISTED = ["show me the drafts that haven't been approved yet", "list the drafts", "which drafts are there?",
                 "show me all drafts awaiting approval", "which drafts are still unapproved?",
                 "give me the drafts pending sign-off", "list every draft", "list every draft not approved",
                 "show me each draft awaiting approval"]


def _titles(env) -> set[str]:
    assert env.behavior is Behavior.answer and env.intent == "discover", (env.behavior, env.intent, env.verdict)
    return {i.title for i in env.listing.items}


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("text", DOCUMENTS_UNAPPROVED)
def test_documents_lacking_approval_are_the_documents_still_drafts(ask_orchard, text, role):
    plain = ask_orchard("which documents are still drafts?", role)
    env = ask_orchard(text, role)
    assert _titles(env) == _titles(plain) == DRAFTS[role] - {"Frost loss (working draft)"}, (text, env.verdict)
    assert env.listing.topic == [] and env.listing.checked == plain.listing.checked, (text, env.listing.topic)


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("text", DRAFTS_LISTED)
def test_drafts_listed_are_every_draft_the_role_sees(ask_orchard, text, role):
    env = ask_orchard(text, role)
    assert _titles(env) == DRAFTS[role], (text, env.verdict)
    assert env.listing.topic == [], (text, env.listing.topic)
    assert f"{len(DRAFTS[role])} of the" in env.verdict and "are drafts" in env.verdict, env.verdict


@pytest.mark.parametrize("text", ["which metrics are not yet approved?", "which metrics haven't been signed off?",
                                  "which metrics are awaiting approval?"])
def test_metrics_lacking_approval_are_the_metrics_with_a_draft(ask_orchard, text):
    env, plain = ask_orchard(text, "packer"), ask_orchard("which metrics are drafts?", "packer")
    assert env.verdict == plain.verdict and [i.label for i in env.listing.items] == ["Frost loss"], env.verdict


def test_drafts_of_a_subject_stay_what_is_coming(ask_orchard):
    env = ask_orchard("any drafts about bruise rate?", "packer")
    assert env.intent != "discover", env.verdict


@pytest.mark.parametrize("text", ["what are the drafts saying about bruise rate?", "list drafts of cider share",
                                  "show me the drafts of harvest yield"])
def test_drafts_said_of_a_subject_are_no_listing(ask_orchard, text):
    env = ask_orchard(text, "grower")
    assert env.intent != "discover", (text, env.verdict)
