"""Downstream: the models, metrics, dashboards and reports that read an entity, from lineage edges in effect on
the reporting date (else today), including dbt exposures (ingested as documentation with their parent_map
edges).

Only edges carried by lineage objects the role may see are walked. An edge into a node the role may not
see stops there, and a node is listed only when it is reachable from the entity through visible nodes, so
nothing hidden is listed, counted or named, nor is anything reached through it.
"""
from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass

from core.answer.run import entity_on_day
from core.catalog.envelope import Behavior, Downstream, DownstreamItem, Envelope, EvidenceRef, Lineage
from core.catalog.evidence import Evidence, Kind
from core.resolve.lineage import explore
from core.resolve.versions import in_effect

PLURAL = {"exposure": "dashboards or reports (dbt exposures)", "model": "models", "metric": "metrics",
          "document": "documents", "source": "sources", "node": "other nodes"}
# dbt.py writes "dbt exposure <label>: <type>, maturity <maturity>. ..." (see exposures_and_docs).
_EXPOSURE_TYPE = re.compile(r"^dbt exposure .+?: (\w+), maturity ")


def _kind(ev: Evidence | None) -> tuple[str, str | None]:
    if ev is None:
        return "node", None
    if ev.authority_class == "dbt_exposure":
        m = _EXPOSURE_TYPE.search(ev.text)
        return "exposure", m.group(1) if m else None
    return {Kind.metric_definition: "metric", Kind.model: "model", Kind.source: "source",
            Kind.documentation: "document", Kind.note: "document"}.get(ev.kind, "node"), None


def _reachable(starts: list[str], edges) -> dict[str, tuple[int, list[str]]]:
    """Breadth-first from the starts over visible edges: node -> (depth, lineage evidence into it)."""
    out_edges: dict[str, list] = {}
    for e in edges:
        out_edges.setdefault(e.upstream, []).append(e)
    seen: dict[str, tuple[int, list[str]]] = {}
    queue = deque((s, 0) for s in starts)
    while queue:
        node, depth = queue.popleft()
        for e in out_edges.get(node, ()):
            if e.downstream in starts:
                continue
            if e.downstream not in seen:
                seen[e.downstream] = (depth + 1, [e.evidence_id])
                queue.append((e.downstream, depth + 1))
            elif seen[e.downstream][0] == depth + 1 and e.evidence_id not in seen[e.downstream][1]:
                seen[e.downstream][1].append(e.evidence_id)
    return seen


def answer(run, pick) -> Envelope:
    read = entity_on_day(run, pick)
    if isinstance(read, Envelope):
        return read
    primary, day, objs, versions = read
    when = f"on {day}" if run.day or run.period else f"today ({day})"
    found = walk(run, primary, in_effect(versions, day) or versions or objs, day)
    kw = dict(intent="downstream", entity_id=primary.entity_id, entity_label=primary.label)
    return run.envelope(Behavior.answer, verdict(primary.label, found.result.items, found.result.asked, when),
                        lineage=found.graph, downstream=found.result, selected=found.selected, **kw)


@dataclass
class Walked:
    result: Downstream
    graph: Lineage  # the visible edges walked, from the starts to what reads them
    selected: list[EvidenceRef]  # the lineage objects carrying them, and the metrics whose formula reads them


