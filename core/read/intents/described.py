"""A table described instead of named: "the customer overview data mart", "what is the grain of our supply expenses
data?". When no visible name is in the question, the words of each visible entity's names, description
and column names are matched against the question's own words, weighted by how rare each word is among the
visible entities (IDF). One entity that covers nearly all of the question's words, clearly ahead of the next,
is what the question describes.

Everything is computed inside the role's view (the bags and the word rarities), so a hidden object is never a
candidate and never moves a score: a hidden object described reads exactly like one never written.
"""
from __future__ import annotations

import math
import re
import weakref
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from core.catalog.text import STOPWORDS, normalize, tokenize, words
from core.read.intents.listing_filter import FRESH_WORDS, STALE_WORDS
from core.settings import budget

DESCRIBED_MIN = 0.8  # share of the question's (IDF-weighted) words the best entity's words must cover
DESCRIBED_MARGIN = 0.2  # ... and its lead over the next entity
MIN_WORDS = 2  # one word is a name, or too little to describe anything by
_SCORED_AT_ONCE = 64  # entities whose own words one read fetches while the best two are sought
# Words that ask or describe how a table is put, never what it holds: they count for no entity and against none.
ASKING = {normalize(w) for w in """
what which where who whom how is are was were does do did the a an model models table tables mart marts
view views dataset datasets relation relations data list lists listing listed show shows showing shown hold holds
holding contain contains containing record records find finds finding calculate calculates calculated give gives
every each one single row rows per grain granularity level detail column columns field fields built build
made make makes mean means meaning defined definition define describe described called named name there here
our my your their we i you please tell about thing things stuff info information look looks like kind type
""".split()}
NUMBER_WORDS = {"zero": "0", "one": "1", "two": "2", "three": "3"}
IDENT = re.compile(r"[A-Za-z0-9]+(?:_+[A-Za-z0-9]+)+")


@dataclass
class _Own:
    """One entity's words, read on first use: a question needs them for the few entities it scores."""
    bag: set[str]  # its words (names, description, columns), stemmed, stop words aside
    pairs: set[tuple[str, str]]  # its adjacent describing words ("customer overview")
    prose: set[tuple[str, str]]  # ... said in its description or title, not only in a column name
    columns: set[tuple[str, ...]]  # the words of its column names and identifiers


@dataclass
class _Bags:
    """A view's word index: for each word, the topic entities whose words hold it. An entity is its position in
    `ids` (sorted, so position order is id order); the index holds arrays of positions, not sets of ids: at a million
    objects a role sees ~190,000 entities with ~21 words each."""
    ids: list[str]
    table: np.ndarray  # per position: a model or source, what a description may name
    rows: dict[str, int]  # word -> its row: the entities holding it are positions[starts[row]:starts[row + 1]]
    starts: np.ndarray
    positions: np.ndarray
    # Not the view: _CACHE is keyed by it weakly, and a value holding its key would keep both alive for good.
    own: dict[str, _Own] = field(default_factory=dict, repr=False)

    @property
    def n(self) -> int:
        return max(len(self.ids), 1)

    def holding(self, word: str) -> np.ndarray:
        """The sorted positions of the entities whose words hold `word`."""
        row = self.rows.get(word)
        return _NONE if row is None else self.positions[self.starts[row]:self.starts[row + 1]]

    def idf(self, word: str) -> float:
        """How rare a word is among the view's entities; a word none uses is rarest."""
        held = len(self.holding(word))
        return math.log(1 + self.n / held) if held else math.log(1 + self.n)

    def words_of(self, view, entity_ids) -> dict[str, _Own]:
        """The entities' own words in `view` (the one this index is of), each entity's rows read once (one query for
        all those not read before)."""
        missing = [e for e in dict.fromkeys(entity_ids) if e not in self.own]
        if missing:
            grouped: dict[str, list] = {}
            for row in view.described_rows(missing):
                grouped.setdefault(row[0], []).append(row)
            entities = view.entities
            for eid in missing:
                ent = entities.get(eid)
                self.own[eid] = (_own_words(ent, grouped.get(eid, [])) if ent is not None and ent.is_topic
                                 else _Own(set(), set(), set(), set()))
        return {e: self.own[e] for e in entity_ids}


_NONE = np.zeros(0, np.int32)


_CACHE: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _split(name: str) -> list[str]:
    return words(re.sub(r"[_.]+", " ", name))


def _stem(w: str) -> str:
    # "joining" meets "joins" and "joined" (already "join"); normalize folds plurals and -ed only.
    return w[:-3] if len(w) > 6 and w.endswith("ing") else w


