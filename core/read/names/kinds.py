"""What kind of thing the question asks for: a kind word ("the orders model", "source", "staging"), a ratio
word beside a name ("%", "share of"), a column of the model, a relation ("the model behind X") fits a
candidate's kind (+1) or contradicts it (-1); a name several kinds share goes to the kind its question asks of
(a table's make-up is a model's, a load is a source's)."""
from __future__ import annotations

import re

from core.catalog.entities import Entity
from core.catalog.text import Token, normalize
from core.read.names.asking import CLAIM, KIND_WORDS
from core.read.names.candidate import Candidate

WAREHOUSE_TABLE = re.compile(r"^\s*(?:table|relation|view)\s+in\s+(?:the\s+)?(?:warehouse|dwh|db|database)\b", re.I)
RATIO_AFTER = re.compile(r"^\s*(?:%|pct\b|percent(?:age)?\b|share\b|ratio\b)", re.I)
RATIO_BEFORE = re.compile(r"(?:%|\bpct|\bpercent(?:age)?|\bshare|\bratio)(?:\s+of)?\s*$", re.I)
# "what share of revenue is drink revenue": the ratio word opens the clause whose subject is the name.
RATIO_CLAUSE = re.compile(r"(?:%|\bpct|\bpercent(?:age)?|\bshare|\bratio)\s+of\b[^?.,;]*\b(?:is|are)\s+(?:the\s+)?$", re.I)


RATIO_ID = re.compile(r"(_pct|_percent|_ratio|_share|_rate)$")
SHARE_ID = re.compile(r"(_pct|_percent|_ratio|_share)$")
# "the model for X", "the source of X", "the table behind X", "which model feeds X": X is what the question is about.
# Matched against normalized words, so the verbs are folded as the question's are ("feeds" reads "feed").
RELATION = {normalize(w) for w in "for of behind backing feeding feeds backs builds implements powers powering "
            "produces computes drives under underlying underlies".split()}


# What the question asks of a name several kinds share (a model, a source and a seed all called raw_orders; a
# metric and a model both called orders): a table's make-up is a model's, a load is a source's.
# "computed from orders", "based on orders": what a metric is made from is a table, not the metric of that name.
ASKS_MODEL = re.compile(r"\b(?:columns?|fields?|grain|granularity|one row per|rows?|built (?:from|on)|made from|"
                        r"(?:computed|calculated|derived|sourced|aggregated) from|based on|tests?|tested|schema|"
                        r"select(?:ed)? from|query|queried|materiali[sz]\w*|sql|joins?|models?|tables?|views?|"
                        r"(?:last|latest)\s+(?:dbt\s+)?(?:run|build)|ran|built|rebuilt|incremental|tags?|tagged)\b",
                        re.I)
ASKS_SOURCE = re.compile(r"\b(?:loaded|load(?:s|ing)?|fresh\w*|stale|arriv\w*|ingest\w*|landed|synced|extracted|"
                         r"raw)\b", re.I)
# What only a metric is asked: its meaning, formula or value ("what does X mean?", "how is X calculated?", "X last
# quarter", "how many X"). "the X metric" is a kind word beside the name (kind_fit).
ASKS_METRIC = re.compile(r"\b(?:mean|means|meaning|meant|defin\w*|formula|calculat\w*|comput\w*|metrics?|kpis?|"
                         r"measures?)\b", re.I)


def _kind_of(ent: Entity) -> str:
    return "document" if ent.role in ("document", "lineage") else ent.role


