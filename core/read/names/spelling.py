"""A name written misspelt or abbreviated: each word of a visible name is compared with the question's words
(rapidfuzz, with ABBREVIATIONS and a single edit in a long word counted as near), and a name's acronym counts as the
name. A near-miss is only a candidate: how sure it must be to answer (FUZZY_SURE) or to be asked back (FUZZY_MIN) is
the ranker's decision."""
from __future__ import annotations

import weakref

from rapidfuzz import fuzz
from rapidfuzz.distance import OSA

from core.catalog.entities import Entity
from core.catalog.text import GENERIC, STOPWORDS, Token
from core.read.names.asking import KIND_NOUNS
from core.read.names.candidate import Candidate

FUZZY_MIN = 0.84         # mean per-word similarity for a spelling near-miss to count at all
FUZZY_WORD_MIN = 0.70    # ... and no word of the name below this
FUZZY_SURE = 0.88        # at or above: answer, with a note; below: ask back


ABBREVIATION = 0.92      # "merch" for "merchandise", "acq" for "acquisition", "CAC" for a three-word name
ONE_EDIT = 0.9           # a single insertion, deletion, substitution or swap in a word of 6+ letters
LAYER_PREFIXES = {"fct", "fact", "dim", "stg", "int", "mart", "rpt", "agg", "base"}
# Abbreviations analysts type that are not prefixes of the word they stand for.
ABBREVIATIONS = {"avg": "average", "amt": "amount", "qty": "quantity", "num": "number", "cust": "customer",
                 "pct": "percent", "mgmt": "management", "acct": "account", "std": "standard", "cnt": "count",
                 "w": "with"}


def _word_sim(q: str, n: str) -> float:
    if q == n:
        return 1.0
    if ABBREVIATIONS.get(q) == n or ABBREVIATIONS.get(n) == q:
        return ABBREVIATION
    if len(q) >= 3 and len(n) > len(q) and n.startswith(q):
        return ABBREVIATION
    if abbreviates(n, q):  # the authors abbreviated inside the name: "cntr" in fct_cntr_dwell for "container"
        return ABBREVIATION
    if dropped_vowel(q, n):
        return ONE_EDIT  # "tgs" for tugs: a short name typed with a letter missing
    if len(n) >= 6 and OSA.distance(q, n) == 1:
        return ONE_EDIT  # one slip on a long word ("reveune", "revenve") is a typo, whatever the edit
    return fuzz.ratio(q, n) / 100.0


def fuzzy_candidates(question: str, toks: list[Token], entities: dict[str, Entity], vocab: set[str],
                     taken: set[int], view) -> list[Candidate]:
    """Names that appear misspelt or abbreviated: same number of words, in order, each close.

    A question word that is itself a word of some visible name, or a common question word, is a
    different word, not a misspelling ("drink revenue" is not a typo of "food revenue")."""
    norms = [t.norm for t in toks]
    out: dict[str, Candidate] = {}
    near = _near_first_words(norms, taken, view)
    for ent in entities.values():
        if not ent.is_topic or ent.entity_id not in near:
            continue
        # A layer prefix authors put before a model's name ("fct", "dim") is not said when it is asked about:
        # "the container dwell model" for fct_cntr_dwell.
        for full, name in [(n, n) for n in ent.names] + [(n, n[1:]) for n in ent.names
                                                         if len(n) > 1 and n[0] in LAYER_PREFIXES]:
            k = len(name)
            if sum(len(w) for w in full) < (3 if len(full) == 1 else 5):
                continue  # a one-word name of 3-4 letters is matched only by its own short forms (lone_ok below)
            for i in range(0, len(norms) - k + 1):
                window = norms[i:i + k]
                if any(j in taken for j in range(i, i + k)) or tuple(window) == name:
                    continue
                sims = []
                for q, n in zip(window, name):
                    # A word the catalog uses is no misspelling, but it may be what a name abbreviates ("container"
                    # in a description, "cntr" in the model's name).
                    if q != n and not abbreviates(n, q) and not dropped_vowel(q, n) \
                            and (q in vocab or q in GENERIC or len(q) < 3):
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
                    lone_ok = dropped_vowel(window[0], name[0]) or abbreviates(name[0], window[0]) if k == 1 else True
                    if k == 1 and sum(len(w) for w in name) < 3:
                        continue
                    after = norms[i + k] if i + k < len(norms) else None
                    if k == 1 and (lone_ok or full != name) and after and after.isalpha() and after not in vocab and \
                            after not in GENERIC and after not in STOPWORDS and after not in KIND_NOUNS:
                        continue  # "vessel occupancy", "custmer acquisiton cost": a word beside it names something else
                    if k == 1 and ((len(window[0]) < 6 and not lone_ok) or sim < FUZZY_SURE):
                        continue  # a lone short word is too easily something else, unless a name's own short form
                    if sim >= FUZZY_MIN and sim > out.get(ent.entity_id, Candidate("")).features.get("fuzzy", 0):
                        out[ent.entity_id] = Candidate(ent.entity_id, {"fuzzy": sim}, (i, i + k),
                                                       read_as=question[toks[i].start:toks[i + k - 1].end])
    for cand in acronym_candidates(question, toks, view, vocab, taken):
        if cand.features["fuzzy"] > out.get(cand.entity_id, Candidate("")).features.get("fuzzy", 0):
            out[cand.entity_id] = cand
    return list(out.values())