def _describing(seq: list[str]) -> list[str]:
    # "zero direct parents" meets "0 direct parents"
    return [_stem(NUMBER_WORDS.get(w, w)) for w in seq
            if w not in STOPWORDS and w not in ASKING and (len(w) >= 3 or w.isdigit())]


def said_together(view, entity_id: str, asked: list[str]) -> bool:
    """Are at least half of the asked words' adjacent pairs said side by side in the entity's description or
    title (not inside an identifier such as order_cost)?"""
    prose = _bags(view).words_of(view, [entity_id])[entity_id].prose
    pairs = list(zip(asked, asked[1:]))
    return 2 * sum(p in prose for p in pairs) >= len(pairs)


def entity_words(view, entity_id: str) -> set[str]:
    """The words of a visible entity's names, description and columns."""
    return _bags(view).words_of(view, [entity_id])[entity_id].bag


def shared_by_one(view, said: set[str]) -> bool:
    """Does some visible entity's words hold every word of `said`?"""
    return bool(holding_all(view, said))


def _holding_all(b: _Bags, said) -> np.ndarray:
    if not said:
        return np.arange(len(b.ids))
    found = sorted((b.holding(w) for w in set(said)), key=len)
    out = found[0]
    for other in found[1:]:
        out = np.intersect1d(out, other, assume_unique=True)
    return out


def holding_all(view, said) -> set[str]:
    """The visible topic entities whose words hold every word of `said`, found by word, not by reading every bag."""
    b = _bags(view)
    return {b.ids[i] for i in _holding_all(b, said)}


def _inside(words_: tuple[str, ...], ident: tuple[str, ...]) -> bool:
    k = len(words_)
    return any(ident[i:i + k] == words_ for i in range(len(ident) - k + 1))


def _adjacent(seq: list[str]) -> set[tuple[str, str]]:
    return set(zip(seq, seq[1:]))


def _bags(view) -> _Bags:
    try:
        return _CACHE[view]
    except (KeyError, TypeError):
        pass
    # Built once per view on its first use, not counted in that question's budget, as the view's name indexes are
    # (core/catalog/access.py per_view). Not built by the warm-up: paid only by a role that asks a question naming
    # nothing it can see (docs/scale.md has its cost at a million objects).
    with budget.not_counted():
        out = _build(view)
    try:
        _CACHE[view] = out
    except TypeError:
        pass
    return out


@lru_cache(maxsize=1 << 16)
def _text_words(text: str) -> tuple[tuple[str, ...], frozenset[tuple[str, ...]], frozenset[tuple[str, str]]]:
    """A title's, description's or alias's words (stemmed), the identifiers in it and its adjacent describing words.
    Pure: a catalog generated from templates repeats its texts, and a title is read again for each version."""
    seq = tuple(_stem(w) for w in words(text))
    # An identifier in the text (a measure "food_orders", a column) is a name, not prose saying words side by side:
    # it is kept apart, and a question made of its words names it.
    idents = frozenset(tuple(_stem(w) for w in _split(ident)) for ident in IDENT.findall(text))
    said = frozenset(_adjacent(_describing([_stem(w) for w in words(IDENT.sub(" identifier_ ", text))])))
    return seq, idents, said


@lru_cache(maxsize=1 << 16)
def _column_words(column: str) -> tuple[str, ...]:
    return tuple(_stem(w) for w in _split(column))


def _own_words(ent, rows) -> _Own:
    """An entity's words from its names and its visible rows (described_rows)."""
    bag = {_stem(w) for n in ent.names for w in n}
    pair = {p for n in ent.names for p in _adjacent(_describing(list(n)))}
    said: set[tuple[str, str]] = set()
    columns: set[tuple[str, ...]] = set()
    for _, title, description, aliases, cols in rows:
        # The description (dbt's) or the body (a hand-written catalog's), the title, aliases and columns.
        for text in (title, description, *aliases):
            seq, idents, adjacent = _text_words(text)
            bag.update(seq)
            columns |= idents
            said |= adjacent
        for col in cols:
            seq = _column_words(col)
            columns.add(seq)
            bag.update(seq)
            pair |= _adjacent(_describing(list(seq)))
    return _Own(bag - STOPWORDS, pair | said, said, columns)


