"""Column lineage: where one column of an answer's chain comes from, over column-level edges only.

Table-level edges say which tables feed which; they cannot say which source column a column comes from,
so without column edges the answer says exactly that instead of guessing from names.
"""
from __future__ import annotations

from datetime import date

from core.catalog.access import Visible
from core.catalog.envelope import ColumnHop, ColumnLineage, Lineage


def trace_column(view: Visible, lineage: Lineage, starts: list[str], column: str, day: date | None,
                 depth: int = 25) -> ColumnLineage:
    # The nearest node in the chain (starts first, then upstream order) that records edges for the column.
    order = list(dict.fromkeys(starts + [n.id for n in lineage.nodes]))
    edges = _visible(view, view.column_edges(order, day))
    into = [e for e in edges if e[3].lower() == column.lower()]
    found = next((n for n in order if any(e[2] == n for e in into)), None)
    if found is None:
        any_columns = bool(edges)
        detail = (f"No column-level lineage records `{column}`"
                  + (" (other columns of this chain have some)" if any_columns else
                     "; only table-level lineage is recorded for this chain") + ".")
        return ColumnLineage(column=column, table_only=not any_columns, detail=detail)
    hops: list[ColumnHop] = []
    frontier = [(found, e[3]) for e in into if e[2] == found][:1]
    seen = set(frontier)
    raw: list[str] = []
    for _ in range(depth):
        if not frontier:
            break
        rows = _visible(view, view.column_edges(sorted({n for n, _ in frontier}), day))
        nxt = []
        for node, col in frontier:
            ups = [r for r in rows if r[2] == node and r[3] == col]
            if not ups:
                raw.append(f"{node}.{col}")
            for u, uc, d, dc, eid in ups:
                hops.append(ColumnHop(upstream=u, upstream_column=uc, downstream=d, downstream_column=dc,
                                      evidence_id=eid))
                if (u, uc) not in seen:
                    seen.add((u, uc))
                    nxt.append((u, uc))
        frontier = nxt
    raw += [f"{n}.{c}" for n, c in frontier]
    return ColumnLineage(column=column, found_in=found, hops=hops, raw_columns=list(dict.fromkeys(raw)),
                         detail=f"`{column}` of {found} traced through {len(hops)} column edge(s) to "
                                + ", ".join(dict.fromkeys(raw)))


def _visible(view: Visible, rows: list[tuple]) -> list[tuple]:
    """A column edge from an object the role may not see stops the trace there, as table lineage does."""
    hidden = view.hidden_ids({r[0] for r in rows} | {r[2] for r in rows})
    return [r for r in rows if r[0] not in hidden and r[2] not in hidden]
