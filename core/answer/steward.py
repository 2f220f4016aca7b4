"""A steward's questions: answered over the steward role's own objects plus the objects of its review queue,
and nothing else.

The queue objects are granted to the steward's view by evidence id (`Question.grants`, read through the one
ACL predicate in core/catalog/store.py), so every intent (definition, downstream, compare, discover, owner, document,
upcoming, lineage, freshness) sees exactly them beside the role's own objects: a finance-only metric that
reads a queued metric, a memo linked to it or a lineage edge around it stays as invisible to the steward as
to any role that may not see it. The answer stays the steward's own (its role, in the audit log too), and
says "steward view" when it shows anything the role's ACL leaves out (core/answer/ask.py writes that note, so a replay
reproduces it). A queued version governs an answer only on a date it is in effect, never in place of the version
in effect today (the resolver's rule, core/resolve/versions.py `held_for_review`).

This is the one place the rule lives: the Ask page, `python -m core ask`, the MCP tools and the other pages build
the steward's view through `steward_view` / `ask_as_steward`, and date its queue with `queue_day`, so all of them
widen the same way on the same day.
"""
from __future__ import annotations

from dataclasses import replace
from datetime import date, datetime

from core.answer.ask import STEWARD_VIEW, Question, ask
from core.answer.intents.review import StewardScope, steward_scope
from core.catalog.access import visible
from core.catalog.envelope import Envelope
from core.catalog.store import Store
from core.compute.engine import ValueEngine
from core.retrieve.search import Searcher


def queue_day(store: Store) -> date:
    """The day a steward's review queue is built for, on every surface: the catalog's own clock when it names one
    (the demo's), else the real one. A queue item that expires between the two days would otherwise grant a
    steward an object in the app that the CLI or an MCP client refuses, or the reverse."""
    return store.now().date()


def scope_today(store: Store, role: str) -> StewardScope | None:
    """`role`'s review scope as of `queue_day` (None for a role that is not a steward)."""
    return steward_scope(store, role, queue_day(store))


def grants(scope: StewardScope | None) -> frozenset[str]:
    """The evidence ids a steward's view reads beyond its ACL (none for any other role)."""
    return frozenset(scope.evidence_ids) if scope is not None else frozenset()


def steward_view(store: Store, role: str, scope: StewardScope | None):
    """The role's view, widened by its review queue when it is a steward (every page browses through it)."""
    return visible(store, role, grants(scope))


def ask_as_steward(store: Store, q: Question, scope: StewardScope | None, searcher: Searcher | None = None,
                   llm: tuple[str, float] | None = None, now: datetime | None = None,
                   engine: ValueEngine | None = None) -> tuple[Envelope, bool]:
    """(envelope, whether it shows queue objects beyond the role's ACL). For a non-steward (scope None)
    exactly `ask`. A widened answer says "Steward view" in its notes (core/answer/ask.py), so every renderer shows it."""
    env = ask(store, replace(q, grants=grants(scope)), now=now, searcher=searcher, llm=llm, engine=engine)
    return env, any(n.startswith(STEWARD_VIEW) for n in env.notes)


def steward_answer(store: Store, q: Question, searcher: Searcher | None = None, today: date | None = None,
                   llm: tuple[str, float] | None = None, now: datetime | None = None,
                   engine: ValueEngine | None = None) -> tuple[Envelope, bool]:
    """`ask`, widened to the review queue for a steward role as above; for any other role exactly `ask`.
    `today` fixes the review queue (default: `queue_day`, as every page builds it)."""
    scope = steward_scope(store, q.role, today) if today else scope_today(store, q.role)
    return ask_as_steward(store, q, scope, searcher, llm, now, engine)