def _build(view) -> _Bags:
    entities = view.entities
    ids = sorted(e for e, ent in entities.items() if ent.is_topic)
    codes: dict[str, int] = {}  # word -> its number in this index

    def code(word: str) -> int:
        return -1 if word in STOPWORDS else codes.setdefault(word, len(codes))

    # (word, entity) pairs from three places, made distinct at the end: each entity's names, the rows SQL splits into
    # words (one row per distinct token, with every entity holding it), and the few rows it cannot split as Python does.
    word_parts: list[np.ndarray] = []
    pos_parts: list[np.ndarray] = []
    name_words, counts = [], []
    for eid in ids:
        words_ = [w for n in entities[eid].names for w in n]
        name_words += words_
        counts.append(len(words_))
    coded = {w: code(_stem(w)) for w in dict.fromkeys(name_words)}
    word_parts.append(np.array([coded[w] for w in name_words], np.int64))
    pos_parts.append(np.repeat(np.arange(len(ids), dtype=np.int64), counts))
    tokens, others = view.described_tokens(ids)
    positions = tokens.column("positions").combine_chunks()
    token_codes = np.array([code(_stem(normalize(t))) for t in tokens.column("tok").to_pylist()], np.int64)
    word_parts.append(np.repeat(token_codes, np.diff(positions.offsets.to_numpy())))
    pos_parts.append(positions.flatten().to_numpy().astype(np.int64))
    position = {e: i for i, e in enumerate(ids)} if others else {}
    extra_words, extra_pos = [], []
    for eid, title, description, aliases, cols in others:
        i = position[eid]
        for text in (title, description, *aliases):
            extra_words += [code(w) for w in _text_words(text)[0]]
        for col in cols:
            extra_words += [code(w) for w in _column_words(col)]
        extra_pos += [i] * (len(extra_words) - len(extra_pos))
    word_parts.append(np.array(extra_words, np.int64))
    pos_parts.append(np.array(extra_pos, np.int64))
    word, pos = np.concatenate(word_parts), np.concatenate(pos_parts)
    keep = word >= 0
    n = max(len(ids), 1)
    keys = np.sort(word[keep] * n + pos[keep])  # by word, then by entity position
    keys = keys[np.diff(keys, prepend=-1) != 0]  # each (word, entity) once (np.unique hashes: 7 times slower here)
    word, pos = keys // n, (keys % n).astype(np.int32)
    starts = np.flatnonzero(np.diff(word, prepend=-1))  # where each word's run of entities begins
    by_code = {c: w for w, c in codes.items()}
    rows = {by_code[int(c)]: k for k, c in enumerate(word[starts])}
    table = np.array([entities[e].role in ("model", "source") for e in ids], bool)
    return _Bags(ids, table, rows, np.append(starts, len(pos)), pos)


def question_words(question: str, excluded: list[tuple[int, int]] = ()) -> list[str]:
    """The question's own words that could describe a table: not stop words, not asking words, not dates."""
    return list(dict.fromkeys(_describing([t.norm for t in tokenize(question)
                                           if not any(s <= t.start < e for s, e in excluded)])))


@dataclass
class Described:
    entity_id: str
    coverage: float  # IDF-weighted share of the question's words the entity's words hold
    next_id: str | None
    next_coverage: float
    asked: list[str]

    names_a_column: bool = False  # the asked words are one of the entity's column names ("order cost")

    @property
    def clear(self) -> bool:
        return (self.coverage >= DESCRIBED_MIN and self.coverage - self.next_coverage >= DESCRIBED_MARGIN
                and not self.names_a_column)


def _may_say(b: _Bags, word: str) -> np.ndarray:
    """Per entity: could one of its pairs of describing words hold `word`? Its pairs are its own words as
    _describing reads them: a word it holds, or one it holds cut of "ing" once more (a word ending in "inging" is held
    cut once and paired cut twice), a number word it holds ("one" is paired as "1"), or the placeholder of an
    identifier in its prose. An upper bound: the pairs themselves are read only for the entities scored."""
    if word == "identifier" or word in STOPWORDS:
        return np.ones(len(b.ids), bool)
    out = np.zeros(len(b.ids), bool)
    for held in (word, word + "ing", *(k for k, v in NUMBER_WORDS.items() if v == word)):
        out[b.holding(held)] = True
    return out


def coverage(view, entity_id: str, asked: list[str]) -> float:
    """The IDF-weighted share of the asked words in the entity's words, averaged with the share of the asked
    words' adjacent pairs that the entity says side by side too ("customer overview" is the customers mart's,
    though the orders mart mentions a customer and an overview)."""
    b = _bags(view)
    own = b.words_of(view, [entity_id])[entity_id]
    total = sum(b.idf(w) for w in asked)
    words_ = sum(b.idf(w) for w in asked if w in own.bag) / total if total else 0.0
    return _with_pairs(words_, own, asked)