def walk(run, primary, chosen: list[Evidence], day) -> Walked:
    """What reads `primary` (its versions `chosen`) on `day`, over the role's visible lineage and formulas: the
    downstream intent's answer, and the downstream half of a question that asks both ways (core/answer/ask.py)."""
    when = f"on {day}" if run.day or run.period else f"today ({day})"
    starts = list(dict.fromkeys([e.evidence_id for e in chosen] + [primary.entity_id]))
    graph = explore(run.view, starts, day, 0, 25)
    reach = _reachable(starts, graph.edges)
    found = {e.evidence_id: e for e in run.view.by_ids(sorted(reach))}
    by_entity: dict[str, Evidence] = {}
    for e in found.values():
        by_entity.setdefault(e.entity_id, e)
    items = []
    for node, (depth, via) in reach.items():
        ev = found.get(node) or by_entity.get(node)
        kind, etype = _kind(ev)
        label = (ev.title if ev else node.split(".", 1)[-1])
        items.append(DownstreamItem(id=node, kind=kind, label=label, depth=depth,
                                    evidence_id=ev.evidence_id if ev else None, exposure_type=etype,
                                    version=ev.version if ev else None,
                                    owner=ev.owner if ev else None, via=via))
    # Metrics that read a reached metric (or the entity) in their formula, however deep: "what depends on
    # fct_orders" reaches net revenue by lineage, and contribution margin through net revenue's formula.
    readers, seen = [], set(reach) | {primary.entity_id}
    queue = deque([(primary.entity_id, starts, 0)] + [(found[n].entity_id, [n], d) for n, (d, _) in reach.items()
                                                      if n in found and _kind(found[n])[0] == "metric"])
    while queue:
        eid, from_ids, depth = queue.popleft()
        # The metrics in effect that day whose document names what was reached: only they can read it.
        metrics = [ev for ev in run.view.metrics_mentioning([eid.split(".")[-1], eid, *from_ids])
                   if ev.governs and ev.valid_on(day) and ev.metric]
        for ev in _formula_readers(metrics, eid, from_ids, seen):
            seen |= {ev.entity_id, ev.evidence_id}
            readers.append(ev)
            items.append(DownstreamItem(id=ev.entity_id, kind="metric", label=ev.title, depth=depth + 1,
                                        evidence_id=ev.evidence_id, version=ev.version, owner=ev.owner,
                                        via=[ev.evidence_id]))
            queue.append((ev.entity_id, [ev.evidence_id], depth + 1))
    items.sort(key=lambda i: (i.depth, i.kind, i.label.lower(), i.id))
    asked = run.reading.downstream_kind
    keep = {e.evidence_id for e in graph.edges if e.downstream in reach}
    graph.edges = [e for e in graph.edges if e.evidence_id in keep and e.downstream in reach]
    live = set(starts) | set(reach)
    graph.nodes = [n for n in graph.nodes if n.id in live]
    graph.raw_sources = []
    run.step("downstream", f"{len(items)} node(s) downstream of {', '.join(starts)} {when} over visible lineage")
    result = Downstream(starts=starts, as_of=day, asked=asked, items=items)
    selected = [EvidenceRef.of(e, "lineage") for e in run.view.by_ids(sorted(keep)) if e.evidence_id in keep]
    selected += [EvidenceRef.of(e, "formula_reader") for e in readers]
    return Walked(result=result, graph=graph, selected=selected)


def _formula_readers(metrics: list[Evidence], entity_id: str, starts: list[str], reached: set[str]) -> list[Evidence]:
    """Of the visible metric versions in effect (`metrics`, the role's own objects only, so a hidden metric is
    never listed), those whose formula or links read the entity ("net_revenue / COUNT(...)" reads net revenue;
    implemented_by a model) without a lineage edge saying so."""
    short = entity_id.split(".")[-1]
    name = re.compile(rf"(?<![\w.]){re.escape(short)}(?![\w])", re.I)
    out = []
    for ev in metrics:
        if ev.entity_id == entity_id or ev.entity_id in reached or ev.evidence_id in reached:
            continue
        named = set(ev.mentions.values()) | {t for _, t in ev.link_targets()}
        if set(starts) & named or entity_id in named or name.search(ev.metric.formula or ""):
            out.append(ev)
    return out


def verdict(label: str, items: list[DownstreamItem], asked: str | None, when: str) -> str:
    if not items:
        return f"Nothing you can see reads {label} {when}: no downstream lineage is recorded for it."
    groups: dict[str, list[str]] = {}
    for i in items:
        groups.setdefault(i.kind, []).append(i.label + (f" ({i.exposure_type})" if i.exposure_type else ""))
    parts = [f"{PLURAL[k]}: {', '.join(v)}" for k, v in groups.items()]
    head = ""
    if asked and asked not in groups:
        head = f"No {PLURAL[asked]} you can see read {label} {when}. "
    return head + f"Downstream of {label} {when}, you can see " + "; ".join(parts) + "."
