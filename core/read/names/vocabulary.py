"""The words the role's visible catalog uses (titles, ids, aliases, text, columns), built once per view and
kept while the view lives: a word is known when it is one of them or one slip away from one. Only the role's view
is read, so a hidden object's words are as unknown as made-up ones."""
from __future__ import annotations

import weakref

from rapidfuzz.distance import OSA

from core.read.names.spelling import swap_of_known
from core.settings import budget

_VOCABS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _per_view(cache, view, make):
    try:
        return cache[view]
    except (KeyError, TypeError):
        pass
    with budget.not_counted():  # once per view, as access.per_view
        value = make(view)
    try:
        cache[view] = value
    except TypeError:
        pass
    return value


def _vocabulary(view) -> set[str]:
    return view.name_words | view.object_words()


def visible_vocabulary(view) -> set[str]:
    """Every word of every object the role may see (the test for a name that matches nothing visible). Read
    from every visible object (in SQL: about a second a role at 100,000 objects), so built only for the questions
    that need it (a document or object noun)."""
    return _per_view(_VOCABS, view, _vocabulary)


def _known(w: str, vocab: set[str]) -> bool:
    """A word the visible catalog uses, or one slip away from one ("revenu", "handbok")."""
    if w in vocab or swap_of_known(w, vocab):
        return True
    if len(w) >= 5:
        from rapidfuzz import process
        return process.extractOne(w, vocab, scorer=OSA.distance, score_cutoff=1) is not None
    return False
