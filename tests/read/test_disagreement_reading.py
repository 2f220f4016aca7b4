"""Reading a question whether drafts, pages or documents disagree with a definition (core/read/intents/disagreement.py, and how
core/read/intents/intent.py reads it): the words naming what disagrees are never a date, a time ("upcoming"), a listing or a
comparison, while real dates beside them are still read. Pure over the text."""
from datetime import date

import pytest

from core.read.intents.disagreement import asked_kinds, asks_disagreement
from core.read.intents.intent import intent_kind, parse_intent
from core.read.intents.review_question import asked_categories

TODAY = date(2026, 11, 29)  # the demo's clock

# Asking whether anything disagrees, with no date: the stranger's question first, then the family around it.
NO_DATE = [
    "are there drafts or wiki pages that contradict how churn is defined?",
    "Are there any drafts or wiki pages that contradict how churn is defined?",
    "do any drafts disagree with how churn is defined?",
    "is there a wiki page that contradicts the definition of churn?",
    "any conflicting docs about churn?",
    "does anything contradict how churn is defined",
    "are there any wiki pages that contradict how net revenue is defined?",
    "any proposals that contradict the churn definition?",
    "do any pages differ from how churn is defined?",
    "is anything inconsistent with how aov is defined?",
    "are there contradictory notes about net revenue?",
    "any drafts at odds with the definition of churn?",
]


@pytest.mark.parametrize("question", NO_DATE)
def test_a_disagreement_question_names_no_date_and_no_time(question):
    intent = parse_intent(question, TODAY)
    assert intent.dates == [], [(d.text, d.rule) for d in intent.dates]
    assert "disagreement" in intent.aspects
    # Not "what is coming" (which answers as of today with notes about "upcoming"), not a listing of documents, not
    # a comparison of two versions: the definition flow, whose conflicts are what disagrees.
    assert intent.kind is None and intent_kind(question) == (None, None), intent.kind


@pytest.mark.parametrize("question, kind, start, end", [
    ("are there drafts that contradict how churn was defined on 29 Nov 2026?", "date", date(2026, 11, 29), None),
    ("do any wiki pages disagree with net revenue as of 2025-03-31?", "date", date(2025, 3, 31), None),
    ("does anything contradict how net revenue is defined as of last month?", "period", date(2026, 10, 1),
     date(2026, 11, 1)),
    ("any conflicting docs about churn in Q1 2026?", "period", date(2026, 1, 1), date(2026, 4, 1)),
    ("Are there any drafts that contradict how churn was defined at the end of June 2025?", "date",
     date(2025, 6, 30), None),
])
def test_a_disagreement_question_keeps_its_real_date(question, kind, start, end):
    intent = parse_intent(question, TODAY)
    (m,) = intent.dates
    assert (m.kind, m.start, m.end) == (kind, start, end), m.rule
    assert "disagreement" in intent.aspects and intent.kind is None


@pytest.mark.parametrize("word", ["defined", "definition", "drafts", "draft", "pages", "page", "wiki", "wikis",
                                  "contradict", "contradicts", "conflicting", "disagree", "docs", "proposals",
                                  "any drafts", "any proposals", "drafts about"])
def test_the_words_of_the_family_are_never_a_date(word):
    for question in (word, f"are there {word} about churn?", f"{word} that contradict churn"):
        assert parse_intent(question, TODAY).dates == [], question


@pytest.mark.parametrize("question, kind", [
    ("what are the upcoming changes to churn?", "upcoming"),  # a time, said in so many words
    ("any upcoming drafts that contradict how churn is defined?", "upcoming"),
    ("any drafts about revenue?", "upcoming"),  # drafts asked for, not whether they disagree
    ("is any change to churn coming?", "upcoming"),
    ("how does v2 differ from v1 of net revenue?", "compare"),  # "differ" alone compares two versions
    ("is the 2025 draft different from net revenue v2?", None),
    ("what documents are there about churn?", "discover"),
    ("what does the slack export say?", "document"),
])
def test_other_intents_are_read_as_before(question, kind):
    assert intent_kind(question)[0] == kind


@pytest.mark.parametrize("question", [
    "what is churn?", "how does v2 differ from v1 of net revenue?",
    "The old wiki says revenue includes shipping and tax. Is that right for 2025-03-31?",
    "any drafts about revenue?", "what's upcoming for net revenue?", "who owns the conflict of the week dashboard",
])
def test_what_is_not_a_disagreement_question(question):
    assert not asks_disagreement(question)


@pytest.mark.parametrize("question, kinds", [
    ("are there drafts or wiki pages that contradict how churn is defined?", ["draft", "wiki"]),
    ("is there a wiki page that contradicts the definition of churn?", ["wiki"]),
    ("any proposals that contradict the churn definition?", ["draft"]),
    ("any conflicting docs about churn?", []),
    ("does anything contradict how churn is defined", []),
    ("are there contradictory notes or slack threads about net revenue?", ["note", "slack", "thread"]),
])
def test_the_kinds_asked_about(question, kinds):
    assert asked_kinds(question) == kinds


@pytest.mark.parametrize("question", ["which metrics have conflicting drafts?", "any clashing drafts about churn?",
                                      "drafts at odds with the registry?"])
def test_the_review_queue_reads_the_same_words(question):
    """The review queue's draft kind and the definition flow read one list of words for disagreeing."""
    assert asks_disagreement(question) and "draft_conflict" in asked_categories(question)
