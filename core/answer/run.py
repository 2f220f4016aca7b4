"""What every intent reads from a question's run (core/answer/ask.py): the entity on the day it reads the catalog
on, that day, and the not-found answer. Intent modules import these, never the dispatcher."""
from __future__ import annotations

from datetime import date, timedelta

from core.catalog.envelope import NOT_FOUND, Behavior, Envelope


def entity_on_day(run, pick):
    """What an intent about one entity reads: the entity `pick` chooses (or its clarification/not-found
    envelope), the day it is read on, its objects retrievable that day and their governing versions."""
    picked = pick(run)
    if isinstance(picked, Envelope):
        return picked
    primary = picked[0]
    day = as_of(run)
    from core.resolve.versions import governing_versions, retrievable
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
    return run.envelope(Behavior.not_found_or_not_authorized, NOT_FOUND)
