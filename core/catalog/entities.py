"""Which business entity a question names, searched only among the requester's visible evidence.

Names come from entity ids, aliases and titles. rank-bm25 orders candidates; a candidate is
accepted only when one of its names appears as a phrase in the question (or, for a metric, its
head noun stands bare, with no qualifier before it nor "of" phrase after it). Anything looser is
a guess, and guesses become clarification questions instead.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from difflib import get_close_matches
from functools import lru_cache

from core.catalog.evidence import DOCUMENT_KINDS, GOVERNING_KINDS, KIND, Kind
from core.catalog.text import STOPWORDS, Token, in_spans, is_object_qualifier, is_qualifier, tokenize, words

KIND_PREFIXES = {"metric", "model", "source", "lineage", "doc", "docs", "policy", "freshness", "note", "notes",
                 "draft", "wiki", "finance", "dashboard", "exposure"}
# Which entity leads when several related ones are named: the metric is what is being asked about.
ROLE_PRIORITY = {"metric": 0, "model": 1, "source": 2, "policy": 3}


@dataclass
class Entity:
    entity_id: str
    role: str  # metric | model | source | policy | document | lineage
    names: list[tuple[str, ...]] = field(default_factory=list)
    head: str | None = None
    label: str = ""
    governed: bool = False  # has evidence that may govern an answer

    @property
    def is_topic(self) -> bool:
        return self.role in ROLE_PRIORITY


@dataclass
class Match:
    entity_id: str
    start: int  # token index
    end: int
    full: bool


def _role(kinds: set[Kind]) -> str:
    if Kind.metric_definition in kinds:
        return "metric"
    if Kind.model in kinds:
        return "model"
    if kinds & {Kind.source, Kind.freshness_policy, Kind.freshness_observation}:
        return "source"
    if Kind.policy in kinds:
        return "policy"
    if kinds <= {Kind.lineage}:
        return "lineage"
    return "document"


_PARENTHESIS = re.compile(r"\(.*?\)")
_DASH = re.compile(r"\s[—–-]\s")
_DASH_OR_COLON = re.compile(r"\s[—–-]\s|:")
_VERSION = re.compile(r"\b(v\d+|version\s*\d+)\b", re.I)


def _clean_title(title: str) -> str:
    title = _PARENTHESIS.sub(" ", title)
    title = _DASH_OR_COLON.split(title)[0] if _DASH.search(title) else title
    title = _VERSION.sub(" ", title)
    return title


def _label(entity_id: str, title: str) -> str:
    """A short display name: the title's own words for the entity id ('Net revenue'), else the title."""
    key = id_phrases(entity_id)[0]
    cleaned = " ".join(_clean_title(title).split())
    title_words = cleaned.split()
    if tuple(words(" ".join(title_words[:len(key)]))) == key:
        return " ".join(title_words[:len(key)])
    parts = entity_id.split(".")
    return ".".join(parts[1:] if len(parts) > 1 and parts[0] in KIND_PREFIXES else parts)


@lru_cache(maxsize=1 << 14)  # pure and bounded; a dbt model's title is its id's last part, read twice otherwise
def _phrase(text: str) -> tuple[str, ...]:
    return tuple(words(text))


def id_phrases(entity_id: str) -> list[tuple[str, ...]]:
    return list(_id_phrases(entity_id))  # a new list: callers add names to it


# Pure; the index and the title index read each entity id's phrases several times (a cold `ask`, docs/scale.md).
# Bounded: a server process keeps it for its lifetime.
@lru_cache(maxsize=1 << 14)
def _id_phrases(entity_id: str) -> tuple[tuple[str, ...], ...]:
    parts = entity_id.split(".")
    if len(parts) > 1 and parts[0].lower() in KIND_PREFIXES:
        parts = parts[1:]
    out = [_phrase(" ".join(parts))]
    # "payment_events" names a table; a bare "customers" or "orders" names nothing in particular.
    if len(parts) > 1 and "_" in parts[-1]:
        out.append(_phrase(parts[-1]))
    # dbt's <layer>_<domain>__<entity>: "refunds daily" names fct_finance__refunds_daily (one word is too vague).
    tail = _phrase(parts[-1].rsplit("__", 1)[1]) if "__" in parts[-1] else ()
    if len(tail) > 1 and tail not in out:
        out.append(tail)
    return tuple(out)


