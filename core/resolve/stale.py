"""Freshness over the whole visible catalog: "which sources are stale?", "is everything up to date?", and of what
reads them: "which metrics are affected by stale data?".

Each source's status is the one a question about that source gets (core/resolve/freshness.py source_freshness, its
policy and latest load as the role sees them, at the evaluation time); this module only sorts sources by it. A source
with no recorded load is not known: neither stale nor fresh, and said as such.

A metric, model or dashboard is as fresh as the raw sources its upstream lineage reaches on the day (the walk a
definition answer shows, core/resolve/lineage.py upstream): stale when any is stale, fresh when all are fresh, else
not known. Only what the role may see is walked; where the walk stops at something hidden, that is said, never named.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime

from core.catalog.access import Listed
from core.catalog.envelope import FreshnessEntry
from core.catalog.evidence import Evidence, Kind
from core.resolve.freshness import age_text, source_freshness
from core.resolve.lineage import upstream_walk
from core.resolve.versions import backing_model_id, backing_model_ids

STALE = ("warn", "error")  # past the warning threshold, or the error one


def standing(entry: FreshnessEntry | None) -> str:
    """stale | fresh | not known: what a whole-catalog freshness question sorts a source by."""
    if entry is None or entry.status == "unknown":
        return "not known"
    return "stale" if entry.status in STALE else "fresh"


def catalog_freshness(view, sources: list[str], at: datetime, day: date) -> dict[str, FreshnessEntry | None]:
    """Each visible source's freshness at `at` (None: nothing recorded that the role may see)."""
    records = view.freshness_of(sources)
    return {s: source_freshness(s, records[s], at, day) for s in sources}


def freshness_text(entry: FreshnessEntry | None) -> str:
    """What a listed source's row says: its standing, the status, hours since the last load and the thresholds."""
    if entry is None or entry.age_hours is None:
        return "not known: no load recorded" + (f" at or before {entry.evaluated_at:%Y-%m-%d %H:%M} UTC" if entry else "")
    limits = "; ".join(x for x in (f"warn after {entry.warn_after_hours:g} h" if entry.warn_after_hours is not None
                                   else "", f"error after {entry.error_after_hours:g} h"
                                   if entry.error_after_hours is not None else "") if x) or "no thresholds recorded"
    # The load's own time, then the check's: "3.5 h ago at 12:00" read as a load at 12:00.
    loaded = f" ({entry.loaded_at:%Y-%m-%d %H:%M} UTC)" if entry.loaded_at else ""
    return (f"{standing(entry)} ({entry.status.upper()}): last loaded {age_text(entry.age_hours)}{loaded}, "
            f"checked at {entry.evaluated_at:%Y-%m-%d %H:%M} UTC; {limits}")


def short_text(entry: FreshnessEntry | None) -> str:
    """The few words a verdict names a source with: "ERROR, last loaded 40 h ago"."""
    if entry is None or entry.age_hours is None:
        return "no load recorded"
    return f"{entry.status.upper()}, last loaded {age_text(entry.age_hours)}"


def walk_starts(ev: Evidence | Listed, day: date, view) -> list[str]:
    """Where the upstream walk of a visible metric version (or a model, a dashboard) starts on the day: the version, and
    for a metric the model behind it and every input metric's model, as a definition answer starts it (ask.py
    _expand). Read on the view's facts: a whole-catalog listing starts thousands of walks."""
    starts = [ev.evidence_id]
    if ev.kind is Kind.metric_definition:
        links = view.facts[ev.evidence_id].implemented_by
        model, _ = backing_model_id(ev.evidence_id, links, day, view)
        if model:
            starts += [model] + backing_model_ids(links, day, view)
    return list(dict.fromkeys(starts))


@dataclass(frozen=True)
class Reach:
    sources: tuple[str, ...]  # the visible raw sources the lineage reaches
    beyond_view: bool  # some of it continues into what the role may not see


def reached_sources(view, starts: dict[str, list[str]], day: date) -> dict[str, Reach]:
    """Each row's raw sources, from ONE upstream walk from every row's starts at once (thousands of metrics: one walk,
    not one each), split per row by following that graph's edges up from the row's own starts."""
    graph = upstream_walk(view, list(dict.fromkeys(s for ss in starts.values() for s in ss)), day)
    parents: dict[str, list[str]] = {}
    for up, down, *_ in graph.rows:
        parents.setdefault(down, []).append(up)
    # A formula naming another listed metric links to that metric's version; the walk started that metric's own
    # models, so no edge says so: continue into them as the metric's own walk would.
    own = {ss[0]: ss[1:] for ss in starts.values()}
    raw, stops = set(graph.raw_sources), set(graph.stops)
    out = {}
    for row, ss in starts.items():
        seen, todo = set(ss), list(ss)
        while todo:
            node = todo.pop()
            for up in parents.get(node, []) + own.get(node, []):
                if up not in seen:
                    seen.add(up)
                    todo.append(up)
        out[row] = Reach(tuple(sorted(seen & raw)), bool(seen & stops))
    return out


def lineage_standing(entries: list[FreshnessEntry | None], beyond_view: bool) -> str:
    """A metric's standing from its sources': stale if any is stale, fresh if every one is fresh and none is beyond
    the view (what the role may not see is never said fresh), else not known."""
    said = [standing(e) for e in entries]
    if "stale" in said:
        return "stale"
    return "fresh" if said and not beyond_view and all(s == "fresh" for s in said) else "not known"


def lineage_text(said: str, sources: list[tuple[str, FreshnessEntry | None]], beyond_view: bool, day: date) -> str:
    """What a listed metric's row says: its standing and each source it reads with its status and age."""
    if not sources:
        text = f"not known: no lineage to a source you can see is recorded on {day}"
    else:
        text = f"{said}: reads " + ", ".join(f"{label} ({short_text(e)})" for label, e in sources)
    return text + ("; its lineage continues beyond what you can see" if beyond_view else "")
