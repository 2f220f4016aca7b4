"""The governance review queue: what a reviewer should look at, found by rules over the catalog."""
from __future__ import annotations

import csv
import io
import re
from datetime import date

from pydantic import BaseModel, Field

from .catalog import Authority, Evidence, Lifecycle
from .entities import build_entity_index
from .envelope import IndexStatus
from .resolve import (
    governing_versions,
    interval_text,
    overlapping,
    retrievable,
    version_name,
)

INSTRUCTION = re.compile(r"\b(system:|ignore (the|all|any)|always answer|do not mention|disregard|you must)\b", re.I)


class ReviewItem(BaseModel):
    category: str  # overlap | draft_conflict | superseded_surfaced | untrusted_instructions | empty_acl | stale_index
    title: str
    detail: str  # what is wrong
    owner: str | None = None
    evidence_ids: list[str] = Field(default_factory=list)
    ask_question: str | None = None
    ask_date: date | None = None
    since: date | None = None  # when the problem started (an overlap's first day, a page's recording)
    action: str = ""  # what the reviewer should do
    entity_id: str | None = None


def _recorded(e: Evidence) -> date | None:
    return e.recorded_at.date() if e.recorded_at else e.valid_from


CATEGORIES = {
    "overlap": "Overlapping authoritative versions",
    "draft_conflict": "Drafts that contradict a governing version",
    "superseded_surfaced": "Superseded pages still retrievable",
    "untrusted_instructions": "Untrusted notes carrying instructions",
    "empty_acl": "Objects nobody can see (empty ACL)",
    "stale_index": "Stale index entries",
}


def review_queue(evidence: list[Evidence], today: date, index: IndexStatus | None = None) -> list[ReviewItem]:
    entities = build_entity_index([(e.evidence_id, e.entity_id, e.kind.value, e.title, e.authority.value,
                                    e.lifecycle.value, e.aliases) for e in evidence])
    by_entity: dict[str, list[Evidence]] = {}
    for e in evidence:
        by_entity.setdefault(e.entity_id, []).append(e)
    items: list[ReviewItem] = []
    for entity_id, objs in sorted(by_entity.items()):
        ent = entities[entity_id]
        versions = governing_versions(objs, ent.role)
        for a, b in overlapping(versions):
            start = max(d for d in (a.valid_from, b.valid_from, date.min) if d)
            items.append(ReviewItem(
                category="overlap", title=f"{ent.label}: {version_name(a)} and {version_name(b)} overlap",
                detail=f"{a.evidence_id} is in effect {interval_text(a)}; {b.evidence_id} {interval_text(b)}.",
                action="Close one interval or retire a version.", since=start, entity_id=entity_id,
                owner=a.owner or b.owner, evidence_ids=[a.evidence_id, b.evidence_id],
                ask_question=f"What is {ent.label.lower()}?", ask_date=start))
        for d in objs:
            if d.lifecycle is Lifecycle.draft and retrievable(d, today):
                clash = [v for v in versions if v.overlaps(d.valid_from, d.valid_to)]
                if clash:
                    when = max(x for x in (d.valid_from, clash[0].valid_from, date.min) if x)
                    items.append(ReviewItem(
                        category="draft_conflict", title=f"{ent.label}: draft '{d.title}'",
                        detail=f"Unapproved draft covering dates where {', '.join(v.evidence_id for v in clash)} "
                               "governs.", action="Approve it as a new version or withdraw it.",
                        since=_recorded(d) or when, entity_id=entity_id,
                        owner=d.owner, evidence_ids=[d.evidence_id] + [v.evidence_id for v in clash],
                        ask_question=f"What is {ent.label.lower()}?", ask_date=when))
    for e in evidence:
        if e.lifecycle is Lifecycle.superseded and not e.governs and retrievable(e, today):
            items.append(ReviewItem(
                category="superseded_surfaced", title=f"'{e.title}' is superseded but still retrievable",
                detail=f"Superseded{' by ' + e.superseded_by if e.superseded_by else ''}, but search still "
                       "finds it.", action="Set lifecycle 'retired' or an expires_at date so search stops surfacing it.",
                since=e.valid_to or _recorded(e), entity_id=e.entity_id,
                owner=e.owner, evidence_ids=[e.evidence_id],
                ask_question=f"The {e.title} says... is that current?", ask_date=today))
        if e.authority is Authority.untrusted and INSTRUCTION.search(e.text):
            items.append(ReviewItem(
                category="untrusted_instructions", title=f"'{e.title}' contains instructions",
                detail="Untrusted content with imperative instructions (AsOf treats it as data only).",
                action="Remove it from the catalog, or mark it retired.", since=_recorded(e), entity_id=e.entity_id,
                owner=e.owner, evidence_ids=[e.evidence_id]))
        if not e.acl:
            items.append(ReviewItem(category="empty_acl", title=f"'{e.title}' has an empty ACL",
                                    detail="No role can see it.", action="Add the roles that need it, or retire it.",
                                    since=_recorded(e), entity_id=e.entity_id, owner=e.owner,
                                    evidence_ids=[e.evidence_id]))
    if index is not None and index.status == "stale":
        for ids, why in ((index.stale_content, "indexed text is older than the catalog (re-read at query time)"),
                         (index.stale_acl, "indexed permissions differ (the live catalog is enforced)"),
                         (index.missing, "not in the search index yet")):
            for eid in ids:
                items.append(ReviewItem(category="stale_index", title=f"{eid}: stale index entry", detail=why,
                                        action="Run the ingest again to refresh the search index.",
                                        evidence_ids=[eid]))
    return items


