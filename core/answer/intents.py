"""Dispatch for questions the catalog answers without a definition: discover, compare, owner, downstream,
document and upcoming. `core/read/intent.py` reads the kind from the text; each kind's logic is its own module.

A handler gets the run (the role's view, the intent, the dates) and `pick`, the ordinary entity choice, and
returns an envelope, or None to let the ordinary definition flow answer. A request to step outside policy is
never routed here: the ordinary flow refuses it.
"""
from __future__ import annotations

import re
from typing import Callable

from core.catalog.envelope import Envelope
from core.read.intent import LINEAGE_ASKED, MODEL_ASKED, meaning_asked

Pick = Callable  # run -> (Entity, matches, tokens) | Envelope


def before_when(run, pick: Pick) -> Envelope | None:
    """Intents that read dates their own way (compare: two dates or two versions; a reviewer's question about
    the review queue, which is today's). Whether the queue or the definition flow answers a question about the
    queue's kinds is one rule, `review.queue_answers`: a question whether anything disagrees with a metric the role
    can see, however worded, is that metric's definition question (yes or no, then what governs)."""
    if run.intent.overrides or any(m.kind == "invalid" for m in run.intent.dates):
        return None  # a date naming no day is asked back first (core/read/when.py), whoever reads dates next
    from core.answer import catalog_changes
    if catalog_changes.asked(run):  # "which metrics changed in 2025?": the catalog's changes, no one subject's
        return catalog_changes.answer(run)
    from core.answer import review
    if review.queue_answers(run):
        return review.answer(run)
    if run.intent.kind != "compare" and not _owner_and_change(run):
        return None
    from core.answer import compare
    return compare.answer(run, pick)


# Whether the subject changed, asked of the past in so many words: "when did it change", "how has its definition
# changed", "has it been redefined", "what's new in it", "its history". Never "when will it change" (upcoming) nor
# "last updated" (a load, which the definition flow's freshness answers).
CHANGE_ASKED = re.compile(
    r"\b(?:when|how|whether|if)\s+(?:did|has|have|had|was|were)\b[^,;?.]{0,60}?\b(?:chang(?:e|ed)|redefined|revised)\b|"
    r"\b(?:has|have|had|did|was|were)\b[^,;?.]{1,60}?\b(?:chang(?:e|ed)|redefined|revised)\b|"
    r"\bwhat(?:'s|\s+is|\s+has|\s+was)?\s+(?:changed|new|different)\b|\bhistory\b|\bover time\b", re.I)


def _asks_more(run, text: str) -> bool:
    """Whether an owner question also asks what only the definition flow answers: freshness, what reads it, where it
    comes from, which model backs it, what it is."""
    return bool("freshness_status" in run.intent.aspects or "downstream" in run.intent.aspects
                or LINEAGE_ASKED.search(text) or MODEL_ASKED.search(text) or meaning_asked(text))


def _owner_and_change(run) -> bool:
    """"who owns churn and when did its definition change?": the owner and how it changed, both answered by the
    comparison, which leads with the owner. The words asking about the change ("its definition") ask no meaning; a
    question that asks more besides ("what is it, who owns it and when did it change?") is the definition flow's."""
    text = run.q.text
    return (run.intent.kind == "owner" and bool(CHANGE_ASKED.search(text))
            and not _asks_more(run, CHANGE_ASKED.sub(" ", text)))


def after_when(run, pick: Pick) -> Envelope | None:
    if run.intent.overrides:
        return None
    from core.answer import access_list
    if access_list.asks_access(run.q.text):  # "who can see X?": X's access list, whatever else the words read as
        return access_list.answer(run, pick)
    if not run.intent.kind:
        return None
    kind = run.intent.kind
    if kind == "discover":
        from core.answer import discover
        return discover.answer(run)
    if kind == "owner":
        if _asks_more(run, run.q.text):
            # "where does it come from, and who owns it?", "which model feeds it and who owns it?", "what is it and who
            # owns it?", "who owns it and what uses it?": the definition flow answers both (its verdict names the owner
            # when asked, and the definition, backing model, lineage, freshness and what reads it); the owner's answer
            # alone would drop the other part unsaid.
            return None
        from core.answer import ownership
        return ownership.answer(run, pick)
    if kind == "downstream":
        if "upstream" in run.intent.aspects:
            # "which raw tables feed it and what uses it?": both halves, in the definition flow, which lists what reads
            # it beside its own lineage as it names the owner beside its definition.
            return None
        from core.answer import downstream
        return downstream.answer(run, pick)
    if kind == "document":
        from core.answer import documents
        return documents.answer(run)
    if kind in ("tests", "columns"):
        from core.answer import table_facts
        return table_facts.answer(run, pick)
    if kind == "upcoming":
        from core.resolve import upcoming
        return upcoming.prepare(run)
    return None
