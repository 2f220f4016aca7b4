"""The catalog's own changes, asked of no one subject: "which metrics changed definition in 2025?", "what changes are
coming?", "what changed since last month?", "any definitions redefined last quarter?". Read from the question's words
alone: whether it asks, whether it asks what is still to come, and whether its date opens a span ("since ...").
Which versions those are is core/answer/intents/catalog_changes.py's."""
from __future__ import annotations

import re
from dataclasses import dataclass

_WHAT = r"(?:metrics?|kpis?|measures?|models?|sources?|tables?|definitions?|objects?|things?)"
_CHANGED = r"(?:changed|been\s+(?:changed|redefined|revised|updated)|redefined|revised|got\s+(?:a\s+)?new\s+versions?)"
ASKED = re.compile(
    # one kind noun or two: "which metrics changed", "what metric definitions changed", "which source tables changed"
    r"\b(?:which|what|any)\s+(?:of\s+(?:the|our|my)\s+)?(?:" + _WHAT + r"\s+){0,2}(?:(?:have|has|were|was|got)\s+)?"
    + _CHANGED + r"|"
    r"\bwhat(?:'s|\s+has|\s+have)\s+changed\b|"
    r"\b(?:what|which|any)\s+(?:\w+\s+)?changes?\s+(?:are|is)\s+(?:there\s+)?(?:coming|planned|upcoming|ahead|pending|"
    r"scheduled)|"
    r"\b(?:what|which|any)\s+(?:\w+\s+)?(?:upcoming|planned|coming|pending|scheduled)\s+(?:definition\s+)?changes\b|"
    r"\bwhat(?:'s|\s+is)\s+(?:coming|about\s+to\s+change|changing)\b|"
    r"\b(?:which|what|any)\s+(?:" + _WHAT + r"\s+){1,2}(?:will|are\s+(?:going|about)\s+to)\s+change\b", re.I)
_POINTS_BACK = re.compile(r"\b(?:it|its|them|they|these|those|both|the\s+two)\b", re.I)
COMING = re.compile(r"\b(?:coming|upcoming|planned|pending|scheduled|ahead|about to|will|going to|changing)\b", re.I)
SINCE = re.compile(r"\b(?:since|after|from)\s*$", re.I)
# The kind the question lists: "which metrics changed", "what models changed"; none named: every definition.
KIND = re.compile(r"\b(metric|kpi|measure|model|source|table)s?\b", re.I)
_KINDS = {"metric": "metric", "kpi": "metric", "measure": "metric", "model": "model", "source": "source",
          "table": "source"}


@dataclass(frozen=True)
class ChangesAsked:
    span: tuple[int, int]  # the asking words (not a subject's name)
    coming: bool  # what is still to come, after the clock's day
    kind: str | None  # metric | model | source; None: every kind of definition
    since: bool  # the question's date opens a span running to the clock's day: "since last month", "after Q1 2025"


def changes_asked(question: str, date_starts: list[int] = ()) -> ChangesAsked | None:
    """Whether the question asks what changed (or is to change) in the catalog, not in one named subject; which
    subject it names, if any, is decided over the role's view (core/answer/intents/catalog_changes.py). `date_starts`: where
    the dates written in it start."""
    m = ASKED.search(question)
    if m is None or _POINTS_BACK.search(question):  # "what changed between them?" follows an answer, not the catalog
        return None
    kind = KIND.search(m.group(0))
    return ChangesAsked(span=m.span(), coming=bool(COMING.search(m.group(0))),
                        kind=_KINDS[kind.group(1).lower()] if kind else None,
                        since=any(SINCE.search(question[:s]) for s in date_starts))