class StewardScope(BaseModel):
    """What a steward role may open read-only beyond its own ACL: exactly the objects in its review queue.

    `audiences` maps each queue entity to the role its questions are answered as: the widest audience of
    that entity's queue objects (None when nobody may see them, e.g. an empty ACL)."""
    role: str
    evidence_ids: set[str] = Field(default_factory=set)
    audiences: dict[str, str | None] = Field(default_factory=dict)

    def objects(self, store) -> list[Evidence]:
        return [e for e in store.all_evidence_for_review() if e.evidence_id in self.evidence_ids]


def widest_audience(acl: list[str], counts: dict[str, int]) -> str | None:
    """Of the roles allowed to see an object, the one that sees the most of the catalog (ties: by name),
    so a steward reads the object with the most context anyone who owns it has."""
    roles = [r for r in acl if r in counts]
    return min(roles, key=lambda r: (-counts[r], r)) if roles else None


def steward_scope(store, role: str, today: date) -> StewardScope | None:
    """None unless `role` is a steward. Never widens anything outside the queue: the ids come from the
    queue items alone, and their entities are only the entities of those ids."""
    if not any(r.name == role and r.steward for r in store.roles()):
        return None
    evidence = store.all_evidence_for_review()
    ids = {i for item in review_queue(evidence, today) for i in item.evidence_ids}
    by_id = {e.evidence_id: e for e in evidence}
    counts = {r.name: store.visible(r.name).count for r in store.roles() if not r.steward}
    acls: dict[str, list[set[str]]] = {}
    for eid in sorted(ids):
        acls.setdefault(by_id[eid].entity_id, []).append(set(by_id[eid].acl))
    # The audience must see every queue object of the entity when some role does; else the widest of any.
    audiences = {entity: widest_audience(sorted(set.intersection(*sets)), counts)
                 or widest_audience(sorted(set.union(*sets)), counts) for entity, sets in acls.items()}
    return StewardScope(role=role, evidence_ids=ids, audiences=audiences)


def queue_csv(items: list[ReviewItem]) -> str:
    """The queue as CSV for a ticket tracker or a spreadsheet: one row per item."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["kind", "problem", "detail", "since", "owner", "what to do", "evidence"])
    for i in items:
        writer.writerow([CATEGORIES[i.category], i.title, i.detail, i.since or "", i.owner or "", i.action,
                         " ".join(i.evidence_ids)])
    return out.getvalue()
