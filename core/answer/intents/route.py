"""Dispatch for questions the catalog answers without a definition: discover, compare, owner, downstream,
document and upcoming. `core/read/intents/intent.py` reads the kind from the text; each kind's logic is its own module.

A handler gets the run (the role's view, the intent, the dates) and `pick`, the ordinary entity choice, and
returns an envelope, or None to let the ordinary definition flow answer. A request to step outside policy is
never routed here: the ordinary flow refuses it.
"""
from __future__ import annotations

from typing import Callable

from core.catalog.envelope import Envelope

Pick = Callable  # run -> (Entity, matches, tokens) | Envelope


def before_when(run, pick: Pick) -> Envelope | None:
    """Intents that read dates their own way (compare: two dates or two versions; a reviewer's question about
    the review queue, which is today's). Whether the queue or the definition flow answers a question about the
    queue's kinds is one rule, `review.queue_answers`: a question whether anything disagrees with a metric the role
    can see, however worded, is that metric's definition question (yes or no, then what governs)."""
    if run.intent.overrides or any(m.kind == "invalid" for m in run.intent.dates):
        return None  # a date naming no day is asked back first (core/read/dates/when.py), whoever reads dates next
    from core.answer.intents import catalog_changes
    if catalog_changes.asked(run):  # "which metrics changed in 2025?": the catalog's changes, no one subject's
        return catalog_changes.answer(run)
    from core.answer.intents import review
    if review.queue_answers(run):
        return review.answer(run)
    if run.intent.kind != "compare" and not _owner_and_change(run):
        return None
    from core.answer.intents import compare
    return compare.answer(run, pick)


def _asks_more(run, beside_change: bool = False) -> bool:
    """Whether an owner question also asks what only the definition flow answers: freshness, what reads it, where it
    comes from, which model backs it, what it is."""
    asked = run.reading.asks_beyond_owner_and_change if beside_change else run.reading.asks_beyond_owner
    return bool("freshness_status" in run.intent.aspects or "downstream" in run.intent.aspects or asked)


def _owner_and_change(run) -> bool:
    """"who owns churn and when did its definition change?": the owner and how it changed, both answered by the
    comparison, which leads with the owner. The words asking about the change ("its definition") ask no meaning; a
    question that asks more besides ("what is it, who owns it and when did it change?") is the definition flow's."""
    return run.intent.kind == "owner" and run.reading.asks_change and not _asks_more(run, beside_change=True)


def after_when(run, pick: Pick) -> Envelope | None:
    if run.intent.overrides:
        return None
    from core.answer.intents import access_list
    if run.reading.asks_access:  # "who can see X?": X's access list, whatever else the words read as
        return access_list.answer(run, pick)
    if not run.intent.kind:
        return None
    kind = run.intent.kind
    if kind == "discover":
        from core.answer.intents import discover
        return discover.answer(run)
    if kind == "owner":
        if _asks_more(run):
            # "where does it come from, and who owns it?", "which model feeds it and who owns it?", "what is it and who
            # owns it?", "who owns it and what uses it?": the definition flow answers both (its verdict names the owner
            # when asked, and the definition, backing model, lineage, freshness and what reads it); the owner's answer
            # alone would drop the other part unsaid.
            return None
        from core.answer.intents import ownership
        return ownership.answer(run, pick)
    if kind == "downstream":
        if "upstream" in run.intent.aspects:
            # "which raw tables feed it and what uses it?": both halves, in the definition flow, which lists what reads
            # it beside its own lineage as it names the owner beside its definition.
            return None
        from core.answer.intents import downstream
        return downstream.answer(run, pick)
    if kind == "document":
        from core.answer.intents import documents
        return documents.answer(run)
    if kind in ("column_meaning", "column_find"):
        from core.answer.intents import column_facts
        return column_facts.answer(run, pick)
    if kind in ("tests", "columns", "test_results", "last_run", "properties"):
        from core.answer.intents import table_facts
        return table_facts.answer(run, pick)
    if kind == "upcoming":
        from core.resolve import upcoming
        return upcoming.prepare(run)
    return None
