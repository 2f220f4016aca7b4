"""Reading a reviewer's question (core/read/review_question.py): which of its words name what the queue items are
about, and which only ask about the queue or a kind of item. Pure over the text."""
import pytest

from core.read.review_question import subject_words


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
