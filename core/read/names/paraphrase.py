"""Paraphrases: dense similarity answers only above SEMANTIC_ACCEPT (thresholds calibrated in
core/catalog/entities.py), and is matched on the question without the words that say what kind or standing is
asked (subject_search_text), so an unknown subject reads as a made-up one; a paraphrased ratio must lead the next
ratio metric by RATIO_MARGIN."""
from __future__ import annotations

import re

from core.catalog.entities import (
    ROLE_PRIORITY,
    SEMANTIC_ACCEPT,
    SEMANTIC_MARGIN,
    SEMANTIC_MIN_VECTOR,
    semantic_entities,
)
from core.catalog.text import ASKING_WORDS, STOPWORDS, tokenize
from core.read.intents.disagreement import is_review_word
from core.read.names.asking import ASKED_OF_WORDS, DOC_TYPE_WORDS, STATUS_WORDS
from core.read.names.candidate import MAX_OPTIONS, Candidate, Choice
from core.read.names.kinds import RATIO_ID

RATIO_ASKED = re.compile(r"\b(?:share|percent(?:age)?|pct|proportion|fraction|ratio|rate)\s+of\b|%\s*of\b|"
                         r"\bhow many\b.{1,60}\bout of\b", re.I)
RATIO_MARGIN = 0.08      # a paraphrased ratio: the best ratio metric must lead the next one by this much
RATIO_MIN = 0.40         # ... and score at least this


def subject_search_text(question: str, view) -> str:
    """The question as entity search reads it: without the words that say what KIND of thing or status is asked
    (drafts, wiki pages, "disagreeing", "superseded", "approved", "definition", "mean"). Those words match documents
    and drafts of whatever metric has some, so "what does cabin upgrades mean and are there drafts disagreeing?"
    found the one metric with a draft; a subject is matched on its own words or not at all, so an unknown or hidden
    one reads as a made-up one. A word a visible metric, model or source is named with ("Page views") stays: there
    it is a subject's word. Only the role's view is read, so a hidden name never keeps a word."""
    named = view.topic_names_by_word
    out, at = [], 0
    for t in tokenize(question):
        if t.norm not in named and (t.norm in STATUS_WORDS or t.norm in DOC_TYPE_WORDS or t.norm in ASKED_OF_WORDS
                                    or is_review_word(question[t.start:t.end])):
            out.append(question[at:t.start])
            at = t.end
    return " ".join("".join(out + [question[at:]]).split())


def _semantic(question, view, searcher, role, restrict: list[str], base) -> Choice | None:
    """Dense similarity (with a full-text share) over visible names, aliases and descriptions."""
    entities = view.entities
    text = subject_search_text(question, view)
    if all(t.norm in STOPWORDS or t.norm in ASKING_WORDS for t in tokenize(text)):
        return None  # only how it is asked is left ("what does it mean, and are there drafts disagreeing?")
    ranked = semantic_entities(searcher, text, searcher.view_filter(view), entities)
    ratio = bool(RATIO_ASKED.search(question))
    if restrict and ratio and not any(RATIO_ID.search(e) for e in restrict):
        restrict = []  # "share of customers we lost": a count of customers is not the ratio asked for
    if restrict:
        heads = [r for r in ranked if r[0] in restrict] or [(e, 0.0, 0.0) for e in restrict]
        # A bare head noun is weak evidence: "how long before a customer counts as lapsed" is about churn,
        # which similarity finds clearly ahead of every metric whose head is "customers".
        if ranked and ranked[0][0] not in restrict and ranked[0][1] >= SEMANTIC_ACCEPT \
                and ranked[0][2] >= SEMANTIC_MIN_VECTOR and ranked[0][1] - heads[0][1] >= SEMANTIC_MARGIN:
            restrict = []
        else:
            ranked = heads
    if not restrict and ratio:
        # "share of web sessions that end in an order": a ratio is asked for, so only a ratio metric can be
        # the answer, however close a table of sessions sounds. Similarity picks among those, with a wider lead.
        ratios = [r for r in ranked if entities[r[0]].role == "metric" and RATIO_ID.search(r[0])]
        if ratios and ratios[0][1] >= RATIO_MIN and (len(ratios) == 1 or ratios[0][1] - ratios[1][1] >= RATIO_MARGIN):
            best, score, _ = ratios[0]
            return Choice("answer", best, candidates=[Candidate(e, {"dense": sc}) for e, sc, _ in ratios[:MAX_OPTIONS]],
                          rule=f"the question asks for a ratio; semantic match among visible ratio metrics: {best} "
                          f"(score {score:.2f}" + (f"; next {ratios[1][0]} {ratios[1][1]:.2f})" if len(ratios) > 1 else ")"),
                          **base)
    if restrict:
        if len(ranked) == 1:
            return Choice("answer", ranked[0][0], rule="matched by the bare head noun of a visible metric name, "
                          "with no qualifier", candidates=[Candidate(ranked[0][0], {"head": 1.0})], **base)
    elif not ranked or ranked[0][1] < SEMANTIC_ACCEPT or ranked[0][2] < SEMANTIC_MIN_VECTOR:
        if ranked:
            return Choice("none", rule="semantic search found nothing close enough among visible entities", **base)
        return None
    cands = [Candidate(e, {"dense": s}) for e, s, _ in ranked[:MAX_OPTIONS * 2]]
    (best, score, _), rest = ranked[0], ranked[1:]
    close = [r for r in rest if score - r[1] < SEMANTIC_MARGIN]
    if close:
        group = [best] + [e for e, _, _ in close]
        sources = [e for e in group if entities[e].role == "source"]
        linked = view.linked_entities(best)
        if _asks_freshness(question) and len(sources) == 1:
            best = sources[0]
        elif all(e in linked for e in group[1:]):
            best = min(group, key=lambda e: ROLE_PRIORITY.get(entities[e].role, 9))
        else:
            return Choice("clarify", options=group[:MAX_OPTIONS], candidates=cands, **base,
                          rule="semantic search: " + ", ".join(f"{e} ({sc:.2f})" for e, sc, _ in [ranked[0], *close])
                          + " are too close to call")
    return Choice("answer", best, candidates=cands, **base,
                  rule=f"semantic match over visible names, aliases and descriptions: {best} "
                  f"(score {score:.2f}" + (f"; next {rest[0][0]} {rest[0][1]:.2f})" if rest else ")"))


def _asks_freshness(question: str) -> bool:
    from core.read.intents.intent import ASPECTS
    return bool(ASPECTS["freshness_status"].search(question) or ASPECTS["freshness_policy"].search(question))
