"""A look-alike never stands in for what was asked: "what is the lab results velocity metric?" asks for a metric
named by a word ("velocity") that the closest visible object, a source of lab results, never uses. Similarity found
the source, and its freshness was answered as if the metric existed. When the question names the kind it wants and
the pick is of another kind, every word of the question's subject must be the pick's own (its names, description
or columns); otherwise the name is read as made up: not found, as for a hidden one (only the role's view is read).
"""
from __future__ import annotations

from core.catalog.text import tokenize
from core.read.intents.described import NOT_THE_SUBJECT, entity_words, question_words
from core.read.names.asking import KIND_NOUNS, KIND_WORDS

_AFTER_HEAD = {"", "for", "of", "in", "on", "at", "as", "about", "and", "or", "that", "which", "is", "was", "do", "does",
               "mean", "means", "defined", "calculated", "computed"}


def stands_in(question: str, view, entity_id: str, excluded: list[tuple[int, int]] = ()) -> bool:
    """Is `entity_id` a look-alike of another kind for a name the question gives words the entity never uses?"""
    toks = [t.norm for t in tokenize(question)]
    # The kind is the head of the name ("the lab results velocity metric", "... kpi for May"), not a modifier
    # inside it ("the source database location", "a model joining orders").
    heads = {w for w, after in zip(toks, toks[1:] + [""]) if after in _AFTER_HEAD}
    asked = {kind for kind in ("metric", "model", "source") if heads & KIND_WORDS[kind]}
    if not asked or view.entities[entity_id].role in asked:
        return False
    own = entity_words(view, entity_id)
    subject = [w for w in question_words(question, excluded) if w not in NOT_THE_SUBJECT and w not in KIND_NOUNS]
    return any(w not in own for w in subject)
