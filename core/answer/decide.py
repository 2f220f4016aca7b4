"""A steward decides on a review item: the rules, the change each action makes, and the new catalog revision.

Every surface (the Governance review page, `asof review decide`) calls `decide`, so the rules live here alone:
  - only a steward role decides, and a principal only as a role it holds (in demo mode the record says the
    identity was the demo picker);
  - a reason is required;
  - the item must be open in the queue as it stands now (a second steward on a decided item is told who decided
    it, when and why), read at the catalog revision the steward saw (else the item is stale);
  - the action must be one the item offers, with what it needs (a version and a day, roles, an owner);
  - a change of effective dates may not leave a gap or a new overlap between the entity's governing versions
    (the refusal names the days).
A refusal raises `Refused` and changes nothing. A decision is applied to the catalog as it is in its database
(core/ingest/decision_apply.py: no source file is read again; only the changed objects are embedded again), written
as a new ingest, so "as recorded on" a time before it answers as before; then it is appended to the decisions file.
"""
from __future__ import annotations

from datetime import date, timedelta
from pathlib import Path

from pydantic import BaseModel, Field

from core.answer.decision_queue import NEEDS, Queue, QueueItem, queue
from core.catalog import history
from core.catalog.entities import build_entity_index
from core.catalog.evidence import Evidence, Kind
from core.catalog.store import Store
from core.ingest.decision_apply import catalog_of, field_value, normal, with_fields
from core.ingest.decision_file import IDENTITY_SOURCES, Decision, append, locked, new_id, now_utc
from core.ingest.publish import publish
from core.read.dates.day_range import check_day
from core.resolve.versions import governing_versions, version_name
from core.retrieve.embed import Embedder

MAX_REASON = 2000  # a reason is read by people in the queue, the audit log and a pull request
MAX_OWNER = 200


class Refused(ValueError):
    """A decision that was not taken; nothing changed."""


class Decider(BaseModel):
    """Who decides: a principal (header, OIDC or command line identity) or, in demo mode, the role picked."""
    principal: str | None = None
    role: str
    identity: str  # one of IDENTITY_SOURCES


class Request(BaseModel):
    item: str
    action: str
    reason: str = ""
    governs: str | None = None  # close_overlap: the version that governs from `from_day`
    from_day: date | None = None
    roles: list[str] = Field(default_factory=list)
    owner: str | None = None
    object: str | None = None  # retire / set_owner on an item about several objects: which one
    seen_revision: str | None = None  # the catalog revision the queue was read at


def who(decider: Decider) -> str:
    """The name a decision records: the principal, or in demo mode the role picked (`identity` says which)."""
    return decider.principal or decider.role


def check_steward(store: Store, decider: Decider) -> None:
    roles = {r.name: r for r in store.roles()}
    if decider.identity not in IDENTITY_SOURCES:
        raise Refused(f"unknown identity source {decider.identity!r}")
    if decider.role not in roles:
        raise Refused(f"unknown role {decider.role!r}; only a steward role may decide on review items")
    if decider.principal is not None and decider.role not in store.principal_roles(decider.principal):
        raise Refused(f"principal {decider.principal!r} does not hold role {decider.role!r}; only a steward decides")
    if not roles[decider.role].steward:
        stewards = ", ".join(sorted(r for r, x in roles.items() if x.steward)) or "none in this catalog"
        raise Refused(f"role {decider.role!r} is not a steward: only a steward role ({stewards}) may decide on review "
                      "items")


def steward_role(store: Store, principal: str) -> str:
    """The steward role a principal decides as (its first), or a refusal naming the roles it holds."""
    held = store.principal_roles(principal)
    stewards = {r.name for r in store.roles() if r.steward}
    mine = [r for r in held if r in stewards]
    if not held:
        raise Refused(f"unknown principal {principal!r}: no role of this catalog")
    if not mine:
        raise Refused(f"principal {principal!r} holds {', '.join(held)}, no steward role: only a steward may decide "
                      "on review items")
    return mine[0]


