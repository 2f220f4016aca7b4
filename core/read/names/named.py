"""Objects named exactly: a visible object asked for by its evidence id, its entity id or its full title is
found, whatever the made-up-name rules say about the words inside it; and a document named by its type and
topic ("the chargeback draft", "the old revenue wiki")."""
from __future__ import annotations

import re
import weakref
from dataclasses import dataclass, field

from core.catalog.entities import KIND_PREFIXES, id_phrases
from core.catalog.evidence import Kind
from core.catalog.text import STOPWORDS, Token, tokenize, words
from core.read.names.asking import DOC_STATUS_WORDS, DOC_TYPE_WORDS
from core.read.names.vocabulary import _per_view, visible_vocabulary


def document_reference(toks: list[Token], view) -> dict[str, tuple[str, tuple[int, int]]]:
    """Topic entities of the visible documents a question names by type and topic words ("the chargeback
    draft" is the draft that mentions chargebacks), each with the document's title and the words' span.
    Only visible documents are read, so a hidden one never answers and never changes the answer."""
    norms = [t.norm for t in toks]
    out: dict[str, tuple[str, tuple[int, int]]] = {}
    docs = None
    for k, w in enumerate(norms):
        if w not in DOC_TYPE_WORDS:
            continue
        j = k
        while j > 0 and k - j < 3 and norms[j - 1] not in STOPWORDS and norms[j - 1] not in DOC_STATUS_WORDS \
                and norms[j - 1] not in DOC_TYPE_WORDS and not norms[j - 1].isdigit():
            j -= 1
        topic = set(norms[j:k])
        if not topic:
            continue  # "the draft" alone names no particular document
        if docs is None:
            docs = view.of_kinds([Kind.documentation.value, Kind.note.value])
        for ev in docs:
            body = set(words(f"{ev.title} {ev.text}"))
            kind_words = set(words(f"{ev.title} {ev.authority_class} {ev.lifecycle.value} {ev.kind.value}"))
            if not topic <= body or w not in kind_words | ({"slack", "thread", "export"} if ev.kind is Kind.note else set()):
                continue
            for eid in _topics_of(ev, view):
                out.setdefault(eid, (ev.title, (j, k + 1)))
    return out


def _topics_of(ev, view) -> set[str]:
    """The visible topic entity a document is about: its own entity, or what it documents or is superseded by."""
    entities = view.entities
    if ev.entity_id in entities and entities[ev.entity_id].is_topic:
        return {ev.entity_id}
    targets = [t for ts in (ev.links or {}).values() for t in ts] + ([ev.superseded_by] if ev.superseded_by else [])
    out = {t for t in targets if t in entities and entities[t].is_topic}
    for obj in view.by_ids([t for t in targets if t not in entities]):
        if obj.entity_id in entities and entities[obj.entity_id].is_topic:
            out.add(obj.entity_id)
    return out


# ---- objects named exactly (names that match nothing visible: core/read/names/made_up.py) ---------------
# A visible object asked for by its evidence id, its entity id or its full title is found, whatever the
# made-up-name rules say about the words inside it: those rules are for names the role cannot see.
OBJECT_ID = re.compile(r"(?<![\w.\-])[a-z0-9][\w\-]*(?:\.[\w\-]+)+|(?<![\w.\-])[a-z][a-z0-9]*(?:_+[a-z0-9]+)+", re.I)
# Kinds whose object is the thing asked about (its entity answers); the others (documentation, notes,
# lineage pages) are documents: asked for alone, the document itself is the answer (core/answer/intents/documents.py).
ENTITY_KINDS = {Kind.metric_definition, Kind.model, Kind.source, Kind.freshness_policy, Kind.policy,
                Kind.freshness_observation}


BY_ORDER = {"id": 0, "title": 1, "name": 2}  # the same words as an id and as a name: the id is meant


@dataclass
class Reference:
    """A visible object (or an entity's objects) named exactly in the question, at characters start..end."""
    entity_id: str
    evidence: list = field(default_factory=list)
    start: int = 0
    end: int = 0
    by: str = "id"  # id | title

    @property
    def document(self) -> bool:
        """Named as a document: no object in it is of a kind whose entity is what is asked about."""
        return not any(e.kind in ENTITY_KINDS for e in self.evidence)


# Titles: one index per opened file (`_catalog_titles`), read by each role through its view at lookup; a role's own
# index holds only its document entities' names (`_document_names`), which come from what it may see.
_DOCUMENT_NAMES: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()
_CATALOG_TITLES: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _catalog_titles(store) -> tuple[dict[tuple, tuple], tuple[int, ...]]:
    """Title words -> ((title words, evidence id, title), ...) of every object whose title can name it (two words or
    more, two of them no stopword), whoever may see it, and the title lengths in words there are: read only through
    `_titles_at`, which checks the view. Keyed by the whole title so that a word of the question costs a lookup per
    title length: at a million objects a common first word ("net", "upsell") starts thousands of titles, and
    comparing each with the question took ~5 ms of every answer.

    Read from the table's (id, title) columns: a cold process answering one question does not parse every object to
    find the few it names (a sixth of a cold `ask` on a 1,000-model project, docs/scale.md); and held once for the
    catalog, not once a role (a million objects' titles a role, docs/scale.md "Answering at a million")."""
    titles: dict[tuple, tuple] = {}
    for evidence_id, title in store.con.execute("SELECT evidence_id, title FROM evidence ORDER BY evidence_id").fetchall():
        # As the question is read ("w/" is "with"); without "w/", tokenize's norms are words' (one Token less a word).
        words_ = tuple(t.norm for t in tokenize(title)) if "w/" in title.lower() else tuple(words(title))
        if len(words_) >= 2 and sum(w not in STOPWORDS for w in words_) >= 2:
            titles[words_] = titles.get(words_, ()) + ((words_, evidence_id, title),)
    return titles, tuple(sorted({len(w) for w in titles}))


