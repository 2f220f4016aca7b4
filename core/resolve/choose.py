"""Which authoritative version governs the run's date: on a day, the one in effect (two is a reviewer's call, none
an abstention); over a period, one per part of it where a version takes over (a split); with no date, the only
version, the one asked for, the one in effect today, or a question back. Then the sentence saying what governs."""
from __future__ import annotations

from datetime import date, timedelta

from core.catalog.entities import Entity, Match
from core.catalog.envelope import Behavior, ClarifyOption, Conflict, EvidenceRef, FreshnessEntry, SubPeriod
from core.catalog.evidence import Evidence
from core.resolve.outcome import _clarify, _finish
from core.resolve.run import Run as _Run
from core.resolve.stale import catalog_freshness, reached_sources, walk_starts
from core.resolve.versions import backing_model, conflict_for, in_effect, interval_text, segments, version_name


def _now_note(run: _Run, primary: Entity, versions: list[Evidence], chosen: Evidence) -> None:
    """"is that the rule now?" with a reporting date on the form: the answer stays the form's date's, and this
    says which version is in effect at the evaluation time, the same one or another."""
    if not run.now or not run.day or "freshness_status" in run.intent.aspects:
        return
    today = run.at.date()
    now = in_effect(versions, today)
    said = f"Now (the evaluation date, {today}, which {run.now[0].text!r} names):"
    if now == [chosen]:
        text = f"{said} the same version, {version_name(chosen)}, still applies."
    elif len(now) == 1:
        text = (f"{said} {version_name(now[0])} applies, in effect {interval_text(now[0])}; not "
                f"{version_name(chosen)}, which applies on the reporting date {run.day}.")
    elif not now:
        text = f"{said} no approved version of {primary.label} is in effect."
    else:
        text = f"{said} {len(now)} approved versions of {primary.label} overlap; a governance reviewer must decide."
    run.notes.append(text)
    run.step("evaluation time", f"version in effect on {today}: {', '.join(v.evidence_id for v in now) or 'none'}")


def _version_requests(run: _Run, matches: list[Match], toks, primary: Entity) -> dict[str, str]:
    """Explicit versions in the text, each attached to the entity named just before it."""
    out: dict[str, str] = {}
    for label, pos in run.intent.versions:
        before = [m for m in matches if m.end - 1 < len(toks) and toks[m.end - 1].end <= pos]
        # Two entities sharing the name just before "version 2" (a metric and its lineage page): the
        # one the question is about takes it, then a governed topic entity.
        ents = run.view.entities
        target = max(before, key=lambda m: (toks[m.end - 1].end, m.entity_id == primary.entity_id,
                                            ents[m.entity_id].is_topic and ents[m.entity_id].governed)
                     ).entity_id if before else primary.entity_id
        out.setdefault(target, label)
    return out


def _choose_without_date(run: _Run, primary: Entity, versions: list[Evidence], pinned, kw, wanted=None):
    if pinned:
        run.step("version", f"{version_name(pinned)} requested explicitly; no reporting date given")
        return pinned
    if len(versions) == 1:
        run.step("version", f"only one authoritative version exists: {versions[0].evidence_id}")
        return versions[0]
    options = [_version_option(v) for v in versions]
    today = run.at.date()
    now = in_effect(versions, today)
    if len(now) == 1 and not wanted:
        # No date, but the question does not need one to be right: the definition in effect today (the
        # evaluation date) answers, and the other versions are named, a click away. Asking back is kept for
        # what a date would really decide: two versions open today, none in effect, a version that is not there.
        chosen, run.day = now[0], today
        run.other_versions = [o for o, v in zip(options, versions) if v is not chosen]
        run.step("reporting date", f"none given: answered for the evaluation date {today}, when {chosen.evidence_id} "
                 f"is in effect; other versions: {', '.join(o.evidence_id for o in run.other_versions)}")
        return chosen
    # "net revenue v3" when there is no v3: say so before asking which of the real ones is meant.
    missing = f"{primary.label} has no approved version {wanted} that you can see. " if wanted else ""
    # Two approved versions open at once cannot be told apart by a date: say so rather than hide it.
    overlap = next(((a, b) for i, a in enumerate(versions) for b in versions[i + 1:]
                    if (a.valid_from or date.min) < (b.valid_to or date.max)
                    and (b.valid_from or date.min) < (a.valid_to or date.max)), None)
    clash = ""
    if overlap:
        start = max(overlap[0].valid_from or date.min, overlap[1].valid_from or date.min)
        clash = (f" {version_name(overlap[0])} and {version_name(overlap[1])} overlap"
                 + (f" from {start}" if start != date.min else "")
                 + ": on those dates a governance reviewer must decide which applies.")
    return _clarify(run, f"{missing}{primary.label} has {len(versions)} versions. For which reporting date?{clash}",
                    options, "no reporting date and several authoritative versions exist",
                    freshness=_freshness_beside(run, versions), **kw)


