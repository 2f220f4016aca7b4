"""A steward's questions: answered for its own role first, then, for an object in its review queue that
the steward may not see, as that object's widest audience sees it (read-only, marked "steward view").

Nothing outside the queue widens: an answer found as another role is kept only when it is about an
entity of the queue; otherwise the steward's own answer (usually "not found") stands.
"""
from __future__ import annotations

from dataclasses import replace

from .ask import Question, ask
from .envelope import Behavior, Envelope
from .review import StewardScope
from .search import Searcher
from .store import Store


def ask_as_steward(store: Store, q: Question, scope: StewardScope | None, searcher: Searcher | None = None,
                   entity: str | None = None) -> tuple[Envelope, str | None]:
    """(envelope, audience role or None when answered as the steward itself). `entity`: the entity of
    the queue item being opened, which fixes the role to answer as."""
    own = ask(store, q, searcher=searcher)
    if scope is None or own.behavior is not Behavior.not_found_or_not_authorized:
        return own, None
    if entity is not None:
        roles = [scope.audiences.get(entity)]
    else:
        roles = list(dict.fromkeys(r for r in scope.audiences.values() if r))
    for role in roles:
        if not role:
            continue
        env = ask(store, replace(q, role=role), searcher=searcher)
        if env.entity_id in scope.audiences and scope.audiences[env.entity_id] == role:
            return env, role
    return own, None
