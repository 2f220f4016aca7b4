"""The thing a question is about, when its grammar says where it is: "does <subject> include X?", "what does
<subject> say?". If a word of that subject's head is a word nothing visible uses, the subject is something this
role cannot see (hidden, or never written), so nothing may stand in for it: not a metric whose head noun is in X
("cost" of "cost of goods sold"), not a source similar in meaning. The ranker scores the whole question and cannot
tell the subject from the rest; this reads only the subject. Pure over the role's view."""
from __future__ import annotations

import re

from rapidfuzz import process
from rapidfuzz.distance import OSA

from core.catalog.text import ASKING_WORDS, GENERIC, MONTH_WORDS, STOPWORDS, in_spans, tokenize, words
from core.read.intents.intent import ONE_PHRASE, OUT_ENDS
from core.read.names.asking import KIND_NOUNS
from core.read.names.named import named_objects
from core.read.names.spelling import dropped_vowel
from core.read.names.vocabulary import visible_vocabulary

# Active voice only: in "is tax excluded from net revenue?" and "do guest checkouts count toward active customers?"
# the subject is the term, and the metric follows.
INCLUSION_SUBJECT = re.compile(
    r"\b(?:does|do|did|will|would)\s+(?P<subject>[^?.;,]{1,80}?)\s+(?:includ(?:e|es|ed|ing)|covers?|"
    r"contains?|exclud(?:e|es|ed|ing)|omits?|leaves?(?=\s+out\b|\s+" + ONE_PHRASE + OUT_ENDS + r")|"
    r"counts?(?!\s+(?:in|into|toward|towards|as|against|for|to|under|on|within)\b))\b", re.I)
DOCUMENT_SUBJECT = re.compile(
    r"\bwhat\s+(?:does|do|did|will|would)\s+(?P<subject>[^?.;,]{1,80}?)\s+(?:say|state|mention|tell us|claim|write)\b",
    re.I)
# "net revenue for EMEA": what follows a pairing word qualifies the thing named; it is not its name.
PAIRING = {"for", "of", "in", "on", "at", "by", "per", "across", "from", "about", "under", "during", "over"}


def _known(w: str, vocab: set[str]) -> bool:
    # One slip away from a visible word is that word misspelt ("revenu"), which the ranker reads as such.
    # A short name typed with a vowel left out ("tgs" for tugs) is that name too.
    return w in vocab or (len(w) >= 5 and process.extractOne(w, vocab, scorer=OSA.distance, score_cutoff=1)
                          is not None) or (2 <= len(w) <= 5 and any(dropped_vowel(w, v) for v in vocab
                                                                      if len(v) == len(w) + 1))


def subject_span(question: str) -> tuple[int, int] | None:
    m = INCLUSION_SUBJECT.search(question) or DOCUMENT_SUBJECT.search(question)
    return m.span("subject") if m else None


def names_nothing_visible(question: str, view, excluded: list[tuple[int, int]] = ()) -> bool:
    """True when the question's subject (its head, up to a pairing word) holds a word no visible object uses.
    `excluded` are spans read as something else (dates, versions)."""
    span = subject_span(question)
    if span is None:
        return False
    named = [(r.start, r.end) for r in named_objects(question, view)]
    head = []
    for t in tokenize(question[span[0]:span[1]]):
        at = span[0] + t.start
        if t.norm in PAIRING and head:
            break
        if any(a <= at < b for a, b in [*excluded, *named]):
            continue
        if (t.norm in STOPWORDS or t.norm in GENERIC or t.norm in KIND_NOUNS or t.norm in MONTH_WORDS
                or t.norm.isdigit() or len(t.norm) <= 2 or not t.norm.isalpha()):
            continue
        head.append(t.norm)
    if not head:
        return False
    vocab = visible_vocabulary(view)
    return any(not _known(w, vocab) for w in head)


# Words that point back at something said before ("tell me more", "and the other one?") without naming it.
POINTING = set(words("more else again other another one ones thing things stuff anything something everything same "
                     "ok okay hi hello hey thanks"))


# "how much was it in Q2?", "how many were there?": they ask for a number of whatever is on the table, naming nothing.
# Kept here, not among the catalog's asking words, which every name match also drops.
QUANTITY = set(words("much many"))
# Beside "how much" / "how many", the verb of what is counted ("how many were sold in Q3?", "how much did we make?")
# names an activity, not a catalog object: a fixed list, so the answer never depends on what any role can see.
COUNTED = set(words("sold sell sells selling bought buy purchased ordered order made make earned earn spent spend "
                    "booked book paid pay received collected signed joined came visited held used shipped"))


# A word written as an identifier ("int_model_7", "raw.orders") names something, whatever words it is made of.
# Not "e.g." or "i.e.": a dotted name's parts are words.
_IDENTIFIER = re.compile(r"\b[a-z]\w*(?:_\w+)+|\b[a-z]\w+(?:\.[a-z]\w+)+", re.I)


def names_no_subject(question: str, excluded: list[tuple[int, int]] = ()) -> bool:
    """True when the question names no subject at all: every word asks (what, is, current, changed, owns), points
    back (it, that, more) or is a date or version (`excluded`), as in "is it current?" or "who owns it?". Such a
    question is asked back, not answered as not found: there is nothing to look up. Pure over the text, so it says
    nothing about what any role can see; a question with one word of its own ("is the zorblax current?") names a
    subject, and an unknown named subject stays not found."""
    skip = in_spans(excluded)
    if any(not skip(m.start()) for m in _IDENTIFIER.finditer(question)):
        return False
    if any(t.norm in KIND_NOUNS and question[t.start:t.end].lower() != t.norm for t in tokenize(question)):
        return False  # "which sources are ...?", "have any metrics changed?": a kind, across the catalog, is the subject
    tokens = tokenize(question)
    counted = COUNTED if any(t.norm in QUANTITY for t in tokens) else set()
    return not any(not skip(t.start) and t.norm not in STOPWORDS and t.norm not in GENERIC
                   and t.norm not in ASKING_WORDS and t.norm not in MONTH_WORDS and t.norm not in KIND_NOUNS
                   and t.norm not in POINTING and t.norm not in QUANTITY and t.norm not in counted
                   and not t.norm.isdigit() and len(t.norm) > 1
                   for t in tokens)


# The word a follow-up points back with ("is it fresh?"): said in the note that names what it carried.
_BACK = re.compile(r"\b(it|its|it's|that|this|those|these|they|them|the same)\b", re.IGNORECASE)


def pointed_back(text: str) -> str | None:
    """The word `text` (a question as asked) points back to the last subject with, as written; None when it points
    back with no such word ("and in 2023?")."""
    m = _BACK.search(text)
    return m.group(0) if m else None