def _freshness_beside(run: _Run, versions: list[Evidence]) -> list[FreshnessEntry]:
    """"what is X, and is its data fresh?" asked back for a date: the freshness half does not wait for it. Freshness
    is the sources' loads judged at the clock, whichever version a date then picks: the sources the versions in
    effect today read (every version's when none is), each once."""
    if "freshness_status" not in run.intent.aspects:
        return []
    today = run.at.date()
    walked = in_effect(versions, today) or versions
    reach = reached_sources(run.view, {v.evidence_id: walk_starts(v, today, run.view) for v in walked}, today)
    sources = sorted({s for r in reach.values() for s in r.sources})
    fresh = [f for f in catalog_freshness(run.view, sources, run.at, today).values() if f]
    run.step("freshness", "asked beside a definition asked back: "
             + ("; ".join(f"{f.source}: {f.status}" for f in fresh) or "no source with a recorded load")
             + f" at {run.at.isoformat()}, read by {', '.join(v.evidence_id for v in walked)}")
    return fresh


def _version_option(v: Evidence) -> ClarifyOption:
    # a dbt version may carry no interval at all: it is then picked by its version
    return ClarifyOption(label=f"{version_name(v)}: {interval_text(v)}",
                         date=v.valid_from or (v.valid_to - timedelta(days=1) if v.valid_to else None),
                         version=v.version, evidence_id=v.evidence_id)


def _choose_on_day(run: _Run, primary: Entity, versions: list[Evidence], conflicts, kw):
    valid = in_effect(versions, run.day)
    run.step("effective time", f"valid_from <= {run.day} < valid_to: "
             + (", ".join(v.evidence_id for v in valid) or "no version"))
    if len(valid) > 1:
        return _finish(run, Behavior.human_review,
                       f"Two authoritative definitions of {primary.label} overlap on {run.day}; a governance "
                       "reviewer must decide which applies.",
                       selected=[EvidenceRef.of(v, "overlap") for v in valid], conflicts=conflicts(valid), **kw)
    if not valid:
        return _finish(run, Behavior.abstain,
                       f"No authoritative version of {primary.label} is in effect on {run.day}. Versions: "
                       + "; ".join(f"{version_name(v)} {interval_text(v)}" for v in versions),
                       conflicts=conflicts([]), **kw)
    return valid[0]


