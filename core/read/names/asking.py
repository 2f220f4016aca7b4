"""The words of a question that say how something is asked, never which thing: kind nouns ("the orders model"),
document types and standing words ("the old wiki", "the approved one"), what is asked of a subject ("definition",
"mean"), asides ("with payment events late, ...") and what a document is said to claim. None of them names a
subject, so no rule matches a name on them alone."""
from __future__ import annotations

import re

from core.catalog.text import STOPWORDS, Token, words
from core.read.intents.disagreement import DISAGREEING_WORDS

# ---- what kind the question asks for --------------------------------------------------------------
KIND_WORDS = {
    "model": {"model", "dbt", "staging", "stg", "mart", "warehouse", "view", "relation", "dim", "fct", "int"},
    "source": {"source", "raw", "seed", "feed", "landing", "ingest", "ingested"},
    "metric": {"metric", "kpi", "measure"},
    "document": {"dashboard", "exposure", "report", "memo", "doc", "document", "handbook"},
}
KIND_NOUNS = {w for words in KIND_WORDS.values() for w in words} | {"table", "metric", "dataset"}


# A clause opened by these is an aside about circumstances, not what is asked about.
ASIDE = re.compile(r"\b(with|given|while|since|because|although|though|whereas|mentioning|mentions|after|"
                   r"despite|now that|if|when)\b", re.I)
CLAIM = re.compile(r"\b(?:says|said|claims|claimed|states|stated|suggests|suggested|reads)\b", re.I)


def _aside_tokens(question: str, toks: list[Token]) -> set[int]:
    """Token indexes inside an aside: from an ASIDE word to the next comma, or to the end."""
    out: set[int] = set()
    for m in ASIDE.finditer(question):
        before = question[:m.start()].rstrip()
        stop = question.find(",", m.end())
        if before == "" and stop > 0:
            pass  # "With payment events late, how is net revenue defined?"
        elif before.endswith(","):
            stop = stop if stop > 0 else len(question)  # "..., given the payment events delay"
        else:
            continue  # inside the main clause ("revenue with refunds") it is part of what is asked
        out |= {k for k, t in enumerate(toks) if m.start() <= t.start < stop}
    # "the old revenue wiki says order total incl tax - still right?": what a document claims is quoted, and
    # the question is about the document's topic; a name inside the claim is not its subject.
    for m in CLAIM.finditer(question):
        before = [k for k, t in enumerate(toks) if m.start() - 40 <= t.start < m.start()]
        doc = [k for k in before if toks[k].norm in DOC_TYPE_WORDS]
        # Only a document named by its topic ("the revenue wiki") says what the question is about; "the
        # handbook says revenue includes ..." leaves the subject inside the claim.
        if not doc or doc[0] == 0 or toks[doc[0] - 1].norm in STOPWORDS | DOC_STATUS_WORDS:
            continue
        end = re.search(r"\s[-–—]\s|[,;?]|$", question[m.end():])
        stop = m.end() + end.start()
        out |= {k for k, t in enumerate(toks) if m.end() <= t.start < stop}
    return out


# "the chargeback draft", "the management revenue draft", "the old revenue wiki": a document named by its
# type and the words before it. Words that only describe its status say nothing about its topic.
DOC_TYPE_WORDS = {"draft", "wiki", "handbook", "memo", "page", "note", "thread", "export", "proposal", "glossary",
                  "deck", "doc", "document", "slack"}
# A definition's or document's standing: how it is asked about, never what it is about. Normalized as question words
# are ("superseded" reads "supersed"), or they would never meet one.
STATUS_WORDS = set(words("old legacy superseded previous prior latest new current outdated deprecated obsolete "
                         "approved unapproved official authoritative governing proposed pending"))
# "any conflicting docs about churn?": documents said to disagree, not a document's name (core/read/intents/disagreement.py).
DOC_STATUS_WORDS = STATUS_WORDS | set(words("working finance board " + " ".join(DISAGREEING_WORDS)))
# What is asked of a subject, not which: its meaning, definition or version.
ASKED_OF_WORDS = set(words("definition definitions define defined defining mean means meaning meant version versions"))


def _excluded(tok: Token, intent) -> bool:
    return any(s <= tok.start < e for s, e in intent.excluded_spans)
