"""One slip in a short word of a name read whole: "dim_tiem" for dim_time, "dim_wrad" for dim_ward, "churn rtae".

A slip in a long word ("reveune") was already read as a typo; in a word of four or five letters it was asked back,
so a model named in one word plus a layer prefix ("dim_", "fct_") was never read as it is elsewhere. Only when every
other word of the name is written exactly, the slipped word is letters only (a changed digit names another object:
"int_model_7" is not "int_model_1"), and it is no word the catalog uses itself (checked by the caller).
"""
from __future__ import annotations

from rapidfuzz.distance import OSA

SHORT = 4  # the shortest word in which one slip is still read as a typo beside exact words


def one_slip_beside_exact(window: list[str], name: tuple[str, ...]) -> bool:
    """Is `window` the name with one slip (insertion, deletion, substitution or swap) in one word of 4+ letters?"""
    if len(name) < 2:
        return False
    differing = [(q, n) for q, n in zip(window, name) if q != n]
    if len(differing) != 1:
        return False
    q, n = differing[0]
    return len(n) >= SHORT and q.isalpha() and n.isalpha() and OSA.distance(q, n) == 1


def swap_of_known(w: str, vocab: set[str]) -> bool:
    """A four-letter word that is a visible word with two neighbouring letters swapped ("tiem", "lnes", "wrad"): a
    typo of a known word, not a word of its own (longer words are matched one slip away by the ranker itself)."""
    return len(w) == SHORT and w.isalpha() and any(w[:i] + w[i + 1] + w[i] + w[i + 2:] in vocab for i in range(len(w) - 1))
