"""A name written misspelt or abbreviated: each word of a visible name is compared with the question's words
(rapidfuzz, with ABBREVIATIONS and a single edit in a long word counted as near), and a name's acronym counts as the
name. A near-miss is only a candidate: how sure it must be to answer (FUZZY_SURE) or to be asked back (FUZZY_MIN) is
the ranker's decision."""
from __future__ import annotations

from rapidfuzz import fuzz
from rapidfuzz.distance import OSA

from core.catalog.entities import Entity
from core.catalog.text import GENERIC, Token
from core.read.names.candidate import Candidate

FUZZY_MIN = 0.84         # mean per-word similarity for a spelling near-miss to count at all
FUZZY_WORD_MIN = 0.70    # ... and no word of the name below this
FUZZY_SURE = 0.88        # at or above: answer, with a note; below: ask back


ABBREVIATION = 0.92      # "merch" for "merchandise", "acq" for "acquisition", "CAC" for a three-word name
ONE_EDIT = 0.9           # a single insertion, deletion, substitution or swap in a word of 6+ letters
# Abbreviations analysts type that are not prefixes of the word they stand for.
ABBREVIATIONS = {"avg": "average", "amt": "amount", "qty": "quantity", "num": "number", "cust": "customer",
                 "pct": "percent", "mgmt": "management", "acct": "account", "std": "standard", "cnt": "count",
                 "w": "with"}


def _word_sim(q: str, n: str) -> float:
    if q == n:
        return 1.0
    if ABBREVIATIONS.get(q) == n:
        return ABBREVIATION
    if len(q) >= 3 and len(n) > len(q) and n.startswith(q):
        return ABBREVIATION
    if len(n) >= 6 and OSA.distance(q, n) == 1:
        return ONE_EDIT  # one slip on a long word ("reveune", "revenve") is a typo, whatever the edit
    return fuzz.ratio(q, n) / 100.0


def fuzzy_candidates(question: str, toks: list[Token], entities: dict[str, Entity], vocab: set[str],
                     taken: set[int]) -> list[Candidate]:
    """Names that appear misspelt or abbreviated: same number of words, in order, each close.

    A question word that is itself a word of some visible name, or a common question word, is a
    different word, not a misspelling ("drink revenue" is not a typo of "food revenue")."""
    norms = [t.norm for t in toks]
    out: dict[str, Candidate] = {}
    for ent in entities.values():
        if not ent.is_topic:
            continue
        for name in ent.names:
            k = len(name)
            if sum(len(w) for w in name) < 5:
                continue
            for i in range(0, len(norms) - k + 1):
                window = norms[i:i + k]
                if any(j in taken for j in range(i, i + k)) or tuple(window) == name:
                    continue
                sims = []
                for q, n in zip(window, name):
                    if q != n and (q in vocab or q in GENERIC or len(q) < 3):
                        break
                    sims.append(_word_sim(q, n))
                else:
                    if min(sims) < FUZZY_WORD_MIN:
                        continue
                    if one_slip_beside_exact(window, name):  # "dim_tiem": a typo, as "reveune" is
                        sims = [s if q == n else max(s, ONE_EDIT) for s, q, n in zip(sims, window, name)]
                    # Long words weigh more: "grss" matters more than "of".
                    weights = [max(len(n), 2) for n in name]
                    sim = sum(s * w for s, w in zip(sims, weights)) / sum(weights)
                    if k == 1 and (len(window[0]) < 6 or sim < FUZZY_SURE):
                        continue  # a lone short word is too easily something else
                    if sim >= FUZZY_MIN and sim > out.get(ent.entity_id, Candidate("")).features.get("fuzzy", 0):
                        out[ent.entity_id] = Candidate(ent.entity_id, {"fuzzy": sim}, (i, i + k),
                                                       read_as=question[toks[i].start:toks[i + k - 1].end])
    for cand in acronym_candidates(question, toks, entities, vocab, taken):
        if cand.features["fuzzy"] > out.get(cand.entity_id, Candidate("")).features.get("fuzzy", 0):
            out[cand.entity_id] = cand
    return list(out.values())


def acronym_candidates(question: str, toks: list[Token], entities: dict[str, Entity], vocab: set[str],
                       taken: set[int]) -> list[Candidate]:
    """"CAC" for Customer Acquisition Cost: one question word spelling the initials of a visible name of
    three or more words. Shorter acronyms ("nr") are too often something else; they need an alias."""
    out = []
    for k, t in enumerate(toks):
        w = question[t.start:t.end].lower()
        if k in taken or len(w) < 3 or not w.isalpha() or w in vocab or w in GENERIC:
            continue
        for ent in entities.values():
            if ent.is_topic and any(len(n) == len(w) and "".join(x[0] for x in n) == w for n in ent.names):
                out.append(Candidate(ent.entity_id, {"fuzzy": ABBREVIATION}, (k, k + 1), read_as=question[t.start:t.end]))
    return out


# ---- one slip in a short word -------------------------------------------------------------
# One slip in a short word of a name read whole: "dim_tiem" for dim_time, "dim_wrad" for dim_ward, "churn rtae".
#
# A slip in a long word ("reveune") was already read as a typo; in a word of four or five letters it was asked back,
# so a model named in one word plus a layer prefix ("dim_", "fct_") was never read as it is elsewhere. Only when every
# other word of the name is written exactly, the slipped word is letters only (a changed digit names another object:
# "int_model_7" is not "int_model_1"), and it is no word the catalog uses itself (checked by the caller).
#

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