def _with_pairs(words_: float, own: _Own, asked: list[str]) -> float:
    asked_pairs = list(zip(asked, asked[1:]))
    if not asked_pairs:
        return words_
    return (words_ + sum(p in own.pairs for p in asked_pairs) / len(asked_pairs)) / 2


def described_entity(question: str, view, excluded: list[tuple[int, int]] = ()) -> Described | None:
    """The visible entity whose words cover the question's best, with the runner-up; None when the question has
    too few describing words or nothing covers any of them."""
    asked = question_words(question, excluded)
    if len(asked) < MIN_WORDS:
        return None
    b = _bags(view)
    # Tables (models, sources) are what a description names: a policy or a page that mentions the words in passing
    # ("standard revenue" in a rebate policy) does not stand in for a metric the role cannot see. Only a table holding
    # an asked word can cover any; the others all score 0, and the first of them by id is the runner-up if need be.
    total = sum(b.idf(w) for w in asked)
    weight = np.zeros(len(b.ids))  # the IDF-weighted asked words each entity holds, added in the order asked
    held = np.zeros(len(b.ids), bool)
    for w in asked:
        at = b.holding(w)
        weight[at] += b.idf(w)
        held[at] = True
    holding = np.flatnonzero(held & b.table)
    if not len(holding):
        return None
    share = weight[holding] / total
    # The pairs are an entity's own words, read per entity: entities are scored in order of the best each could
    # reach (every asked pair whose two words it may say, said), ties by id, until none left can reach the best two.
    pairs = list(zip(asked, asked[1:]))
    may = {w: _may_say(b, w)[holding] for w in asked}
    said = sum((may[x] & may[y]).astype(int) for x, y in pairs) / len(pairs)
    best_reach = (share + said) / 2
    order = holding[np.lexsort((holding, -best_reach))]
    reach = dict(zip(holding.tolist(), best_reach.tolist()))
    shares = dict(zip(holding.tolist(), share.tolist()))
    top: list[tuple[float, int]] = []  # the best two so far, as (-coverage, position)
    for start in range(0, len(order), _SCORED_AT_ONCE):
        chunk = order[start:start + _SCORED_AT_ONCE].tolist()
        if len(top) == 2 and (-reach[chunk[0]], chunk[0]) > top[1]:
            break
        owns = b.words_of(view, [b.ids[i] for i in chunk])
        for i in chunk:
            if len(top) == 2 and (-reach[i], i) > top[1]:
                break
            top = sorted([*top, (-_with_pairs(shares[i], owns[b.ids[i]], asked), i)])[:2]
    (best, i) = top[0]
    if len(top) > 1:
        nxt = (-top[1][0], b.ids[top[1][1]])
    else:
        others = np.flatnonzero(b.table & ~held)
        nxt = (0.0, b.ids[others[0]]) if len(others) else (0.0, None)
    eid = b.ids[i]
    # "what is order cost?", "food orders": the words are (part of) a column's or a measure's name (order_cost,
    # is_food_order), so a column or a metric of that name is asked about, not the table that has it.
    column = any(_inside(tuple(asked), ident) for ident in b.own[eid].columns)
    return Described(eid, -best, nxt[1], nxt[0], asked, column)


# ---- what a freshness question is about ------------------------------------------------------------------------------
# Words that ask whether data is up to date, or name the kind of thing loaded, never what it holds: "is the cost of
# goods data up to date?" is about cost of goods.
NOT_THE_SUBJECT = {_stem(normalize(w)) for w in """
fresh freshness stale staleness up date late latest last newest recent recently current currently today yesterday
old load loads loaded loading reload reloaded update updated refresh refreshed refreshing arrive arrived arriving
land landed ingest ingested sync synced extract extracted ok okay healthy in
source sources raw feed feeds seed pipeline pipelines snapshot
""".split()}


# A question that says it is about data or a table ("is the cost of goods data up to date?") means what is loaded.
DATA_WORDING = re.compile(r"\b(?:data|datasets?|tables?|feeds?|extracts?|loads?)\b", re.I)


def says_data(question: str) -> bool:
    """Whether the question says it is about data or a table: then sources and models come first among its options."""
    return bool(DATA_WORDING.search(question))


@dataclass
class SubjectTables:
    """The visible sources and models whose words hold every word of a question's subject."""
    said: list[str]  # the subject's words, as the bags hold them
    sources: list[str]
    models: list[str]


