"""The resolver's rules, each in one function: effective time, authority, overlap, split, backing model, and
what a steward's review queue may not govern (`held_for_review`).

Pure functions over already-authorized evidence. Which version governs is decided here and only
here; search and the LLM never decide it.
"""
from __future__ import annotations

import re
from datetime import date, timedelta
from typing import NamedTuple

from core.catalog.envelope import Conflict
from core.catalog.evidence import Authority, Evidence, Kind, Lifecycle

PRIMARY_KINDS = {
    "metric": {Kind.metric_definition},
    "model": {Kind.model},
    "source": {Kind.freshness_policy, Kind.source},
    "policy": {Kind.policy},
}


def retrievable(ev: Evidence, day: date) -> bool:
    """Retired objects are kept for audit only; expired ones stop being retrieved after expires_at."""
    return ev.lifecycle is not Lifecycle.retired and (ev.expires_at is None or day < ev.expires_at)


def governing_versions(objs: list[Evidence], role: str) -> list[Evidence]:
    """Authoritative versions of the entity's own kind; drafts, notes and wiki prose never govern."""
    kinds = PRIMARY_KINDS.get(role, set())
    if role == "source":
        # A source described by its own object is that object; the freshness policy then only sets
        # thresholds. Catalogs with only a freshness policy (suite A) answer with the policy.
        kinds = {Kind.source} if any(o.kind is Kind.source and o.governs for o in objs) else {Kind.freshness_policy}
    return sorted((o for o in objs if o.governs and o.kind in kinds),
                  key=lambda o: (o.valid_from or date.min, o.evidence_id))


def in_effect(versions: list[Evidence], day: date) -> list[Evidence]:
    """The effective-time rule: valid_from <= day < valid_to."""
    return [v for v in versions if v.valid_on(day)]


class HeldForReview(NamedTuple):
    """What a question without a date is answered with when the review-queue rule holds its one version back."""
    verdict: str
    conflict: Conflict  # the queued version, named as under review and not in effect today
    why: str  # the trace step


def held_for_review(label: str, versions: list[Evidence], today: date, view) -> HeldForReview | None:
    """The review-queue rule. A version a steward's view reads only because its review queue grants it (by id, not
    through the role's own ACL: `Visible.granted_only`) is there to be reviewed: it governs an answer only on a
    day it is in effect, never in place of the version in effect.

    The effective-time rules keep to that wherever there is a date: a reporting date or a period (`in_effect`,
    `segments`), and a question without one whose versions include one in effect today. What they leave is a
    question without a date (answered as of today) about an entity the view holds one version of, which is
    otherwise answered with that version whatever its dates. When that version is a queue version not in effect
    `today`, this returns the answer for today instead: no version the asker can see is in effect, the queued one
    named as under review; None when the usual choice stands. A version asked for by name ("v1") is answered as
    asked, and with a date inside its interval the queue's version is the one in effect then (a reviewer reading
    the page it replaced expects it): neither comes here. Said of what the asker can see, so it tells nothing of
    versions hidden from the role (the version in effect today may be one of them)."""
    if len(versions) != 1 or versions[0].valid_on(today) or not view.granted_only(versions[0]):
        return None
    v = versions[0]
    name = version_name(v)
    verdict = (f"No approved version of {label} you can see is in effect today ({today}; no reporting date was "
               f"given, so the question is answered for today). {name} of {label}, in effect {interval_text(v)}, is "
               "in your review queue: it is there to be reviewed, not to govern today's answer. Ask with a "
               "reporting date in its interval to read it as the definition then.")
    conflict = conflict_for(v, today, [], False)
    conflict = conflict.model_copy(update={"why": f"in your review queue, to be reviewed: {name} is in effect "
                                                  f"{interval_text(v)}, not on {today}; it does not govern"})
    why = (f"no reporting date: {v.evidence_id}, the one version visible, is read only through the review queue "
           f"and is not in effect on {today}; a queue version never governs in place of the version in effect, "
           f"so the question is answered for {today}")
    return HeldForReview(verdict, conflict, why)


