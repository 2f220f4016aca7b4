"""Dispatch for questions the catalog answers without a definition: discover, compare, owner, downstream,
document and upcoming. `core/intent.py` reads the kind from the text; each kind's logic is its own module.

A handler gets the run (the role's view, the intent, the dates) and `pick`, the ordinary entity choice, and
returns an envelope, or None to let the ordinary definition flow answer. A request to step outside policy is
never routed here: the ordinary flow refuses it.
"""
from __future__ import annotations

from datetime import date, timedelta
from typing import Callable

from .envelope import Envelope
from .text import STOPWORDS, in_spans, tokenize

# Words that say what is asked, not what it is about.
ASKING_WORDS = {w for w in (
    "list show see view can could may might would please tell give me my we us our i you all every any each "
    "available visible defined exist exists there here catalog access have has about related regarding around "
    "concerning topic on for with what which who whose how do does did is are was were the a an of in to "
    "enumerate find display know want need let lookup look up say says said state states mention mentions "
    "summarize summarise summary quote open read cover covers propose proposes tell tells track tracks tracked "
    "report reports publish publishes maintain maintains own owns").split()}


def content_words(text: str, spans: list[tuple[int, int]] = (), drop: set[str] = frozenset()) -> list[str]:
    """The question's own words (normalized), minus stop words, asking words, `drop` and `spans` (dates)."""
    out = []
    excluded = in_spans(spans)
    for t in tokenize(text):
        if excluded(t.start):
            continue
        if t.norm in STOPWORDS or t.norm in ASKING_WORDS or t.norm in drop or len(t.norm) < 2:
            continue
        out.append(t.norm)
    return list(dict.fromkeys(out))


def entity_on_day(run, pick):
    """What an intent about one entity reads: the entity `pick` chooses (or its clarification/not-found
    envelope), the day it is read on, its objects retrievable that day and their governing versions."""
    picked = pick(run)
    if isinstance(picked, Envelope):
        return picked
    primary = picked[0]
    day = as_of(run)
    from .resolve import governing_versions, retrievable
    objs = [e for e in run.view.entity_objects(primary.entity_id) if retrievable(e, day)]
    return primary, day, objs, governing_versions(objs, primary.role)


def as_of(run) -> date:
    """The day an intent reads the catalog on: the reporting date, the period's last day, else today."""
    if run.day:
        return run.day
    if run.period:
        return run.period[1] - timedelta(days=1)
    return run.at.date()


def not_found(run) -> Envelope:
    from .ask import NOT_FOUND
    from .envelope import Behavior
    return run.envelope(Behavior.not_found_or_not_authorized, NOT_FOUND)


Pick = Callable  # run -> (Entity, matches, tokens) | Envelope


def before_when(run, pick: Pick) -> Envelope | None:
    """Intents that read dates their own way (compare: two dates or two versions)."""
    if run.intent.overrides or run.intent.kind != "compare":
        return None
    from . import compare
    return compare.answer(run, pick)


def after_when(run, pick: Pick) -> Envelope | None:
    if run.intent.overrides or not run.intent.kind:
        return None
    kind = run.intent.kind
    if kind == "discover":
        from . import discover
        return discover.answer(run)
    if kind == "owner":
        from . import ownership
        return ownership.answer(run, pick)
    if kind == "downstream":
        from . import downstream
        return downstream.answer(run, pick)
    if kind == "document":
        from . import documents
        return documents.answer(run)
    if kind == "upcoming":
        from . import upcoming
        return upcoming.prepare(run)
    return None
