"""Ingest check of executable definitions: a metric version's SQL must be one SELECT that DuckDB parses, reading
only the relations its backing model names, and no file or table function.

A refused version fails the whole ingest (load.build_catalog raises before anything is written), with a
problem naming the file, the version and the field `metric.sql`.
"""
from __future__ import annotations

from core.catalog.evidence import Evidence, Kind
from core.catalog.metric_sql import PARAMETERS, PLACEHOLDER, reads, render


def model_relations(metric: Evidence, by_id: dict[str, Evidence], by_entity: dict[str, list[Evidence]]) -> list[Evidence]:
    """The model versions a metric version's implemented_by links name (every version of a linked entity)."""
    out: list[Evidence] = []
    for target in metric.links.get("implemented_by", []):
        ev = by_id.get(target)
        if ev is not None and ev.kind is Kind.model:
            out.append(ev)
        out += [e for e in by_entity.get(target, []) if e.kind is Kind.model]
    return [m for m in out if m.model and m.model.relation]


def problems(ev: Evidence, by_id: dict[str, Evidence], by_entity: dict[str, list[Evidence]]) -> list[str]:
    """Why this version's SQL is refused (empty when it is fine or there is none)."""
    if ev.metric is None or not ev.metric.sql:
        return []
    if ev.kind is not Kind.metric_definition:
        return ["only a metric definition carries SQL"]
    models = model_relations(ev, by_id, by_entity)
    if not models:
        return ["carries SQL but no implemented_by link names a model with a relation, so nothing says what it "
                "may read"]
    allowed = {m.model.relation.lower(): m for m in models}
    candidates = [m.model.relation for m in models] if PLACEHOLDER.search(ev.metric.sql) else [None]
    out: list[str] = []
    for relation in candidates:
        try:
            found = reads(render(ev.metric.sql, relation))
        except ValueError as exc:
            return [str(exc)]
        for fn in sorted(found.functions):
            out.append(f"calls the table function {fn}(); a metric reads its model's tables only")
        for table in sorted(found.tables):
            short = table.split(".")[-1]
            if table not in allowed and not any(r.split(".")[-1] == short and "." not in table for r in allowed):
                names = ", ".join(f"{m.evidence_id} ({m.model.relation})" for m in models)
                out.append(f"reads table {table}, which its model does not name; it may read {names}")
        for p in sorted(found.parameters - PARAMETERS):
            out.append(f"uses the parameter ${p}; only $start and $end are bound")
    return list(dict.fromkeys(out))
