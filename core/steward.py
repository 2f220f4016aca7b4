"""A steward's questions: answered for its own role first, then, for an object in its review queue that
the steward may not see, as that object's widest audience sees it (read-only, marked "steward view").

Nothing outside the queue widens: an answer found as another role is kept only when it is about an
entity of the queue; otherwise the steward's own answer (usually "not found") stands.

This is the one place the rule lives: the Ask page and `python -m core ask` both answer through
`steward_answer` (or `ask_as_steward` with a scope they cache), so both say "steward view" the same way.
"""
from __future__ import annotations

import re
from dataclasses import replace
from datetime import date

from pydantic import BaseModel

from .ask import Question, ask
from .envelope import Behavior, Envelope
from .review import StewardScope, steward_scope
from .search import Searcher
from .store import Store

STEWARD_NOTE = "Steward view (read-only): answered as role {role} sees it, because it is in your review queue"
# When no role's answer is about a queue object but the question names one (an empty ACL: nobody may ask).
QUEUE_NOTE = ("Steward view (read-only): nothing your own role may see matches; {title} from your review queue "
              "does, shown {how}")


class QueueMatch(BaseModel):
    """A review-queue object a steward's question names, and how the steward reads it."""
    evidence_id: str
    title: str
    audience: str | None  # the role it is read as; None when nobody may see it (shown as recorded)

    @property
    def how(self) -> str:
        return f"as role {self.audience} sees it" if self.audience else "as recorded: its ACL is empty, so nobody may see it"


def ask_as_steward(store: Store, q: Question, scope: StewardScope | None, searcher: Searcher | None = None,
                   entity: str | None = None, llm: tuple[str, float] | None = None) -> tuple[Envelope, str | None]:
    """(envelope, audience role or None when answered as the steward itself). `entity`: the entity of
    the queue item being opened, which fixes the role to answer as. A widened answer carries
    STEWARD_NOTE in its notes, so every renderer (status line, terminal text, JSON) shows it."""
    return _widened(store, q, ask(store, q, searcher=searcher, llm=llm), scope, searcher, entity, llm)


def _widened(store: Store, q: Question, own: Envelope, scope: StewardScope | None, searcher: Searcher | None,
             entity: str | None, llm: tuple[str, float] | None) -> tuple[Envelope, str | None]:
    if scope is None or own.behavior is not Behavior.not_found_or_not_authorized:
        return own, None
    if entity is not None:
        roles = [scope.audiences.get(entity)]
    else:
        roles = list(dict.fromkeys(r for r in scope.audiences.values() if r))
    for role in roles:
        if not role:
            continue
        env = ask(store, replace(q, role=role), searcher=searcher, llm=llm)
        if env.entity_id in scope.audiences and scope.audiences[env.entity_id] == role:
            env.notes.append(STEWARD_NOTE.format(role=role))
            return env, role
    # No role's answer is about the queue, yet the question may name a queue object outright (say a
    # document nobody may see): the steward's own answer stands, and says which queue object matches.
    own.notes.extend(QUEUE_NOTE.format(title=m.title, how=m.how) for m in matching_queue_items(store, scope, q.text))
    return own, None


def steward_answer(store: Store, q: Question, searcher: Searcher | None = None, today: date | None = None,
                   llm: tuple[str, float] | None = None) -> tuple[Envelope, str | None]:
    """`ask`, widened for a steward role as above; for any other role exactly `ask`. `today` fixes the
    review queue (default: today, as the Governance review page builds it)."""
    own = ask(store, q, searcher=searcher, llm=llm)
    if own.behavior is not Behavior.not_found_or_not_authorized:
        return own, None  # the review queue is built only when it could widen anything
    return _widened(store, q, own, steward_scope(store, q.role, today or date.today()), searcher, None, llm)


_WORD = re.compile(r"[a-z0-9]+")
MAX_MATCHES = 3


def matching_queue_items(store: Store, scope: StewardScope | None, text: str) -> list[QueueMatch]:
    """The queue objects a steward's question names (at most MAX_MATCHES), each with the role it is read as."""
    if scope is None:
        return []
    return [QueueMatch(evidence_id=o.evidence_id, title=o.title, audience=scope.audiences.get(o.entity_id))
            for o in queue_matches(scope.objects(store), text)[:MAX_MATCHES]]


def queue_headline(matches: list[QueueMatch]) -> str:
    """The Ask page's headline when a steward's own view has nothing but its queue does (not "nothing
    matches" above the very object that matches)."""
    first = matches[0].title
    more = f" and {len(matches) - 1} more" if len(matches) > 1 else ""
    return f"In your review queue (read-only): {first}{more}"


def queue_matches(objects: list, text: str) -> list:
    """Queue objects a steward's question names, for the case nobody may ask about them (an empty ACL):
    at least two words of the object's title (or its whole entity name) appear in the question. Only
    objects of the queue are ever offered, so nothing outside it widens."""
    asked = set(_WORD.findall(text.lower()))
    out = []
    for o in objects:
        title = {w for w in _WORD.findall(o.title.lower()) if len(w) >= 3}
        name = set(_WORD.findall(o.entity_id.split(".", 1)[-1].lower()))
        if len(title & asked) >= 2 or (name and name <= asked):
            out.append(o)
    return out