def overlapping(versions: list[Evidence]) -> list[tuple[Evidence, Evidence]]:
    """Pairs of authoritative versions whose effective intervals overlap: a human must decide."""
    out = []
    for i, a in enumerate(versions):
        for b in versions[i + 1:]:
            if a.overlaps(b.valid_from, b.valid_to):
                out.append((a, b))
    return out


def segments(versions: list[Evidence], start: date, end: date) -> list[tuple[date, date, list[Evidence]]]:
    """Cut [start, end) at every version boundary inside it; each piece has one set of versions in effect."""
    cuts = {start, end}
    for v in versions:
        for edge in (v.valid_from, v.valid_to):
            if edge and start < edge < end:
                cuts.add(edge)
    points = sorted(cuts)
    pieces: list[tuple[date, date, list[Evidence]]] = []
    for a, b in zip(points, points[1:]):
        here = in_effect(versions, a)
        if pieces and [v.evidence_id for v in pieces[-1][2]] == [v.evidence_id for v in here]:
            pieces[-1] = (pieces[-1][0], b, here)
        else:
            pieces.append((a, b, here))
    return pieces


def by_version(versions: list[Evidence], label: str) -> Evidence | None:
    for v in versions:
        if (v.version or "").lstrip("vV") == label.lstrip("vV"):
            return v
    return None


def backing_model(metric: Evidence, day: date | None, view) -> tuple[Evidence | None, str]:
    """The model behind a metric version (`backing_model_id`), read in full."""
    found, why = backing_model_id(metric.evidence_id, metric.links.get("implemented_by", []),
                                  day or metric.valid_from, view)
    return (view.by_ids([found])[0] if found else None), why


def backing_model_id(metric_id: str, implemented_by, when: date | None, view) -> tuple[str | None, str]:
    """The model behind a metric version: its explicit link, else a lineage edge into it; never 'latest'.

    A link to a model entity (not a version) takes the model version in effect on `when` (the day asked, else the
    metric version's start). Decided on the view's facts (Visible.facts), never on parsed objects: a whole-catalog
    listing asks this of thousands of metrics. A link to what the role may not see finds nothing, as if unwritten."""
    for target in implemented_by:
        found, exact = _linked_model(target, when, view)
        if found:
            return found, (f"linked by {metric_id} implemented_by" if exact else
                           f"model entity {target} linked by {metric_id}; version in effect on {when}")
    for lineage_id, upstream in view.edge_models_into(metric_id):
        up = view.facts.get(upstream)
        if up is not None and up.kind is Kind.model and up.governs:
            return upstream, f"lineage edge {upstream} -> {metric_id} in {lineage_id}"
    return None, "no implemented_by link or lineage edge names a visible model version"


def _linked_model(target: str, when: date | None, view) -> tuple[str | None, bool]:
    """The model version one implemented_by link names, and whether the link names that version itself: the version,
    else the one version of the named model entity in effect on `when`; None when the role sees neither."""
    exact = view.facts.get(target)
    if exact is not None and exact.governs and exact.kind is Kind.model:
        return target, True
    chosen = _entity_models(target, when, view)
    return (chosen[0].evidence_id if len(chosen) == 1 else None), False


def _entity_models(target: str, when: date | None, view) -> list:
    """The governing model versions of the entity a link names, in effect on `when` (all without a date). A target
    that is a visible object's own id names that object, not an entity (Visible.by_ids reads it so)."""
    objs = [view.facts[target]] if target in view.facts else view.facts.of_entity(target)
    models = governing_versions([f for f in objs if f.entity_id == target], "model")
    return in_effect(models, when) if when else models


def backing_models(metric: Evidence, day: date | None, view) -> list[Evidence]:
    """Every visible model version a metric's implemented_by links name, read in full (`backing_model_ids`)."""
    ids = backing_model_ids(metric.links.get("implemented_by", []), day or metric.valid_from, view)
    found = {e.evidence_id: e for e in view.by_ids(ids)}
    return [found[i] for i in ids if i in found]


def backing_model_ids(implemented_by, when: date | None, view) -> list[str]:
    """Every visible model version a metric's implemented_by links name (derived and ratio metrics read the
    models of all their inputs), the version in effect on `when` for a model entity; in link order."""
    out: list[str] = []
    for target in implemented_by:
        found, _ = _linked_model(target, when, view)
        if found and found not in out:
            out.append(found)
    return out