def _choose_for_period(run: _Run, primary: Entity, versions: list[Evidence], conflicts, kw):
    start, end = run.period
    pieces = segments(versions, start, end)
    run.step("effective time", f"period {start}..{end - timedelta(days=1)} cut at version boundaries into "
             f"{len(pieces)} part(s)")
    if any(len(vs) > 1 for _, _, vs in pieces):
        both = {v.evidence_id: v for _, _, vs in pieces if len(vs) > 1 for v in vs}
        return _finish(run, Behavior.human_review,
                       f"Two authoritative definitions of {primary.label} overlap in this period; a governance "
                       "reviewer must decide.", selected=[EvidenceRef.of(v, "overlap") for v in both.values()],
                       conflicts=conflicts(list(both.values())), **kw)
    if len(pieces) == 1 and pieces[0][2]:
        run.step("version", f"{pieces[0][2][0].evidence_id} is in effect for the whole period")
        return pieces[0][2][0]
    if not any(vs for _, _, vs in pieces):
        run.step("abstain", "no authoritative version is in effect on any day of the period")
        return _finish(run, Behavior.abstain,
                       f"No authoritative version of {primary.label} is in effect from {start} to "
                       f"{end - timedelta(days=1)}. Versions: "
                       + "; ".join(f"{version_name(v)} {interval_text(v)}" for v in versions) + ".",
                       conflicts=conflicts([]) + [conflict_for(v, None, [], False) for v in versions], **kw)
    splits = []
    for a, b, vs in pieces:
        last = b - timedelta(days=1)
        if vs:
            v = vs[0]
            model, _ = backing_model(v, a, run.view)
            sel = [EvidenceRef.of(v, "definition")] + ([EvidenceRef.of(model, "model")] if model else [])
            splits.append(SubPeriod(start=a, end=b, behavior=Behavior.answer, selected=sel,
                                    verdict=f"{a} to {last}: {version_name(v)} ({interval_text(v)})"))
        else:
            splits.append(SubPeriod(start=a, end=b, behavior=Behavior.abstain,
                                    verdict=f"{a} to {last}: no authoritative version in effect"))
    run.step("split", "the period crosses a version boundary; one resolution per sub-period")
    governing = [v for _, _, vs in pieces for v in vs]
    return _finish(run, Behavior.split,
                   f"The period crosses a definition change of {primary.label}: "
                   + "; ".join(s.verdict for s in splits) + ".",
                   splits=splits, conflicts=conflicts(governing), **kw)


def _what_governs(run: _Run, primary: Entity, chosen: Evidence, versions: list[Evidence], selected,
                  fresh, conflicts: list[Conflict]) -> str:
    # An unversioned object (most dbt metrics) is its own name, not "metric.x.y of y".
    name = f"{version_name(chosen)} of {primary.label}" if chosen.version else primary.label
    if primary.role == "source" and fresh:
        f = fresh[0]
        age = (f"{f.age_hours} h since the last load" if f.age_hours is not None
               else "no load time recorded at or before then")
        return (f"{primary.label} is {f.status.upper()} at {f.evaluated_at.isoformat()}: {age}; warn after "
                f"{f.warn_after_hours} h, error after {f.error_after_hours} h ({chosen.evidence_id}).")
    if run.day:
        head = f"{name} applies on {run.day}: in effect {interval_text(chosen)}"
    elif run.period:
        head = (f"{name} governs the whole period {run.period[0]} to {run.period[1] - timedelta(days=1)}: "
                f"in effect {interval_text(chosen)}")
    elif len(versions) == 1 and not chosen.version:
        head = f"{primary.label} has one authoritative definition, unversioned: in effect {interval_text(chosen)}"
    elif len(versions) == 1:
        head = f"{primary.label} has one authoritative version, {version_name(chosen)}: in effect {interval_text(chosen)}"
    else:
        head = f"{name}, as asked: in effect {interval_text(chosen)}"
    parts = [head] + [f"{version_name(v)} is in effect {interval_text(v)}"
                      for v in versions if v.evidence_id != chosen.evidence_id][:2]
    for c in conflicts[:3]:
        parts.append(f"{c.title} is {c.label.lower().replace('-', ' ')}")
    text = "; ".join(parts) + "."
    models = [s.title for s in selected if s.role_in_answer == "model"]
    if models:
        text += f" Backed by {', '.join(models)}."
    return text
