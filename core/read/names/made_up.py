"""Made-up names: a question about something the role cannot see, or that does not exist, is not found, never
answered with the nearest visible name. A name is made up when its words are ones nothing visible uses, when the
first word of a visible name goes on with a word no visible name continues it with ("net bookings"), when a kind
word follows an unknown word ("the partner metric"), when an identifier matches no visible object, or when a
measure is paired with nothing ("the share of ..." of nothing visible)."""
from __future__ import annotations

import re

from core.catalog.entities import Match
from core.catalog.text import ASKING_WORDS, GENERIC, MONTH_WORDS, STOPWORDS, Token, normalize, tokenize, words
from core.read.intents.described import NOT_THE_SUBJECT, entity_words, question_words, shared_by_one
from core.read.intents.intent import inclusion_match
from core.read.names.asking import DOC_STATUS_WORDS, KIND_NOUNS, KIND_WORDS, _aside_tokens, _excluded
from core.read.names.candidate import MAX_OPTIONS, Choice
from core.read.names.vocabulary import _known, visible_vocabulary

IDENTIFIER = re.compile(r"\b[a-z]\w*(?:\.[a-z]\w*)+\b|\b[a-z][a-z0-9]*(?:_+[a-z0-9]+)+\b", re.I)  # dbt uses "__" too


PAIRING = {"for", "of", "on", "in", "at", "by", "per", "across"}
NOT_A_THING = set(words("share percent percentage pct ratio rate proportion fraction growth trend breakdown split "
                        "mix change delta average avg median sum total count number"))


def _paired_with_nothing(question, toks: list[Token], exact: list[Match], view, intent) -> str | None:
    """"CSAT for webinars", "fees on bookings": a word before "for"/"of"/"on" ... and a visible name, where that
    word is a word of some other visible name but no visible object has both (not the named one, nor any other):
    the question asks for a thing this role cannot see, so the named one must not stand in for it. Returns the
    word, or None. Only the role's view is read, so a hidden object that has both reads as absent."""
    norms = [t.norm for t in toks]
    inside = {k for m in exact for k in range(m.start, m.end)}
    for m in exact:
        k = m.start - 1
        if k >= 1 and norms[k] == "the":
            k -= 1
        if k < 1 or norms[k] not in PAIRING:
            continue
        j = k - 1
        w = norms[j]
        if j in inside or w in GENERIC or w in KIND_NOUNS or w in NOT_A_THING or not w.isalpha() \
                or _excluded(toks[j], intent) or w not in view.name_words:
            continue
        name = {x for x in norms[m.start:m.end] if x not in STOPWORDS}
        if w not in entity_words(view, m.entity_id) and not shared_by_one(view, name | {w}):
            return w
    return None


DBT_PREFIXES = {"fct", "stg", "dim", "int", "raw", "base", "mart", "seed", "rpt"}


def _compound(question: str, m: Match, toks: list[Token], norms: list[str], vocab: set[str], intent) -> bool:
    """A one-word name ("customer") or a spelled-out dbt name ("fct order") directly followed by a
    content word no visible name uses ("customer acquisition cost", "fct order cost") is part of a
    longer name for something else."""
    if m.end >= len(norms) or not (m.end - m.start == 1 or norms[m.start] in DBT_PREFIXES):
        return False
    nxt = norms[m.end]
    inclusion = inclusion_match(question)
    if inclusion and inclusion.start("verb") == toks[m.end].start:
        return False  # "does AOV leave out shipping?", "do bookings omit insurance?": the question's verb ends the name
    if m.end + 1 < len(norms) and norms[m.end + 1] == "of":
        return False  # "revenue net of refunds", "orders regardless of status": a modifier phrase, not a longer name
    if nxt in KIND_NOUNS:
        return False  # "raw_orders seed", "fct_orders model": the kind of the thing named, not a longer name
    if m.end - m.start > 1:  # a spelled-out dbt name: any content word after it makes a longer name
        written = question[toks[m.start].start:toks[m.end].start]
        if "_" in written and not written.endswith("_"):
            return False  # "fct_order_lines owner": the identifier ends where the underscores do
        vocab = set()
    return (nxt not in vocab and nxt not in GENERIC and not nxt.isdigit() and not _excluded(toks[m.end], intent)
            and toks[m.end].start - toks[m.end - 1].end <= 1)


