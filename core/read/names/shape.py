"""A model described by its shape instead of named (issue 46 item 7): its grain ("the table with one row per
booking", "which model has a row for each invoice line?") or what it joins ("the model that joins orders to
customers", "the table joining shipments with carriers").

The question's words say the shape; the catalog says each visible model's: its grain is what its description says
it has one row per ("One row per confirmed booking"), its declared grain or primary key, or the column its unique
test keys on (booking_id); what it joins is its direct parents in lineage, named as the question names them (the
words "supplier orders" are all in stg_supplier_orders). One model of that shape is the answer; several are asked
back, never one picked; none, when the question names tables the role can see and no visible model joins them, is
not found (a hidden model that joins them reads as one never written).

Only the role's view is read: its models, their descriptions, tests and the lineage edges it may see.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from core.catalog.text import STOPWORDS, words
from core.read.intents.described import _stem, entity_words

_TABLE = r"(?:models?|tables?|views?|marts?|datasets?|relations?)"
TABLE_WORD = re.compile(rf"\b{_TABLE}\b", re.I)
_END = r"(?=\s*(?:$|[?.,;!)]|\b(?:and\s+(?:is|was|has|what|who|when|how)|that|which|who|where|in|from|by|on|at|"\
       r"for|using|with\s+(?:its|their|the\s+\w+\s+column))\b))"
# "one row per booking", "a row for each invoice line", "a single record per guest", "one line per order item"
GRAIN = re.compile(r"\b(?:one|a|single|1)\s+(?:single\s+)?(?:rows?|records?|lines?|entr(?:y|ies))\s+"
                   r"(?:per|for\s+(?:each|every)|for\s+one|each)\s+(?:single\s+)?(?P<what>[a-z][a-z0-9 _-]*?)" + _END,
                   re.I)
# "joins orders to customers", "joining supplier orders with suppliers", "combines refunds and payments",
# "orders joined with customers"
_JOIN_VERB = r"(?:join(?:s|ing)?|combin(?:es|ing)|merg(?:es|ing)|bring(?:s|ing)?\s+together|match(?:es|ing))"
JOIN = re.compile(rf"\b{_JOIN_VERB}\s+(?:the\s+)?(?P<a>[a-z][a-z0-9 _-]*?)\s+(?:to|with|and|onto|against)\s+"
                  rf"(?:the\s+)?(?P<b>[a-z][a-z0-9 _-]*?)" + _END, re.I)
JOINED = re.compile(r"\b(?P<a>[a-z][a-z0-9_-]*(?:\s+[a-z][a-z0-9_-]*)?)\s+(?:joined|combined|merged|matched)\s+"
                    r"(?:to|with|onto|against)\s+(?:the\s+)?(?P<b>[a-z][a-z0-9 _-]*?)" + _END, re.I)
# Words that say how a table is put or which layer it is in, never what it holds.
_LAYER = {"stg", "int", "fct", "dim", "rpt", "mart", "base", "raw", "src", "agg", "obt", "fact", "staging",
          "intermediate", "table", "model", "view", "data", "source", "record", "row"}


def _said(text: str) -> list[str]:
    return [w for w in words(re.sub(r"[_.-]+", " ", text)) if w not in STOPWORDS and w not in _LAYER]


@dataclass
class Shape:
    kind: str  # "grain" | "join"
    said: tuple[tuple[str, ...], ...]  # the grain's words, or the two joined things' words
    span: tuple[int, int]  # characters of the question that say it


def shape_asked(question: str) -> Shape | None:
    """The shape a question describes a table by, or None. A join needs a table word ("the model that joins...");
    "one row per" is said of nothing but a table."""
    m = GRAIN.search(question)
    if m and _said(m["what"]):
        return Shape("grain", (tuple(_said(m["what"])),), m.span())
    if not TABLE_WORD.search(question):
        return None
    for rx in (JOIN, JOINED):
        m = rx.search(question)
        if m and _said(m["a"]) and _said(m["b"]):
            return Shape("join", (tuple(_said(m["a"])), tuple(_said(m["b"]))), m.span())
    return None


def _grains(ev) -> list[tuple[str, ...]]:
    """What a model says it has one row per: its declared grain, its description's "one row per ...", its primary
    key or the column its unique test keys on (booking_id: a booking)."""
    out = []
    spec = ev.model
    text = ev.description or ev.text or ""
    for m in GRAIN.finditer(text):
        out.append(tuple(_said(m["what"])))
    if spec is not None:
        if spec.grain:
            out.append(tuple(_said(spec.grain)))
        keys = list(spec.primary_key) if len(spec.primary_key) == 1 else []
        keys += [t.column for t in spec.tests if t.name in ("unique", "dbt_utils.unique_combination_of_columns")
                 and t.column and len(t.models) <= 1]
        for key in keys:
            said = _said(re.sub(r"(?:_id|_key|_pk|_sk|id)$", "", key))
            if said:
                out.append(tuple(said))
    return [g for g in out if g]


def _fits_grain(asked: tuple[str, ...], grain: tuple[str, ...]) -> bool:
    # "one row per booking" fits "one row per confirmed booking": the same head noun, every asked word said.
    return bool(grain) and asked[-1] == grain[-1] and set(asked) <= set(grain)


def _names(ent) -> list[set[str]]:
    return [{w for w in n if w not in _LAYER} for n in ent.names]


def _named_by(said: tuple[str, ...], ent) -> bool:
    return any(set(said) <= n for n in _names(ent) if n)


def shaped_models(shape: Shape, view) -> tuple[list[str], bool]:
    """The visible models of that shape, and whether the question's words name visible tables at all (a join of
    two things the role's tables are not called is no shape this catalog can check)."""
    entities = view.entities
    models = {ev.entity_id: ev for ev in view.of_kinds(["model"])
              if ev.entity_id in entities and entities[ev.entity_id].role == "model"
              and not ev.entity_id.startswith("exposure.") and not (ev.model and ev.model.enabled is False)}
    if shape.kind == "grain":
        asked = shape.said[0]
        return sorted(e for e, ev in models.items() if any(_fits_grain(asked, g) for g in _grains(ev))), True
    tables = {e: ent for e, ent in entities.items() if ent.role in ("model", "source") and ent.is_topic}
    a, b = shape.said
    if not any(_named_by(a, t) for t in tables.values()) or not any(_named_by(b, t) for t in tables.values()):
        return [], False
    # Each model's direct parents the role may see, in one read of the edges into the models.
    node_of = {ev.evidence_id: e for e, ev in models.items()}
    parents: dict[str, set[str]] = {}
    edges = view.edges_into(list(node_of))
    ups = {e.upstream for e in edges}
    owner = {ev.evidence_id: ev.entity_id for ev in view.by_ids(sorted(ups))}
    for edge in edges:
        up = owner.get(edge.upstream)
        if up in tables and edge.downstream in node_of:
            parents.setdefault(node_of[edge.downstream], set()).add(up)
    found = []
    for model, ups_ in parents.items():
        fits_a = {p for p in ups_ if _named_by(a, tables[p])}
        fits_b = {p for p in ups_ if _named_by(b, tables[p])}
        if fits_a and fits_b and (len(fits_a | fits_b) >= 2):
            found.append(model)
    # A name that holds both things' words says it joins them (int_invoices_joined_refunds), unless one thing's words
    # hold the other's ("supplier orders" and "suppliers": stg_supplier_orders is one of the two, not their join).
    def for_both(e: str) -> bool:
        return not (set(a) <= set(b) or set(b) <= set(a)) and _named_by(a, tables[e]) and _named_by(b, tables[e])
    # The join is where the two things first meet: a model reading a model that already joins them (or one named
    # for both) is downstream of the join, not it.
    found = [m for m in found if not any(p in found or for_both(p) for p in parents[m])]
    # Of several models that join them, the one its authors named for both is the join they wrote.
    named = [m for m in found if for_both(m)]
    found = named if len(named) == 1 else found
    if not found:
        # Joined further up (through an intermediate model), or lineage not recorded: a model whose own words
        # (description, columns) hold both things, and which is not itself one of them (stg_credit_notes
        # mentions invoices but joins nothing).
        found = [e for e in models if {_stem(w) for w in (*a, *b)} <= entity_words(view, e)
                 and not _named_by(a, entities[e]) and not _named_by(b, entities[e])]
    return sorted(found), True
