"""The review queue as a steward works it: open items with stable ids and the actions each offers, items the
source put back (it contradicts a decision), and closed items with who decided, when and why.

An item's id is its kind and the evidence ids it is about, hashed: the same problem keeps its id across catalog
revisions, surfaces (page, `asof review list`) and processes, and a different problem never shares it.
"""
from __future__ import annotations

import hashlib
from datetime import date

from pydantic import BaseModel, Field

from core.answer.intents.review import CATEGORIES, ReviewItem, review_queue
from core.catalog import history
from core.catalog.store import Store
from core.ingest.decision_file import Contradiction, Decision, Records, read_records

# What each kind of item offers, in the words of its "What to do" (core/answer/review.py).
ACTIONS: dict[str, tuple[str, ...]] = {
    "overlap": ("close_overlap", "retire", "set_owner"),
    "draft_conflict": ("approve", "withdraw", "set_owner"),
    "superseded_surfaced": ("retire", "expire", "set_owner"),
    "untrusted_instructions": ("retire", "set_owner"),
    "empty_acl": ("set_roles", "retire", "set_owner"),
    "stale_index": (),  # not a governance decision: the next ingest refreshes the index
    "decision_contradicted": ("reapply", "accept_source"),
}
CLOSED_ACTIONS = ("reverse",)
ACTION_LABELS = {
    "close_overlap": "Close the overlap: one version governs from a day, the other ends the day before",
    "retire": "Retire it (lifecycle 'retired': search and answers stop using it)",
    "approve": "Approve the draft as a new version from a day",
    "withdraw": "Withdraw the draft",
    "expire": "Set an expires_at date",
    "set_roles": "Set the roles that may see it",
    "set_owner": "Set the owner",
    "reapply": "Keep the steward decision (apply it again over the source)",
    "accept_source": "Accept what the source now says",
    "reverse": "Reverse this decision",
}
# What each action needs besides a reason.
NEEDS = {"close_overlap": ("governs", "from"), "approve": ("from",), "expire": ("from",), "set_roles": ("roles",),
         "set_owner": ("owner",)}
CONTRADICTED = "decision_contradicted"
# Actions that settle an item; an owner set on it leaves the problem (and the item) open.
CLOSING = {a for acts in ACTIONS.values() for a in acts} - {"set_owner"}
CATEGORY_LABELS = {**CATEGORIES, CONTRADICTED: "Steward decisions the source now contradicts"}


def item_id(category: str, evidence_ids: list[str]) -> str:
    digest = hashlib.sha256("|".join([category, *sorted(evidence_ids)]).encode()).hexdigest()[:8]
    return f"{category}-{digest}"


class QueueItem(BaseModel):
    """A review item with its stable id and what may be done with it."""
    id: str
    item: ReviewItem
    actions: list[str]
    decision: Decision | None = None  # a closed item's decision (or the contradicted one)
    contradictions: list[Contradiction] = Field(default_factory=list)
    status: str = "open"  # open | closed | carried into the source


class Queue(BaseModel):
    revision: str  # the catalog revision it was read at: a decision names it, and is refused when it moved on
    day: date
    open: list[QueueItem]
    closed: list[QueueItem]

    def find(self, wanted: str) -> QueueItem | None:
        return next((q for q in self.open + self.closed if q.id == wanted), None)


def _latest_check(records: Records, store: Store):
    """The last source check of an ingest this database holds: an ingest refused after reading its source (every
    object removed, a full disk) wrote its check, but never the catalog it describes."""
    written = {i.revision for i in history.ingests(store)}
    checks = [c for c in records.checks if c.source_check in written]
    return checks[-1] if checks else None


def _contradicted_item(d: Decision, clashes: list[Contradiction]) -> QueueItem:
    sides = "; ".join(f"{c.evidence_id} {c.field}: the decision set {c.decided}, the source now says {c.source}"
                      for c in clashes)
    item = ReviewItem(category=CONTRADICTED, title=f"{d.title}: the source contradicts a steward decision",
                      detail=f"{d.by} decided on {d.day()} ({d.summary}): “{d.reason}”. {sides}.",
                      action="Keep the decision, or accept what the source now says.",
                      since=d.at.date(), evidence_ids=list(d.evidence_ids or d.objects))
    return QueueItem(id=f"{CONTRADICTED}-{d.decision}", item=item, actions=list(ACTIONS[CONTRADICTED]), decision=d,
                     contradictions=clashes)


def queue(store: Store, today: date, records: Records | None = None, index=None) -> Queue:
    """The whole catalog's queue (a steward's): open items, items the source put back, closed items. `index`
    (the search index's status) adds its stale entries, as the page shows them."""
    records = records if records is not None else read_records(store.path)
    items = review_queue(store.all_evidence_for_review(), today, index)
    standing = {d.item: d for d in records.standing() if d.action in CLOSING}
    check = _latest_check(records, store)
    contradicted = check.contradicted if check else {}
    carried = set(check.carried) if check else set()
    open_items = [QueueItem(id=item_id(r.category, r.evidence_ids), item=r, actions=list(ACTIONS[r.category]))
                  for r in items]
    for d in records.standing():
        if d.decision in contradicted:
            open_items.append(_contradicted_item(d, contradicted[d.decision]))
    closed, owned = [], []
    for d in records.decisions:
        if d.action == "set_owner" and d.decision not in records.reversed_ids():
            owner = ReviewItem(category=d.category, title=d.title, detail=d.summary, action=ACTION_LABELS[d.action],
                               since=d.at.date(), evidence_ids=list(d.evidence_ids or d.objects))
            owned.append(QueueItem(id=d.decision, item=owner, actions=list(CLOSED_ACTIONS), decision=d,
                                   status="owner set"))
            continue
        if d.item not in standing or standing[d.item].decision != d.decision or d.decision in contradicted:
            continue
        item = ReviewItem(category=d.category, title=d.title, detail=d.summary, action=ACTION_LABELS[d.action],
                          since=d.at.date(), evidence_ids=list(d.evidence_ids or d.objects))
        closed.append(QueueItem(id=d.item, item=item, actions=[] if d.settles else list(CLOSED_ACTIONS), decision=d,
                                status="carried into the source" if d.decision in carried else "closed"))
    # An item closed by a standing decision is not open, even if the same problem is found again: the source
    # contradicting it is said by its own item above.
    closed_ids = {q.id for q in closed}
    open_items = [q for q in open_items if q.id not in closed_ids]
    return Queue(revision=store.revision, day=today, open=open_items, closed=closed + owned)