def _foreign(w: str, vocab: set[str]) -> bool:
    return (w not in vocab and w not in GENERIC and w not in MONTH_WORDS and not w.isdigit() and len(w) > 2
            and w.isalpha())


# How much or how often something is asked ("how many passengers are seated?"): the size of the answer, not its subject.
QUANTITY_WORDS = set(words("many much often long big large small high low"))


def _words_nothing_visible_uses(question: str, toks: list[Token], intent, view) -> list[str]:
    """The question's content words that no object the role may see uses anywhere (no title, id, alias, text or
    column; one slip away counts as used): "acquire" and "CAC" when customer acquisition cost is hidden or absent.
    Asking, generic, kind and quantity words, dates, numbers and asides ("with payment events late, ...") say
    nothing about the subject and are never counted. Only the role's view is read, so a hidden object's words read
    exactly as made-up ones."""
    aside = _aside_tokens(question, toks)
    asked = [t.norm for k, t in enumerate(toks) if k not in aside and not _excluded(t, intent)
             and t.norm not in ASKING_WORDS and t.norm not in KIND_NOUNS and t.norm not in QUANTITY_WORDS
             and t.norm not in NOT_A_THING and _foreign(t.norm, set())]
    if not asked:
        return []
    vocab = visible_vocabulary(view)
    return [w for w in asked if not _known(w, vocab)]


def _made_up_compound(norms: list[str], view) -> bool:
    """"net bookings", "refund velocity", "gross bookings ratio": the first word of a visible name followed by
    a word that no visible name continues it with is a name for something else, not a paraphrase of it."""
    asked = set(norms)
    for w, nxt in zip(norms, norms[1:]):
        names = [n for _, n in view.names_by_first.get(w, ()) if len(n) > 1]
        # "average spend per order" shares two words with "average order value": a paraphrase, not a new name.
        if not names or any(asked & set(n[1:]) for n in names):
            continue
        # The word after may be a visible word too ("churn rate" when only "churn model" is visible): what
        # matters is that no visible name goes on that way.
        if _foreign(nxt, set()) and all(n[1] != nxt for n in names):
            return True
    return False


def _unknown_kind_name(norms: list[str], vocab: set[str]) -> bool:
    """"the disabled model", "the partner metric": a kind word after a content word no visible name uses
    names one thing of that kind that this role does not see, so nothing similar may stand in for it."""
    kinds = {"model", "source", "metric", "kpi", "seed", "table", "dataset", "dashboard", "exposure"}
    return any(w in kinds and k > 0 and norms[k - 1] not in GENERIC and norms[k - 1] not in vocab
               and norms[k - 1] not in MONTH_WORDS and not norms[k - 1].isdigit() and len(norms[k - 1]) > 2
               for k, w in enumerate(norms))


def _unexplained_spans(question: str, intent, view) -> list[tuple[int, int]]:
    """Identifiers ("fct_invoices", "raw.orders") that are no visible name: the user means one thing,
    and a similar-sounding visible object must not stand in for it."""
    out = []
    for m in IDENTIFIER.finditer(question):
        if any(s <= m.start() < e for s, e in intent.excluded_spans):
            continue
        # The whole identifier, or what follows a schema dot ("raw_finance.refunds" names "refunds"), must be
        # a visible name; a visible word at the end of a longer identifier ("int_x__joined_refunds") is not.
        parts = m.group().lower().split(".")
        readings = [tuple(normalize(w) for w in re.findall(r"[a-z0-9]+", ".".join(parts[i:]))) for i in range(len(parts))]
        if not _visible_reading(readings, view):
            out.append(m.span())
    return out