def _days(start: date, end_inclusive: date) -> str:
    return start.isoformat() if start == end_inclusive else f"{start.isoformat()} through {end_inclusive.isoformat()}"


def _gaps(versions: list[Evidence]) -> dict[tuple[str, str], tuple[date, date]]:
    out = {}
    for a, b in zip(versions, versions[1:]):
        if a.valid_to and b.valid_from and a.valid_to < b.valid_from:
            out[(a.evidence_id, b.evidence_id)] = (a.valid_to, b.valid_from - timedelta(days=1))
    return out


def _overlap_days(a: Evidence, b: Evidence) -> tuple[date, date | None]:
    start = max(d for d in (a.valid_from, b.valid_from, date.min) if d)
    ends = [d for d in (a.valid_to, b.valid_to) if d]
    return start, (min(ends) - timedelta(days=1)) if ends else None


def interval_problems(before: list[Evidence], after: list[Evidence], role: str, changed: set[str]) -> list[str]:
    """A gap or an overlap between governing versions that the change would introduce, with its days."""
    then, now = governing_versions(before, role), governing_versions(after, role)
    was = {(a.evidence_id, b.evidence_id): _overlap_days(a, b) for i, a in enumerate(then) for b in then[i + 1:]
           if a.overlaps(b.valid_from, b.valid_to)}
    out = []
    for i, a in enumerate(now):
        for b in now[i + 1:]:
            if not ((a.evidence_id in changed or b.evidence_id in changed) and a.overlaps(b.valid_from, b.valid_to)):
                continue
            start, last = _overlap_days(a, b)
            old = was.get((a.evidence_id, b.evidence_id)) or was.get((b.evidence_id, a.evidence_id))
            if old and old[0] <= start and (old[1] is None or (last is not None and last <= old[1])):
                continue  # an overlap the item is about, or another one the change only narrows
            out.append(f"a new overlap: {version_name(a)} ({a.evidence_id}) and {version_name(b)} "
                       f"({b.evidence_id}) would both be in effect "
                       + (f"on {_days(start, last)}" if last else f"from {start.isoformat()} onward"))
    old_gaps = _gaps(then)
    for pair, (start, last) in _gaps(now).items():
        if old_gaps.get(pair) != (start, last):
            out.append(f"a gap: no version would be in effect on {_days(start, last)} (between {pair[0]} and {pair[1]})")
    if then and now and any(v.valid_to is None for v in then) and all(v.valid_to is not None for v in now):
        end = max(v.valid_to for v in now)
        out.append(f"a gap: no version would be in effect from {end.isoformat()} onward")
    return out


def _need(req: Request, action: str) -> None:
    missing = [n for n in NEEDS.get(action, ()) if not {"governs": req.governs, "from": req.from_day,
                                                          "roles": req.roles, "owner": req.owner}[n]]
    if missing:
        flags = ", ".join(f"--{m}" for m in missing)
        raise Refused(f"{action} needs {', '.join(missing)} ({flags} on the command line)")


def _one_of(req: Request, found: QueueItem, default: str | None) -> str:
    target = req.object or default
    if target is None or target not in found.item.evidence_ids:
        raise Refused(f"say which object: one of {', '.join(found.item.evidence_ids)} (--object)")
    return target