def build_entity_index(rows) -> dict[str, Entity]:
    """Entities from light rows (evidence_id, entity_id, kind, title, authority, lifecycle, aliases[, label])."""
    grouped: dict[str, list] = {}
    for row in rows:
        grouped.setdefault(row[1], []).append(row)
    out: dict[str, Entity] = {}
    roles = {entity_id: _role({KIND[r[2]] for r in objs}) for entity_id, objs in grouped.items()}
    # An identifier is the catalog's own name for one entity: a title that only matches it once its
    # parenthesis is cut ("Orders (Fill nulls with 0)") names another entity of that kind, not this one.
    own = {(roles[e], id_phrases(e)[0]): e for e in grouped}
    for entity_id, objs in grouped.items():
        role = roles[entity_id]
        names = id_phrases(entity_id)
        for row in objs:
            _, _, kind, title, _, _, aliases = row[:7]
            # A display name is matched whole: cut of its parenthesis, "Orders (Fill nulls with 0)" would name Orders.
            names += [_phrase(a) for a in aliases] + [_phrase(x) for x in row[7:8] if x]
            if role == "document" or KIND[kind] not in DOCUMENT_KINDS:
                cleaned = _clean_title(title)
                name = _phrase(cleaned)
                if cleaned == title or name == _phrase(title) or own.get((role, name), entity_id) == entity_id:
                    names.append(name)
        names = [n for n in dict.fromkeys(names) if n and any(w not in STOPWORDS for w in n)]
        main = next((r for r in objs if r[4] == "authoritative" and r[5] not in ("draft", "retired")), objs[0])
        governed = any(r[4] == "authoritative" and r[5] not in ("draft", "retired")
                       and KIND[r[2]] in GOVERNING_KINDS for r in objs)
        # A display name the catalog gives (`label`) is what people call it; else one read from the title.
        shown = main[7] if len(main) > 7 and main[7] else next((r[7] for r in objs if len(r) > 7 and r[7]), None)
        out[entity_id] = Entity(entity_id, role, names, head=id_phrases(entity_id)[0][-1],
                                label=shown or _label(entity_id, main[3]), governed=governed)
    return out


MAX_NAME_WORDS = 8


def match_entities(question: str, entities: dict[str, Entity], phrases: dict[tuple[str, ...], set[str]],
                   exclude_spans: list[tuple[int, int]] = ()) -> tuple[list[Match], list[Token]]:
    """Phrase matches of entity names in the question, longest first, overlaps removed.

    `phrases` maps each name to its entities, so the cost follows the question's length, not the
    catalog's size. `exclude_spans` are character spans already explained (dates, versions).
    """
    excluded = in_spans(exclude_spans)
    toks = [t for t in tokenize(question) if not excluded(t.start)]
    norms = [t.norm for t in toks]
    found: list[Match] = []
    for i in range(len(norms)):
        for n in range(1, min(MAX_NAME_WORDS, len(norms) - i) + 1):
            name = tuple(norms[i:i + n])
            for entity_id in sorted(phrases.get(name, ())):
                ent = entities[entity_id]
                # An alias that is just the head noun ("revenue") obeys the bare-noun rule:
                # "recognized revenue" names something else.
                if name == (ent.head,) and i > 0 and is_qualifier(norms[i - 1]):
                    continue
                found.append(Match(entity_id, i, i + n, True))
    # Longer spans win: "net revenue" beats an alias "revenue" of another entity inside it.
    found.sort(key=lambda m: (-(m.end - m.start), m.start))
    kept: list[Match] = []
    for m in found:
        if not any(k.start < m.end and m.start < k.end and (k.end - k.start) > (m.end - m.start) for k in kept):
            kept.append(m)
    return kept, toks


def head_index(entities: dict[str, Entity]) -> dict[str, list[Entity]]:
    """Metric entities by head noun ("revenue" -> net revenue, ...)."""
    out: dict[str, list[Entity]] = {}
    for ent in entities.values():
        if ent.role == "metric" and ent.head:
            out.setdefault(ent.head, []).append(ent)
    return out


# After a head noun these make it a modifier: "crm customers table" is about a table.
NOUN_AFTER = {"table", "data", "dataset", "source", "feed", "model", "pipeline", "extract", "load"}


def _qualified(norms: list[str], i: int, ent: Entity) -> bool:
    """The head noun at `i` is qualified by words that are not `ent`'s: one before it ("board revenue") or an "of"
    phrase after it ("cost of goods" is not Customer acquisition cost, "rate of churn" is Churn rate)."""
    before = norms[i - 1] if i > 0 else None
    if before is not None and is_qualifier(before) and not _own_word(before, ent):
        return True
    return bool(foreign_of_phrase(norms, i, ent))


def _own_word(w: str, ent: Entity) -> bool:
    """A word of the entity's names; a misspelt one ("acitve customers") is not a different qualifier."""
    name_words = {x for n in ent.names for x in n}
    return w in name_words or bool(get_close_matches(w, name_words, n=1, cutoff=0.75))