def _visible_reading(readings: list[tuple[str, ...]], view) -> bool:
    """Is the whole identifier (readings[0]) inside a visible name, or what follows one of its dots a visible name?
    Looked up first (a name said whole, a word no name has); only what is left reads every name."""
    phrases = view.phrases
    if any(r in phrases for r in readings):
        return True
    if not readings[0]:
        return bool(phrases)
    if not set(readings[0]) <= view.name_words:
        return False
    return any(_contains(n, readings[0]) for n in phrases if n)


def _partial_identifier(question: str, intent, view) -> Choice | None:
    """"fct_finance__invoices" when only fct_finance__invoice_lines and ..._daily are visible: the identifier is
    the start of visible names, so they are offered (one is read as meant, with a note); a similar-sounding
    name elsewhere (fct_invoices) is never picked silently."""
    entities = view.entities
    for m in IDENTIFIER.finditer(question):
        if "_" not in m.group() or any(s <= m.start() < e for s, e in intent.excluded_spans):
            continue
        said = tuple(normalize(w) for w in re.findall(r"[a-z0-9]+", m.group().lower()))
        if said in view.phrases:
            continue
        found = sorted({e for e, n in view.names_by_first.get(said[0], ()) if len(n) > len(said) and n[:len(said)] == said},
                       key=lambda e: (min(len(n) for n in entities[e].names), e))
        if len(found) == 1:
            label = entities[found[0]].label
            return Choice("answer", found[0], note=f"read '{m.group()}' as {label}",
                          rule=f"'{m.group()}' is no visible name; the only visible name it begins is {found[0]}")
        if found:
            return Choice("clarify", options=found[:MAX_OPTIONS], note=f"'{m.group()}' begins several names",
                          rule=f"'{m.group()}' is no visible name; it begins " + ", ".join(found[:MAX_OPTIONS]))
    return None


def _contains(name: tuple[str, ...], words: tuple[str, ...]) -> bool:
    k = len(words)
    return any(name[i:i + k] == words for i in range(len(name) - k + 1))


# The words people use for an object that is a document of some kind: "the rebate memo", "the Q4 plan".
OBJECT_NOUNS = {normalize(w) for w in (
    "memo memos plan plans scenario scenarios deck decks proposal proposals briefing forecast budget playbook "
    "runbook presentation slides whitepaper wiki handbook page doc document note draft policy thread export "
    "email glossary").split()}


def absent_object_name(toks: list[Token], view, intent=None, skip: set[int] = frozenset()) -> tuple[int, int] | None:
    """"the finance-only rebate memo": an object noun (memo, plan, scenario, ...) with the distinctive words
    before it, one of which matches nothing the role can see (no title, id, alias, text or column uses it).
    That object is not in the visible catalog, so nothing else may stand in for it. Returns the phrase's
    token span (the distinctive words and the noun)."""
    norms = [t.norm for t in toks]
    vocab = None
    for k, w in enumerate(norms):
        if w not in OBJECT_NOUNS or k in skip:
            continue
        j = k
        while j > 0 and k - j < 3 and norms[j - 1] not in STOPWORDS and norms[j - 1] not in OBJECT_NOUNS \
                and norms[j - 1] not in DOC_STATUS_WORDS and (j - 1) not in skip:
            j -= 1
        named = [n for n in range(j, k) if not (intent and _excluded(toks[n], intent))
                 and _foreign(norms[n], set()) and norms[n] not in KIND_NOUNS]
        if not named:
            continue
        vocab = vocab if vocab is not None else visible_vocabulary(view)
        if any(not _known(norms[n], vocab) for n in named):
            return j, k + 1
    return None


# ---- a look-alike of another kind ---------------------------------------------------
# A look-alike never stands in for what was asked: "what is the lab results velocity metric?" asks for a metric
# named by a word ("velocity") that the closest visible object, a source of lab results, never uses. Similarity found
# the source, and its freshness was answered as if the metric existed. When the question names the kind it wants and
# the pick is of another kind, every word of the question's subject must be the pick's own (its names, description
# or columns); otherwise the name is read as made up: not found, as for a hidden one (only the role's view is read).
#

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
