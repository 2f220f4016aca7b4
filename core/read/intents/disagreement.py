"""Whether a question asks if drafts, pages or other documents disagree with a definition: "are there drafts or wiki
pages that contradict how churn is defined?", "is there a wiki page that contradicts the definition of X?", "any
conflicting docs about X?", "does anything contradict how X is defined?", "do any pages differ from X's definition?".

One reading, used by both flows that answer such a question (core/answer/intents/review.py `queue_answers` decides which):
  - the definition flow when the question names a metric, model or source the role can see ("which drafts disagree
    with churn?", "any drafts that disagree about net revenue?", "do any pages differ from how X is defined?"): its
    conflicts are what disagrees (core/resolve/disagreement.py), and the headline answers yes or no, then which version
    governs (core/explain/headline.py), never "does the draft govern?";
  - otherwise the review queue (core/read/intents/review_question.py: its `draft_conflict` kind is a disagreement question
    that names drafts): "which drafts contradict a governing version?", "any drafts that disagree?".

The words that name what disagrees ("drafts", "wiki pages", "proposals") are the things asked about, never a time: a
disagreement question is not read as an upcoming-changes question, a listing or a comparison (core/read/intents/intent.py).
Pure over the text.
"""
from __future__ import annotations

import re

# Saying that two things disagree, in every form ("contradict", "contradicts", "contradictory", "in conflict",
# "conflicting", "disagreeing", "clashes", "inconsistent with", "at odds with").
DISAGREE = (r"(?:contradict\w*|conflict\w*|disagree\w*|clash\w*|inconsisten\w*|at\s+odds|mismatch\w*|"
            r"contrary\s+to|goes\s+against|go\s+against)")
# The same as an adjective before what disagrees ("conflicting drafts", "contradictory pages"). A list, so the question
# reader can skip these words before a document's type from here rather than from a copy of its own.
DISAGREEING_WORDS = ("conflicting", "contradicting", "contradictory", "disagreeing", "clashing", "inconsistent",
                     "competing", "mismatching")
DISAGREEING = r"(?:" + "|".join(DISAGREEING_WORDS) + r")"
# "differ" says so too, but "how does v2 differ from v1?" asks for a comparison: only with a word that asks whether
# anything does ("do any pages differ from ...", "is there anything different from ...").
DIFFER = r"(?:differ(?:s|ed|ing)?\s+(?:from|with)|different\s+(?:from|to|than))"
# What may disagree with a definition: a document of some kind, or anything at all.
THINGS = (r"(?:drafts?|wikis?|pages?|docs?|documents?|documentation|memos?|notes?|handbooks?|proposals?|"
          r"glossar(?:y|ies)|threads?|emails?|decks?|slack|exports?|definitions?)")
WHETHER = r"(?:any|anything|anyone|anybody|something|somebody|anywhere|somewhere|there)"

_DISAGREE = re.compile(r"\b" + DISAGREE, re.I)
_DIFFER = re.compile(r"\b" + DIFFER + r"\b", re.I)
_THING = re.compile(r"\b" + THINGS + r"\b", re.I)
_WHETHER = re.compile(r"\b" + WHETHER + r"\b", re.I)


# One word of either ("at odds", "contrary to" are phrases: their words alone say nothing).
_DISAGREE_WORD = re.compile(rf"{DISAGREE}|{DISAGREEING}|differ(?:s|ed|ing|ent)?", re.I)


def is_review_word(word: str) -> bool:
    """One word of how a review question says what it asks: that things disagree ("contradicts", "conflicting",
    "differ") or what may disagree ("drafts", "wiki", "pages", "definitions"). Such a word says what kind of thing is
    asked about, never which subject: the question reader never matches a subject on it (core/read/names/ranker.py)."""
    return bool(_DISAGREE_WORD.fullmatch(word) or _THING.fullmatch(word))


def asks_disagreement(text: str) -> bool:
    """The question asks whether something disagrees with a definition: a word saying so, and either a kind of document
    or a word asking whether there is any ("does anything contradict ..."). "differ" counts only with the latter."""
    if _DISAGREE.search(text):
        return bool(_THING.search(text) or _WHETHER.search(text))
    return bool(_DIFFER.search(text) and _WHETHER.search(text))


# The kinds of document a disagreement question names, as the answer's conflicts are matched against them
# (core/resolve/disagreement.py). "page", "doc", "document" name any document: a question naming only those asks about
# every kind.
KINDS = {"draft": "draft", "proposal": "draft", "wiki": "wiki", "memo": "memo", "note": "note", "handbook": "handbook",
         "glossary": "glossary", "slack": "slack", "thread": "thread", "email": "email", "deck": "deck"}
_KIND = re.compile(r"\b(drafts?|proposals?|wikis?|memos?|notes?|handbooks?|glossar(?:y|ies)|slack|threads?|emails?|"
                   r"decks?)\b", re.I)


def asked_kinds(text: str) -> list[str]:
    """The kinds of document the question asks about, in the order written ("drafts or wiki pages": draft, wiki); none
    when it names only documents in general ("pages", "docs") or anything at all."""
    out: list[str] = []
    for m in _KIND.finditer(text):
        word = m.group(1).lower()
        word = "glossary" if word.startswith("glossar") else word.rstrip("s") if word != "slack" else word
        kind = KINDS[word]
        if kind not in out:
            out.append(kind)
    return out