def foreign_of_phrase(norms: list[str], i: int, ent: Entity) -> list[str]:
    """The naming words of an "of" phrase after the noun at `i` when it names something other than `ent` ("is cost of
    goods stale?" for Customer acquisition cost: ["good"]), else []."""
    after = _of_phrase(norms, i)
    # One word of the metric's own name anywhere in the phrase ("rate of monthly churn") makes it the metric's.
    if any(_own_word(w, ent) for w in after):
        return []
    # Only right after "of" is a word saying how a thing is part of a name ("cost of goods"); later it says how the
    # thing is ("is revenue of March final?", "is cost of goods stale?").
    return [w for k, w in enumerate(after) if (is_object_qualifier if k == 0 else is_qualifier)(w)]


# Words an "of" phrase may hold without ending ("the cost of [all the] goods", "cost of acquiring [a] customer").
ARTICLES = {"a", "an", "the", "our", "their", "your", "my", "its", "this", "these", "those", "that", "all", "any",
             "each", "some", "every"}


def _of_phrase(norms: list[str], i: int) -> list[str]:
    """The words of an "of" phrase right after the noun at `i` ("cost of goods data" -> goods), without articles. Any
    other stop word ends it ("rate of churn for ..."), as does a word saying the question is about data ("data")."""
    if i + 1 >= len(norms) or norms[i + 1] != "of":
        return []
    out: list[str] = []
    for w in norms[i + 2:]:
        if w in NOUN_AFTER or (w in STOPWORDS and w not in ARTICLES):
            break
        if w not in ARTICLES:
            out.append(w)
    return out


def bare_head_matches(toks: list[Token], heads: dict[str, list[Entity]], used: list[Match]) -> list[Match]:
    """A metric's head noun standing alone ("the wiki says revenue is ..."), with no qualifier before or after it."""
    out: list[Match] = []
    norms = [t.norm for t in toks]
    for i, word in enumerate(norms):
        if any(u.start <= i < u.end for u in used):
            continue
        for ent in heads.get(word, ()):
            if not _qualified(norms, i, ent) and all(m.entity_id != ent.entity_id for m in out):
                out.append(Match(ent.entity_id, i, i + 1, False))
    return out


def qualified_head(toks: list[Token], heads: dict[str, list[Entity]]) -> bool:
    """A visible metric's head noun with a foreign qualifier ("recognized revenue", "board revenue"):
    the question names a metric this catalog does not show, so no similar name may stand in for it."""
    norms = [t.norm for t in toks]
    return any(_qualified(norms, i, ent) and (i + 1 >= len(norms) or norms[i + 1] not in NOUN_AFTER)
               for i, word in enumerate(norms) for ent in heads.get(word, ()))


def rank(scores: dict[str, float], entities: dict[str, Entity], candidates: list[str]) -> list[str]:
    """Order candidate entity ids by their BM25 score over names (ties: role priority, then id)."""
    return sorted(candidates, key=lambda c: (-scores.get(c, 0.0), ROLE_PRIORITY.get(entities[c].role, 9), c))



# Semantic scores: best cosine similarity (MiniLM) of any of the entity's indexed rows, plus a small
# full-text bonus relative to the best full-text hit. Calibrated on tests/paraphrases.yaml and on
# questions about things the demo catalog does not hold (see tests/retrieve/test_retrieval.py).
SEMANTIC_ACCEPT = 0.53
SEMANTIC_MIN_VECTOR = 0.40
SEMANTIC_MARGIN = 0.025
LEXICAL_WEIGHT = 0.15


def semantic_entities(searcher, question: str, role_filter: str, entities: dict[str, Entity]) -> list[tuple[str, float, float]]:
    """Visible topic entities ranked by (combined score, vector similarity), best first.

    Only entities that could govern an answer are proposed: a guess that lands on a draft-only
    metric helps nobody, and such metrics stay reachable by their names and aliases.
    """
    where = f"{role_filter} AND lifecycle <> 'retired'"
    vec: dict[str, float] = {}
    for h in searcher.vector(question, where, k=30):
        vec[h.entity_id] = max(vec.get(h.entity_id, 0.0), h.score)
    lex: dict[str, float] = {}
    for h in searcher.text(question, where, k=30):
        lex[h.entity_id] = max(lex.get(h.entity_id, 0.0), h.score)
    top_lex = max(lex.values(), default=0.0) or 1.0
    out = [(e, vec.get(e, 0.0) + LEXICAL_WEIGHT * lex.get(e, 0.0) / top_lex, vec.get(e, 0.0))
           for e in set(vec) | set(lex) if e in entities and entities[e].is_topic and entities[e].governed]
    return sorted(out, key=lambda t: (-t[1], t[0]))