def kind_fit(question: str, toks: list[Token], cand: Candidate, ent: Entity, columns: set[str]) -> float:
    """+1 when a kind word next to the name fits the entity, -1 when it names another kind."""
    if cand.span is None:
        return 0.0
    i, j = cand.span
    norms = [t.norm for t in toks]
    before = norms[max(0, i - 3):i]
    if before[-1:] == ["the"]:
        before = before[:-1]
    relation = None
    if len(before) >= 2 and before[-1] in RELATION:
        # "is fct_orders the model for net revenue": the kind word names what the question asks of the
        # name after "for", which is the subject, not a thing of that kind.
        relation = next((kind for kind, words in KIND_WORDS.items() if before[-2] in words), None)
    # "the handbook says revenue ...": a kind word before a verb of saying is the speaker, not the name's kind.
    said = i > 0 and CLAIM.fullmatch(question[toks[i - 1].start:toks[i - 1].end]) is not None
    # "what feeds the subscriptions metric": before a name, "feed" is a verb, not the kind "source feed".
    near = (set() if relation or said else set(norms[max(0, i - 2):i]) - {"feed", "ingest"}) | set(norms[j:j + 2])
    asked = {kind for kind, words in KIND_WORDS.items() if near & words}
    end_char = toks[j - 1].end
    start_char = toks[i].start
    if WAREHOUSE_TABLE.match(question[end_char:]):
        asked.add("model")
    if "model" in asked and "source" in asked:
        asked.discard("source")  # "the raw orders model" is a model
    kind = _kind_of(ent)
    fit = 0.0
    if asked:
        fit = 1.0 if kind in asked else -1.0
    elif relation and kind != relation:
        fit = 1.0
    ratio_asked = bool(RATIO_AFTER.match(question[end_char:]) or RATIO_BEFORE.search(question[:start_char])
                       or RATIO_CLAUSE.search(question[:start_char]))
    if ent.role == "metric" and ratio_asked:
        fit += 1.0 if RATIO_ID.search(ent.entity_id) else -1.0
    elif ent.role == "metric" and SHARE_ID.search(ent.entity_id):
        fit -= 1.0  # "food revenue" is the amount; its share is asked for with %, pct, share or ratio
    if "seed" in near and ent.role == "source":
        fit += 1.0 if ent.entity_id.startswith("seed.") else 0.0  # "the raw_orders seed", not the dbt source
    elif "source" in norms[j:j + 2] and ent.role == "source":
        fit += 0.0 if ent.entity_id.startswith("seed.") else 1.0  # "the raw orders source", not the seed
    if {"stg", "staging"} & set(norms[max(0, i - 2):j + 2]):
        fit += 1.0 if any(n[:1] == ("stg",) for n in ent.names) else 0.0
    # A column of the model named in the question ("orders with order_total") points at the model.
    if columns and ent.role == "model" and columns & {n for k, n in enumerate(norms) if not i <= k < j}:
        fit += 1.0
    return fit


def _asks_data_kind(toks: list[Token], cands: list[Candidate]) -> bool:
    """A metric, model or source is asked for next to a name ("the refunds metric"); a document word
    ("the revenue handbook") asks about prose, which is not a kind a candidate can misfit."""
    norms = [t.norm for t in toks]
    data_words = {"metric", "kpi", "measure", "model", "table", "view", "relation", "source", "seed", "dataset"}
    # Only a kind word right next to the name describes it; "the sources behind conversion rate" asks about
    # what feeds the metric.
    return all(c.span and set(norms[max(0, c.span[0] - 1):c.span[0]] + norms[c.span[1]:c.span[1] + 1]) & data_words
               for c in cands)


def _kind_for_same_name(question: str, top: list[Candidate], entities) -> Candidate | None:
    """Objects of different kinds named by the same words ("orders" the metric and the model; raw_orders the
    source and the seed; a model and a source both called fct_enrollments): the question's words say which
    kind is meant (columns, grain, "built from": the model; loaded, fresh: the source, not a seed, which is
    never loaded from a system). With no such word None: the caller asks back which one is meant (issue 46:
    a model no longer wins silently over a source of its name)."""
    if len(top) < 2 or len({c.span for c in top}) != 1:
        return None

    def only(pred) -> Candidate | None:
        found = [c for c in top if pred(entities[c.entity_id])]
        return found[0] if len(found) == 1 else None

    def model(e):
        return e.role == "model" and not e.entity_id.startswith("exposure.")

    def source(e):
        return e.role == "source" and not e.entity_id.startswith("seed.")
    if ASKS_MODEL.search(question):
        return only(model)
    if ASKS_SOURCE.search(question):
        return only(source)
    return None


def same_name_kinds(top: list[Candidate], entities) -> set[str] | None:
    """The kinds of a metric and a table named by the same words (the metric `active_riders` and the model
    `active_riders`), or None when the close candidates are not one name shared by a metric and a model or source."""
    if len(top) < 2 or len({c.span for c in top}) != 1:
        return None
    kinds = {entities[c.entity_id].role for c in top}
    return kinds if "metric" in kinds and kinds & {"model", "source"} else None


def same_name_tables(top: list[Candidate], entities) -> bool:
    """A model and a dbt source named by the same words (the model `fct_bookings` built from the source
    `raw_pms.fct_bookings`): two things, whichever the question means."""
    if len(top) < 2 or len({c.span for c in top}) != 1:
        return False
    ents = [entities[c.entity_id] for c in top]
    return (any(e.role == "model" and not e.entity_id.startswith("exposure.") for e in ents)
            and any(e.role == "source" and not e.entity_id.startswith("seed.") for e in ents))


def metric_asked(question: str, value_asked: bool) -> bool:
    """The question asks what only a metric has: its meaning, formula or a value."""
    return value_asked or bool(ASKS_METRIC.search(question))