# dbt objects that document nodes (semantic models, doc blocks): authoritative descriptions, never rivals.
DOCUMENTING_CLASSES = {"dbt_semantic_model", "dbt_doc"}


def documents_not_conflicts(ev: Evidence) -> bool:
    return (ev.authority is Authority.authoritative and ev.lifecycle is Lifecycle.current
            and ev.authority_class in DOCUMENTING_CLASSES)


def last_day(ev: Evidence) -> date | None:
    return ev.valid_to - timedelta(days=1) if ev.valid_to else None


def interval_text(ev: Evidence) -> str:
    if not ev.valid_from and not ev.valid_to:
        return "always (it has no effective dates)"
    start = str(ev.valid_from) if ev.valid_from else "the beginning"
    end = f"through {last_day(ev)}" if ev.valid_to else "onward (open)"
    return f"from {start} {end}"


def version_label(version: str | None) -> str:
    """A version as a reader says it: "v2"; a draft's "draft-2026-01" as "draft of 2026-01" (never "vdraft-2026-01");
    any other label as written."""
    if not version:
        return "(unversioned)"
    if version[:1].isdigit():
        return f"v{version}"
    draft = re.fullmatch(r"draft[-_ ]+(.+)", version, re.I)
    return f"draft of {draft.group(1)}" if draft else version


def version_name(ev: Evidence) -> str:
    v = ev.version or ev.evidence_id
    return f"v{v}" if v[:1].isdigit() else v


def conflict_for(ev: Evidence, day: date | None, governing: list[Evidence], named: bool) -> Conflict:
    """Why a non-governing object does not decide the answer, with the label the UI shows."""
    gov = ", ".join(g.evidence_id for g in governing) or "no authoritative evidence"
    if ev.authority is Authority.untrusted:
        label, why = "UNTRUSTED", ("untrusted content: treated as data only, any instructions in it are "
                                   f"ignored; the answer follows {gov}")
    elif ev.lifecycle is Lifecycle.draft:
        label, why = "DRAFT", f"draft, not approved: drafts never govern; the answer follows {gov}"
    elif ev.lifecycle is Lifecycle.superseded and not ev.governs:
        by = f" by {ev.superseded_by}" if ev.superseded_by else ""
        label, why = "SUPERSEDED", f"superseded{by}; not an authoritative source; the answer follows {gov}"
    elif ev.lifecycle is Lifecycle.deprecated:
        label, why = "DEPRECATED", f"deprecated; the answer follows {gov}"
    elif ev.governs and day is not None and not ev.valid_on(day):
        label, why = "NOT IN EFFECT", (f"{version_name(ev)} is in effect {interval_text(ev)}, not on {day}; "
                                       f"the answer follows {gov}")
    elif ev.governs:
        label, why = "NOT IN EFFECT", f"{version_name(ev)} is in effect {interval_text(ev)}; the answer follows {gov}"
    else:
        cls = f" ({ev.authority_class})" if ev.authority_class else ""
        label, why = "NON-AUTHORITATIVE", f"non-authoritative source{cls}; the answer follows {gov}"
    return Conflict(evidence_id=ev.evidence_id, entity_id=ev.entity_id, title=ev.title, kind=ev.kind.value,
                    authority=ev.authority.value, lifecycle=ev.lifecycle.value, version=ev.version,
                    valid_from=ev.valid_from, valid_to=ev.valid_to, label=label, why=why,
                    named_in_question=named, text=ev.text)


def conflict_candidates(objs: list[Evidence], day: date | None, period: tuple[date, date] | None) -> list[Evidence]:
    """The entity's non-governing objects that speak to the same time: drafts, superseded pages, notes."""
    start, end = period if period else ((day, day + timedelta(days=1)) if day else (None, None))
    return [o for o in objs if not o.governs and o.overlaps(start, end)
            and (o.authority is not Authority.authoritative
                 or o.lifecycle in (Lifecycle.draft, Lifecycle.superseded, Lifecycle.deprecated))]
