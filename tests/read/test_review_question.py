"""Reading a reviewer's question (core/read/intents/review_question.py): which of its words name what the queue items are
about, and which only ask about the queue or a kind of item. Pure over the text."""
import pytest

from core.read.intents.review_question import asked_categories, subject_words


@pytest.mark.parametrize("text, subject", [
    ("any drafts that disagree about gross margin?", "gross margin"),
    ("drafts for gross margin that openly disagree", "gross margin"),
    ("gross margin drafts that disagree?", "gross margin"),
    ("does gross margin have conflicting drafts?", "gross margin"),
    ("any overlapping versions of gross margin?", "gross margin"),
    ("do any drafts clash with the approved definition of churn?", "churn"),
    ("any open issues in the governance queue about refunds?", "refunds"),
])
def test_the_words_that_name_the_items(text, subject):
    assert " ".join(text[t.start:t.end] for t in subject_words(text)) == subject


@pytest.mark.parametrize("text", [
    "any drafts that disagree?", "what's in my review queue", "show me the open review items",
    "are there drafts disagreeing?", "any drafts that disagree with the registry?",
    "list drafts that contradict the governing definition", "which metrics have overlapping approved versions?",
    "which untrusted notes contain instructions?", "any slack notes carrying instructions?",
    "is the old wiki page still surfacing in search?", "which objects have an empty ACL?", "any stale index entries?",
    "what's in the review backlog right now?", "are there drafts conflicting with what governs?",
])
def test_a_question_about_the_queue_or_a_kind_alone_names_no_subject(text):
    assert subject_words(text) == []


@pytest.mark.parametrize("text", [
    "which pages have no roles assigned?", "any documents nobody can see?", "what has an empty ACL",
    "which docs are unassigned", "are there unassigned documents?", "objects with no roles?", "pages without any roles",
    "documents no one can see", "docs not shared with any role", "anything invisible to everyone?",
    "which pages have no ACL?", "which files have zero roles?", "is there any page no one has access to?",
])
def test_objects_no_role_may_see_are_asked_for_in_many_words(text):
    """The empty-ACL kind, however a reviewer says it; the words that say it name no subject."""
    from core.read.intents.review_question import asked_categories
    assert asked_categories(text) == ["empty_acl"] and subject_words(text) == []


@pytest.mark.parametrize("text", ["which metrics have an unassigned owner?", "who can see net revenue?",
                                  "what roles can see churn?", "is net revenue shared with finance?"])
def test_questions_about_owners_or_access_to_a_subject_are_not_that_kind(text):
    from core.read.intents.review_question import asked_categories
    assert "empty_acl" not in asked_categories(text)


@pytest.mark.parametrize("text, asked", [
    ("are there superseded wiki pages still being cited?", True),
    ("which legacy pages are still linked?", True),
    ("any outdated docs still in use?", True),
    ("superseded pages that are still referenced", True),
    ("is fct_orders still used?", False),
    ("which dashboards still use net revenue?", False),
])
def test_superseded_pages_still_in_circulation(text, asked):
    assert ("superseded_surfaced" in asked_categories(text)) is asked