def _near_first_words(norms: list[str], taken: set[int], view) -> set[str]:
    """The topic entities with a name whose first word (or first after a layer prefix) is within FUZZY_WORD_MIN of a
    question word: every other name fails fuzzy_candidates' own test on its first word, so only these are read there.
    Compared by distinct first word, not by entity: at a million objects reading every name took seconds a question."""
    said = {w for i, w in enumerate(norms) if i not in taken}
    names_by_first, stripped = view.names_by_first, _after_prefix(view)
    out: set[str] = set()
    for first in names_by_first.keys() | stripped.keys():
        if any(q == first or _word_sim(q, first) >= FUZZY_WORD_MIN for q in said):
            out.update(e for e, _ in names_by_first.get(first, ()))
            out.update(stripped.get(first, ()))
    return out


# A view's topic entities whose name has a layer prefix, by the word after it: built once per view, as the view's
# names_by_first is (core/read/intents/described.py keeps its word index the same way).
_AFTER_PREFIX: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _after_prefix(view) -> dict[str, set[str]]:
    found = _AFTER_PREFIX.get(view)
    if found is None:
        found = {}
        for prefix in LAYER_PREFIXES:
            for e, name in view.names_by_first.get(prefix, ()):
                if len(name) > 1:
                    found.setdefault(name[1], set()).add(e)
        _AFTER_PREFIX[view] = found
    return found


def acronym_candidates(question: str, toks: list[Token], view, vocab: set[str], taken: set[int]) -> list[Candidate]:
    """"CAC" for Customer Acquisition Cost: one question word spelling the initials of a visible name of
    three or more words. Shorter acronyms ("nr") are too often something else; they need an alias. Only the visible
    topic names whose first word begins with the acronym's first letter are read (view.names_by_first)."""
    out = []
    firsts = view.names_by_first
    for k, t in enumerate(toks):
        w = question[t.start:t.end].lower()
        if k in taken or len(w) < 3 or not w.isalpha() or w in vocab or w in GENERIC:
            continue
        spelt = {e for first in firsts if first[:1] == w[0]
                 for e, n in firsts[first] if len(n) == len(w) and "".join(x[0] for x in n) == w}
        out += [Candidate(e, {"fuzzy": ABBREVIATION}, (k, k + 1), read_as=question[t.start:t.end]) for e in sorted(spelt)]
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


VOWELS = set("aeiou")


def abbreviates(short: str, word: str) -> bool:
    """Is `short` (3-5 letters, in a name) an abbreviation authors write for `word`: its prefix ("cust" for
    customer), or its first and last letters with some letters between, in order ("vsl" for vessel, "cntr" for
    container, "qty" for quantity)? At least two letters shorter, so a slip is not read as an abbreviation."""
    if not (3 <= len(short) <= 5 and short.isalpha() and len(word) >= len(short) + 2 and word.isalpha()):
        return False
    if word.startswith(short):
        return True
    if short[0] != word[0] or short[-1] != word[-1] or VOWELS & set(short[1:]):
        return False  # a skeleton keeps consonants ("cntr"); "aov" is an acronym, never a shortening of "approved"
    rest = iter(word[1:-1])
    return all(ch in rest for ch in short[1:-1])


def dropped_vowel(q: str, n: str) -> bool:
    """`q` is the short name `n` (3-6 letters, as normalized: "tugs" is "tug") with one vowel left out: "tgs" for
    tugs, "brth" for berth."""
    if q.endswith("s") and not n.endswith("s") and len(q) == len(n):
        q = q[:-1]  # names are compared stemmed ("tugs" is "tug"); a misspelt word is not stemmed ("tgs")
    if not (3 <= len(n) <= 6 and len(q) == len(n) - 1 and q.isalpha()):
        return False
    return any(n[i] in VOWELS and n[:i] + n[i + 1:] == q for i in range(len(n)))