def subject_tables(question: str, view, excluded: list[tuple[int, int]] = ()) -> SubjectTables:
    """For a question about freshness: the subject's words (what is left once the words asking about loads are set
    aside), and the visible sources and models whose names, description or columns hold all of them, those whose
    names hold them first. A source's loads are what "up to date" is about, and a source is often named in the
    catalog's own shorthand ("raw_finance.cogs") while its description says what a question says ("cost of goods").
    Only the role's view is read: a hidden table is never one of them and never moves the others."""
    said = [w for w in question_words(question, excluded) if w not in NOT_THE_SUBJECT]
    # "is the HR export fresh?": a two-letter acronym written in capitals says what is held as a longer word does.
    said += [t.norm for t in tokenize(question) if len(t.norm) == 2 and question[t.start:t.end].isupper()
             and t.norm not in STOPWORDS and not any(a <= t.start < b for a, b in excluded)]
    if not said:
        return SubjectTables(said, [], [])
    b = _bags(view)
    entities = view.entities
    holding = [b.ids[i] for i in _holding_all(b, said) if b.table[i]]
    holding.sort(key=lambda e: not names_hold(view, e, said))
    return SubjectTables(said, [e for e in holding if entities[e].role == "source"],
                         [e for e in holding if entities[e].role == "model"])


def names_hold(view, entity_id: str, said: list[str]) -> bool:
    """Does the entity's own name (not only its description) say every one of the words?"""
    return set(said) <= {_stem(w) for n in view.entities[entity_id].names for w in n}


_STALE_ASKED = re.compile(r"\b(?:" + STALE_WORDS + r")\b", re.I)
_NOT_STALE = re.compile(r"\bnot\s+(?:stale|late|overdue|out[- ]of[- ]date)\b", re.I)
_FRESH_ASKED = re.compile(r"\b(?:" + FRESH_WORDS + r")\b", re.I)


# Trouble asked of data in other words: "anything look off with the payments feed?", "is the orders table broken?",
# "is something wrong with the clicks data?". Of data, trouble is its loads: asked the stale way (Yes is the bad news).
# Not "broken down by day", "broken out by channel" or "off by one": those ask how the data is cut or counted.
_TROUBLE = re.compile(r"\b(?:looks?|looking|seems?|seeming|gone|goes|going|went|anything|something|everything|is|are)"
                      r"\s+(?:\w+\s+)?(?:off(?!\s+by\b)|wrong|amiss)\b|\bbroken?\b(?!\s+(?:down|out|up|into|apart)\b)",
                      re.I)


def asks_trouble(question: str) -> bool:
    """Whether the question asks if something is wrong with data it names as data (a feed, table, load): a
    freshness question, asked the stale way. Of a metric alone ("anything wrong with churn?") it is not."""
    return bool(_TROUBLE.search(question)) and says_data(question)


# Trust asked of numbers or data: "can I trust yesterday's number?", "are the bookings figures reliable today?". Of
# loaded data, trust is its loads: a freshness question, asked the fresh way (Yes is the good news). Of a page or a
# definition ("can I trust the wiki page?") it is not.
_TRUST = re.compile(r"\b(?:(?:can|could|should|may|do)\s+(?:i|we|you)\s+(?:still\s+)?(?:trust|rely\s+on|believe)|"
                    r"trust(?:worthy)?|reliable|safe\s+to\s+(?:use|report|share|quote))\b", re.I)
_NUMBERS = re.compile(r"\b(?:numbers?|figures?|values?|stats|counts?|totals?|dashboards?)\b", re.I)


def asks_trust(question: str) -> bool:
    """Whether the question asks if numbers or data can be trusted: their freshness, asked the fresh way."""
    return bool(_TRUST.search(question)) and (says_data(question) or bool(_NUMBERS.search(question)))


def asks_stale(question: str) -> bool:
    """Does a freshness question ask whether the data is stale ("is AOV stale?", "is the data out of date?"),
    so that "Yes" is the bad news? Not when it also asks whether it is fresh ("fresh or stale?"), where a yes or
    no would answer one half only. "not fresh" is a stale word, so "is it not fresh?" is asked the stale way."""
    if _NOT_STALE.search(question):  # "is it not stale?" asks the fresh way
        return False
    stale = [m.span() for m in _STALE_ASKED.finditer(question)]
    if asks_trouble(question):
        stale += [m.span() for m in _TROUBLE.finditer(question)]
    fresh = [m for m in _FRESH_ASKED.finditer(question)
             if not any(a <= m.start() and m.end() <= b for a, b in stale)]
    return bool(stale) and not fresh