def _document_names(view) -> dict[str, list]:
    """First word -> [(document name, entity id, None)]: a visible document's or lineage page's own name ("Board
    letter" for "Board letter - Q2 2024 payer mix") names it too, unless a metric, model, source or policy goes by
    the same words."""
    names: dict[str, list] = {}
    entities = view.entities
    for ent in entities.values():
        if ent.is_topic:
            continue
        # The words of an id about another object ("lineage.metric.jaffle_shop.orders") are that object's.
        from_id = {n for n in id_phrases(ent.entity_id) if n[0] in KIND_PREFIXES}
        for name in ent.names:
            if name in from_id:
                continue
            if len(name) >= 2 and sum(w not in STOPWORDS for w in name) >= 2 \
                    and not any(entities[e].is_topic for e in view.phrases.get(name, ())):
                names.setdefault(name[0], []).append((name, ent.entity_id, None))
    return names


def _titles_at(view, norms: list[str], i: int) -> list[tuple]:
    """The visible titles, then the view's document names, written out in full from word `i` of the question: a
    title is matched first and its object's ACL checked after, so a question costs its matches, not the titles."""
    def written(entries):
        return [e for e in entries if tuple(norms[i:i + len(e[0])]) == e[0]]
    facts = view.facts
    titles, lengths = _per_view(_CATALOG_TITLES, view.store, _catalog_titles)
    titles = [e for n in lengths if i + n <= len(norms) for e in titles.get(tuple(norms[i:i + n]), ()) if e[1] in facts]
    return titles + written(_per_view(_DOCUMENT_NAMES, view, _document_names).get(norms[i], ()))


def named_objects(question: str, view, day=None) -> list[Reference]:
    """Visible objects the question names exactly: an evidence id or entity id written as an identifier, or a
    title of two or more words written out in full (case, punctuation and plurals aside). Longest first,
    overlaps removed. Only the role's view is read, so a hidden object's id or title is no reference at all:
    it then reads exactly as a made-up one."""
    from core.resolve.versions import retrievable
    found: list[Reference] = []

    def keep(objs, start, end, by):
        objs = list({e.evidence_id: e for e in objs if e.lifecycle.value != "retired"
                     and (day is None or retrievable(e, day))}.values())
        if objs:
            entity = objs[0].entity_id
            # Documents of one title are all quoted; otherwise the name is one entity's.
            docs = not any(e.kind in ENTITY_KINDS for e in objs)
            found.append(Reference(entity, [e for e in objs if docs or e.entity_id == entity], start, end, by))

    def by_id(said: str, objs: list) -> list:
        # An evidence id or entity id as written; objects in evidence id order, as the view reads them.
        return [e for e in objs if said in (e.evidence_id.lower(), e.entity_id.lower())]

    # Identifiers, and any other word with a digit or a separator in it that is an id as written ("KB-1042",
    # "doc:pricing/2024"); a plain word is a name, never an id.
    spans = [(m.start(), m.end()) for m in OBJECT_ID.finditer(question)]
    for m in re.finditer(r"\S+", question):
        a, b = m.span()
        while a < b and question[a] in "\"'`([{<":
            a += 1
        while b > a and question[b - 1] in "\"'`)]}>?!.,;:":
            b -= 1
        if b > a and not question[a:b].isalpha() and (a, b) not in spans:
            spans.append((a, b))
    written = view.by_written_ids({question[a:b] for a, b in spans}) if spans else []
    for a, b in spans:
        said = question[a:b].lower()
        objs = by_id(said, written)
        if objs:
            # An evidence id names that one object; an entity id names the entity's objects.
            exact = [e for e in objs if e.evidence_id.lower() == said]
            keep(exact or objs, a, b, "id")
    toks = tokenize(question)
    norms = [t.norm for t in toks]
    for i in range(len(norms)):
        matched = _titles_at(view, norms, i)
        for title, ref, raw in matched:
            end = toks[i + len(title) - 1].end
            if raw is None:  # a document entity's name: its objects
                keep(by_id(ref.lower(), view.by_written_ids({ref})), toks[i].start, end, "name")
            else:
                same = [(eid, t) for words_, eid, t in matched if words_ == title and t is not None]
                # Titles that differ only in marks ("Drink Revenue %", "Drink Revenue"): the one written as is.
                said = [(eid, t) for eid, t in same if t.lower() in question.lower()]
                longest = max((len(t) for _, t in said), default=0)
                same = [(eid, t) for eid, t in said if len(t) == longest] or same
                keep(view.by_ids([eid for eid, _ in same]), toks[i].start, end, "title")
    found.sort(key=lambda r: (-(r.end - r.start), r.start, BY_ORDER[r.by], r.entity_id))
    out: list[Reference] = []
    for r in found:
        if not any(o.start < r.end and r.start < o.end for o in out):
            out.append(r)
    return sorted(out, key=lambda r: r.start)


def build_view(view) -> None:
    """Build what the reader keeps per view (its document names, the vocabulary) and the catalog's title index now,
    not on a first question."""
    _per_view(_CATALOG_TITLES, view.store, _catalog_titles)
    _per_view(_DOCUMENT_NAMES, view, _document_names)
    visible_vocabulary(view)
