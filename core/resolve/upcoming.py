"""What is about to change: drafts and versions of the asked entity whose interval starts after the reporting date.

They never govern the answer; they are listed as NOT YET IN EFFECT conflicts so the user sees, for example, a
draft proposing to put shipping into revenue from a later date. Later drafts are surfaced in every definition
answer; later approved versions only when the question asks what is coming (the `upcoming` intent), since the
verdict already names the other versions.
"""
from __future__ import annotations

from datetime import date, timedelta

from core.catalog.envelope import Conflict, Envelope
from core.catalog.evidence import Evidence, Lifecycle
from core.resolve.versions import conflict_for, retrievable, version_name

LABEL = "NOT YET IN EFFECT"


def later_objects(objs: list[Evidence], versions: list[Evidence], after: date, with_versions: bool) -> list[Evidence]:
    """The entity's drafts (and, when asked, approved versions) starting after `after`, earliest first."""
    out = [o for o in objs if o.valid_from and o.valid_from > after and retrievable(o, after)
           and (o.lifecycle is Lifecycle.draft or (with_versions and o in versions))]
    return sorted(out, key=lambda o: (o.valid_from, o.evidence_id))


def not_yet(ev: Evidence, after: date, governing: list[Evidence]) -> Conflict:
    """A conflict labelled NOT YET IN EFFECT, saying why it does not govern on the reporting date."""
    c = conflict_for(ev, None, governing, False)
    gov = ", ".join(g.evidence_id for g in governing) or "no authoritative evidence"
    what = "a draft, not approved, and drafts never govern" if ev.lifecycle is Lifecycle.draft else (
        f"{version_name(ev)}, an approved later version")
    c.label = LABEL
    c.why = (f"not yet in effect on {after}: it starts on {ev.valid_from}; it is {what}; "
             f"the answer follows {gov}")
    return c


def last_day(run, day: date | None) -> date | None:
    """The day after which something is "later": the reporting date, or a period's last day (only what starts after
    the whole period is)."""
    if run.period:
        return run.period[1] - timedelta(days=1)
    return day


def starts_after(ev: Evidence, after: date) -> bool:
    """A draft that starts after `after`: a change to come then, not one in play."""
    return ev.lifecycle is Lifecycle.draft and ev.valid_from is not None and ev.valid_from > after


def later_conflicts(run, objs: list[Evidence], versions: list[Evidence], chosen: Evidence,
                    found: list[Conflict], day: date | None) -> list[Conflict]:
    """NOT YET IN EFFECT conflicts for a definition answer on `day` (or the period's last day)."""
    after = last_day(run, day)
    if after is None:
        return []
    known = {c.evidence_id for c in found} | {chosen.evidence_id}
    later = [o for o in later_objects(objs, versions, after, run.intent.kind == "upcoming")
             if o.evidence_id not in known]
    if later:
        run.step("upcoming", f"starting after {after}: " + ", ".join(o.evidence_id for o in later))
    return [not_yet(o, after, [chosen]) for o in later]


def prepare(run) -> Envelope | None:
    """The upcoming intent with no date asks what comes after today: answer as of the evaluation date."""
    if run.day is None and run.period is None:
        run.day = run.at.date()
        run.notes.append(f"No reporting date was given, so 'upcoming' means after today ({run.day}, the "
                         "evaluation time).")
        run.step("reporting date", f"none given; upcoming changes are those starting after {run.day}")
    return None