def _change(store: Store, found: QueueItem, req: Request, by_id: dict[str, Evidence]
            ) -> tuple[dict[str, dict], str, dict]:
    """(evidence id -> overlay fields to set, the decision's summary, extra record fields)."""
    ids, action, day = found.item.evidence_ids, req.action, req.from_day
    if day is not None:
        try:
            check_day(day)
        except ValueError as exc:
            raise Refused(str(exc)) from None
    if action == "close_overlap":
        if req.governs not in ids[:2]:
            raise Refused(f"--governs must be one of the overlapping versions: {', '.join(ids[:2])}")
        gov, other = by_id[req.governs], by_id[next(i for i in ids[:2] if i != req.governs)]
        end = day - timedelta(days=1)
        if other.valid_from and other.valid_from > end:
            raise Refused(f"{other.evidence_id} starts on {other.valid_from}: it cannot end on {end} so that "
                          f"{gov.evidence_id} governs from {day}; retire it instead, or choose a later day")
        if gov.valid_to and gov.valid_to <= day:
            raise Refused(f"{gov.evidence_id} ends on {gov.valid_to - timedelta(days=1)}, before {day}")
        change = {other.evidence_id: {"valid_through": end.isoformat()}}
        if gov.valid_from != day:
            change[gov.evidence_id] = {"valid_from": day.isoformat()}
        return change, f"{version_name(gov)} governs from {day.isoformat()}", {}
    if action == "approve":
        draft = by_id[ids[0]]
        change = {draft.evidence_id: {"lifecycle": "current", "authority": "authoritative",
                                      "valid_from": day.isoformat()}}
        for vid in ids[1:]:
            v = by_id[vid]
            if (v.valid_from is None or v.valid_from < day) and (v.valid_to is None or v.valid_to > day):
                change[vid] = {"valid_through": (day - timedelta(days=1)).isoformat()}
        return change, f"draft '{draft.title}' approved: it governs from {day.isoformat()}", {}
    if action in ("withdraw", "retire"):
        target = by_id[_one_of(req, found, None if found.item.category == "overlap" else ids[0])]
        verb = "withdrawn" if action == "withdraw" else "retired"
        return {target.evidence_id: {"lifecycle": "retired"}}, f"'{target.title}' {verb}", {}
    if action == "expire":
        target = by_id[ids[0]]
        if target.valid_from and day < target.valid_from:
            raise Refused(f"{target.evidence_id} starts on {target.valid_from}; it cannot expire on {day} before that")
        return {target.evidence_id: {"expires_at": day.isoformat()}}, f"'{target.title}' expires on {day}", {}
    if action == "set_roles":
        known = [r.name for r in store.roles()]
        unknown = [r for r in req.roles if r not in known]
        if unknown:
            raise Refused(f"unknown role(s) {', '.join(unknown)}; roles in this catalog: {', '.join(known)}")
        target = by_id[ids[0]]
        roles = sorted(set(req.roles))
        return {target.evidence_id: {"acl": roles}}, f"'{target.title}' may be seen by {', '.join(roles)}", {}
    if action == "set_owner":
        target = by_id[_one_of(req, found, ids[0])]
        owner = req.owner.strip()
        return {target.evidence_id: {"owner": owner}}, f"'{target.title}' is owned by {owner}", {}
    if action == "reverse":
        old = found.decision
        for eid, fields in old.objects.items():
            if eid not in by_id or any(field_value(by_id[eid], f) != normal(f, v) for f, v in fields.items()):
                raise Refused(f"the catalog no longer holds what {old.decision} set on {eid}; nothing to reverse")
        return ({eid: dict(f) for eid, f in old.before.items()}, f"reverses {old.decision} ({old.summary})",
                {"reverses": old.decision})
    if action == "reapply":
        old = found.decision
        return ({eid: dict(f) for eid, f in old.objects.items()}, f"{old.summary} (kept over the source)",
                {"settles": old.decision})
    if action == "accept_source":
        old = found.decision
        return {}, f"the source's statement accepted over {old.decision} ({old.summary})", {"settles": old.decision}
    raise Refused(f"unknown action {action!r}")


def offered(found: QueueItem, by_id: dict[str, Evidence]) -> list[str]:
    """The actions an item offers: its kind's, less approving a draft that is a page, not a definition."""
    acts = list(found.actions)
    if found.item.category == "draft_conflict" and by_id.get(found.item.evidence_ids[0]) is not None:
        draft = by_id[found.item.evidence_ids[0]]
        if draft.kind in (Kind.documentation, Kind.note):
            acts = [a for a in acts if a != "approve"]
    return acts


def read_queue(store: Store, today: date | None = None, index=None) -> Queue:
    """The steward's queue with each open item's actions as `decide` will accept them."""
    q = queue(store, today or store.now().date(), index=index)
    by_id = {e.evidence_id: e for e in store.all_evidence_for_review()}
    for item in q.open:
        item.actions = offered(item, by_id)
    return q


def decide(db_path: str | Path, decider: Decider, req: Request, embedder: Embedder,
           today: date | None = None) -> Decision:
    """Take one decision (or raise Refused, changing nothing); returns it as recorded."""
    with locked(db_path):
        store = Store(db_path)
        try:
            check_steward(store, decider)
            if not req.reason.strip():
                raise Refused("a reason is required: say why, for whoever reads the decision later")
            if len(req.reason) > MAX_REASON:
                raise Refused(f"the reason is {len(req.reason)} characters; at most {MAX_REASON}")
            if req.owner is not None and (len(req.owner) > MAX_OWNER or not req.owner.isprintable()):
                raise Refused(f"an owner is one line of at most {MAX_OWNER} printable characters")
            q = read_queue(store, today)
            found = q.find(req.item)
            if found is None:
                raise Refused(f"no item {req.item!r} in the review queue (catalog revision {store.revision})")
            if found.decision is not None and found.status != "open" and req.action != "reverse":
                d = found.decision
                raise Refused(f"item {req.item} was already decided by {d.by} on {d.at:%Y-%m-%d %H:%M} UTC "
                              f"({d.summary}): “{d.reason}”")
            if req.seen_revision and req.seen_revision != store.revision:
                raise Refused(f"item {req.item} is stale: the catalog changed since the queue was read (revision "
                              f"{req.seen_revision}, now {store.revision}); read the queue again")
            if req.action not in found.actions:
                offers = ", ".join(found.actions) or "no decision (the next ingest settles it)"
                raise Refused(f"item {req.item} ({found.item.category}) does not offer {req.action!r}; it offers: "
                              f"{offers}")
            _need(req, req.action)
            catalog = catalog_of(store)
            by_id = {e.evidence_id: e for e in catalog.evidence}
            change, summary, extra = _change(store, found, req, by_id)
            before = {eid: {f: field_value(by_id[eid], f) for f in fields} for eid, fields in change.items()}
            try:
                after = {eid: with_fields(by_id[eid], fields) for eid, fields in change.items()}
            except ValueError as exc:
                raise Refused(f"the change would not be a valid catalog object: {str(exc).splitlines()[0]}") from None
            touched = {by_id[eid].entity_id for eid in change}
            entities = build_entity_index([(e.evidence_id, e.entity_id, e.kind.value, e.title, e.authority.value,
                                            e.lifecycle.value, e.aliases, e.label) for e in catalog.evidence])
            problems = []
            for entity_id in touched if req.action != "reverse" else ():  # a reversal restores what was
                objs = [e for e in catalog.evidence if e.entity_id == entity_id]
                problems += interval_problems(objs, [after.get(e.evidence_id, e) for e in objs],
                                              entities[entity_id].role, set(change))
            if problems:
                raise Refused("refused, nothing changed: the new dates would leave " + "; ".join(problems))
            evidence = [after.get(e.evidence_id, e) for e in catalog.evidence]
            revised = catalog.model_copy(update={"evidence": evidence})
        finally:
            store.close()
        at = now_utc()
        decision_id = new_id(at)
        published = publish(revised, db_path, embedder, source=f"steward decision {decision_id}", quiet=True)
        fresh = Store(db_path)
        try:
            ingest = history.ingests(fresh)[-1].number
        finally:
            fresh.close()
        decision = Decision(decision=decision_id, item=found.id, category=found.item.category, title=found.item.title,
                            action=req.action, by=who(decider), role=decider.role, identity=decider.identity, at=at,
                            reason=req.reason.strip(), read_revision=q.revision, revision=published.revision,
                            ingest=ingest, summary=summary, objects=change, before=before,
                            evidence_ids=list(found.item.evidence_ids), **extra)
        append(db_path, decision)
        return decision
