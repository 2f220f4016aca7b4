"""The rows an answer reads by key: objects by evidence id or entity id, which visible objects carry an id,
lineage edges at a node, a source's freshness records. Three readers give the same rows: `MemoryRows` for a catalog
file opened by a Store, `LargeRows` for one too large to hold (core/catalog/store.py MEMORY_ROWS_UP_TO), `SqlRows` for
a past state read through views (core/catalog/history.py).

Why memory: at 100,000 objects a keyed DuckDB read costs 3-10 ms however narrow (it decompresses a block of the
JSON column to return one row), and an answer made about fifteen of them, ~90 ms of a 160 ms answer (cProfile of
benchmarks/bench.py's questions). The file is read-only while a Store has it open, so its rows are read once
(about 1 s and 250 MB at 100,000 objects; docs/scale.md) and every read after is a dict lookup. This is the
catalog itself, not a cache of anything shown: nothing leaves a reader unless the asking view may see it.

The ACL predicate is acl_sql's, applied row by row: the role is in the row's ACL, or the row's object is granted
to the view by id (a steward's review queue). tests/catalog/test_rows.py compares the readers on every key, for
every role and a steward's grants, and each with a scan of the table.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import date, datetime


def in_list(column: str, values) -> str:
    """`column IN ('a', 'b', ...)` with the values as SQL literals (quotes doubled: a value can never close
    its literal). DuckDB answers it from the primary-key index or the column's zone maps, where
    `column = ANY(?::VARCHAR[])` compares every row: 1.2 vs 19.6 ms for a few ids among 10,000 objects
    (docs/scale.md), and the scan grows with the catalog."""
    values = sorted({str(v) for v in values})
    if not values:
        return "FALSE"
    return f"{column} IN (" + ", ".join("'" + v.replace("'", "''") + "'" for v in values) + ")"


def keyed(table: str, key: str, select: str, rest: str, columns: str = "*") -> str:
    """`select` over the rows of `table` found by `key` (an indexed lookup: ids IN a list), with `rest` (the ACL,
    a date range, then any ORDER BY) applied to those rows only. Asked as one WHERE, DuckDB plans
    some of those filters as a scan of the whole table: an edge lookup with a date range took 9 ms at 100,000
    objects against 4.7, a read of one object by id with the ACL 4.0 against 2.7 (docs/scale.md). `columns` are
    the ones `select` and `rest` read: each column of a row found is decompressed with its neighbours, and at a
    million objects an object read by id took 2.5 ms with every column against 1.5 with the three it needs."""
    return f"WITH hit AS MATERIALIZED (SELECT {columns} FROM {table} WHERE {key}) SELECT {select} FROM hit WHERE {rest}"


def acl_sql(alias: str = "") -> str:
    """The one ACL predicate every read uses: the role is in the object's ACL, or the object is granted to
    this view by id (a steward's review queue, core/answer/steward.py). Parameters: role, then the granted ids."""
    p = f"{alias}." if alias else ""
    return f"(list_contains({p}acl, ?) OR {p}evidence_id = ANY(?::VARCHAR[]))"


def _day(day) -> date | None:
    if day is None or (isinstance(day, date) and not isinstance(day, datetime)):
        return day
    return day.date() if isinstance(day, datetime) else date.fromisoformat(str(day)[:10])


@dataclass(frozen=True, slots=True)
class Edge:
    """One lineage_edges row: a table edge (no columns) or a column edge, with its carrying object's ACL."""
    evidence_id: str
    upstream: str
    downstream: str
    upstream_column: str | None
    downstream_column: str | None
    acl: frozenset[str]
    governs: bool
    valid_from: date | None
    valid_to: date | None

    def in_effect(self, day) -> bool:
        """Carried by governing lineage, and valid on `day` (every governing edge when `day` is None)."""
        day = _day(day)
        return bool(self.governs) and (day is None or ((self.valid_from is None or self.valid_from <= day)
                                                       and (self.valid_to is None or day < self.valid_to)))


EDGE_COLUMNS = "evidence_id, upstream, downstream, upstream_column, downstream_column, acl, governs, valid_from, valid_to"
ENDS = ("upstream", "downstream")


def _order(edge: Edge) -> tuple:
    return (edge.evidence_id, edge.upstream, edge.downstream, edge.upstream_column or "", edge.downstream_column or "")


def _edge(row: tuple, acls: dict) -> Edge:
    acl = tuple(row[5] or ())
    return Edge(*row[:5], acls.setdefault(acl, frozenset(acl)), *row[6:])


class SqlRows:
    """The rows, read through SQL on every call (a past state's views: loading one would rebuild it in memory)."""

    def __init__(self, cursor: Callable):
        self._cursor = cursor  # this thread's cursor, asked for on each read

    def docs(self, column: str, ids: Iterable[str], role: str, grants: frozenset[str]) -> list[str]:
        """The JSON of the visible objects whose `column` (evidence_id or entity_id) is one of `ids`, by evidence id."""
        ids = set(ids)
        if not ids:
            return []
        return [doc for (doc,) in self._cursor().execute(
            keyed("evidence", in_list(column, ids), "doc", f"{acl_sql()} ORDER BY evidence_id", "evidence_id, acl, doc"),
            [role, sorted(grants)]).fetchall()]

    def carriers(self, ids: Iterable[str], role: str, grants: frozenset[str]) -> dict[str, bool]:
        wanted, found = set(ids), {}
        if not wanted:
            return found
        select, params = f"evidence_id, entity_id, {acl_sql()}", [role, sorted(grants)]
        # Two indexed lookups: one OR of the two lists scans the table (9-14 ms at 100k objects against ~2).
        for row in self._cursor().execute(
                f"SELECT {select} FROM evidence WHERE {in_list('evidence_id', wanted)} UNION "
                f"SELECT {select} FROM evidence WHERE {in_list('entity_id', wanted)}", [*params, *params]).fetchall():
            for i in row[:2]:
                if i in wanted:
                    found[i] = found.get(i, False) or bool(row[2])
        return found

    def edges(self, end: str, nodes: Iterable[str], role: str, grants: frozenset[str]) -> list[Edge]:
        if end not in ENDS:
            raise ValueError(f"no lineage end {end!r}")
        nodes = set(nodes)
        if not nodes:
            return []
        acls: dict = {}
        return sorted((_edge(r, acls) for r in self._cursor().execute(
            keyed("lineage_edges", in_list(end, nodes), EDGE_COLUMNS, acl_sql()), [role, sorted(grants)]).fetchall()),
            key=_order)

    def freshness_ids(self, source: str) -> list[str]:
        con = self._cursor()
        # A source is named by its entity id (hand-written catalogs) or by its node id (dbt lineage).
        names = {source} | {i for row in con.execute(
            "SELECT evidence_id, NULL FROM evidence WHERE entity_id = ? UNION "
            "SELECT NULL, entity_id FROM evidence WHERE evidence_id = ?", [source, source]).fetchall() for i in row if i}
        return sorted({i for (i,) in con.execute(
            f"SELECT evidence_id FROM freshness WHERE {in_list('source', names)}").fetchall()})

    def freshness_ids_of(self, sources: list[str]) -> dict[str, list[str]]:
        """freshness_ids of many sources in three scans, not three lookups each: a whole-catalog freshness question
        at a million objects asks it of 62,000 sources (~4 ms a lookup, four minutes)."""
        con = self._cursor()
        names: dict[str, set[str]] = {s: {s} for s in sources}
        for asked, other in con.execute(
                "SELECT e.entity_id, e.evidence_id FROM evidence e JOIN unnest(?::VARCHAR[]) s(id) ON e.entity_id = s.id "
                "UNION ALL SELECT e.evidence_id, e.entity_id FROM evidence e JOIN unnest(?::VARCHAR[]) s(id) "
                "ON e.evidence_id = s.id", [list(names), list(names)]).fetchall():
            names[asked].add(other)
        found: dict[str, set[str]] = {}
        every = sorted({n for ns in names.values() for n in ns})
        for source, evidence_id in con.execute(
                "SELECT f.source, f.evidence_id FROM freshness f JOIN unnest(?::VARCHAR[]) s(id) ON f.source = s.id",
                [every]).fetchall():
            found.setdefault(source, set()).add(evidence_id)
        return {s: sorted({i for n in ns for i in found.get(n, ())}) for s, ns in names.items()}


class LargeRows(SqlRows):
    """The rows of an opened catalog file too large to hold them: read by key through SQL, except which objects carry
    an id, read off the catalog's facts (core/catalog/facts.py, one copy per file, which every answer at that size
    reads anyway). Through SQL that was four reads of 4-9 ms an answer at a million objects, two of them after the
    searches. Edges and freshness records stay in SQL: held, they took +487 MB at a million objects (docs/scale.md)."""

    def __init__(self, cursor: Callable, facts: Callable):
        super().__init__(cursor)
        self._facts = facts  # the store's CatalogFacts, read on first use

    def carriers(self, ids: Iterable[str], role: str, grants: frozenset[str]) -> dict[str, bool]:
        return self._facts().carriers(ids, role, grants)


def sees(evidence_id: str, acl: frozenset[str], role: str, grants: frozenset[str]) -> bool:
    """acl_sql's rule, read off one row."""
    return role in acl or evidence_id in grants


class MemoryRows:
    """The rows of one opened catalog file, read once."""

    def __init__(self, con):
        acls: dict = {}
        self._objects: dict[str, tuple[str, frozenset[str], str]] = {}  # evidence id -> (entity id, ACL, doc)
        self._by_entity: dict[str, list[str]] = {}
        for evidence_id, entity_id, acl, doc in con.execute(
                "SELECT evidence_id, entity_id, acl, doc FROM evidence ORDER BY evidence_id").fetchall():
            acl = tuple(acl or ())
            self._objects[evidence_id] = (entity_id, acls.setdefault(acl, frozenset(acl)), doc)
            self._by_entity.setdefault(entity_id, []).append(evidence_id)
        self._edges: dict[str, dict[str, list[Edge]]] = {end: {} for end in ENDS}
        for row in con.execute(f"SELECT {EDGE_COLUMNS} FROM lineage_edges").fetchall():
            edge = _edge(row, acls)
            for end in ENDS:
                self._edges[end].setdefault(getattr(edge, end), []).append(edge)
        self._freshness: dict[str, set[str]] = {}
        for evidence_id, source in con.execute("SELECT evidence_id, source FROM freshness").fetchall():
            self._freshness.setdefault(source, set()).add(evidence_id)

    def docs(self, column: str, ids: Iterable[str], role: str, grants: frozenset[str]) -> list[str]:
        if column == "evidence_id":
            found = {i for i in ids if i in self._objects}
        elif column == "entity_id":
            found = {e for i in ids for e in self._by_entity.get(i, ())}
        else:
            raise ValueError(f"objects are not looked up by {column!r}")
        rows = self._objects
        return [rows[e][2] for e in sorted(found) if sees(e, rows[e][1], role, grants)]

    def carriers(self, ids: Iterable[str], role: str, grants: frozenset[str]) -> dict[str, bool]:
        found = {}
        for i in set(ids):
            carrying = ([i] if i in self._objects else []) + self._by_entity.get(i, [])
            if carrying:
                found[i] = any(sees(e, self._objects[e][1], role, grants) for e in carrying)
        return found

    def edges(self, end: str, nodes: Iterable[str], role: str, grants: frozenset[str]) -> list[Edge]:
        by_node = self._edges[end]  # KeyError for anything but upstream / downstream
        return sorted((e for n in set(nodes) for e in by_node.get(n, ()) if sees(e.evidence_id, e.acl, role, grants)),
                      key=_order)

    def freshness_ids_of(self, sources: list[str]) -> dict[str, list[str]]:
        return {s: self.freshness_ids(s) for s in sources}

    def freshness_ids(self, source: str) -> list[str]:
        names = {source, *self._by_entity.get(source, ())}
        if source in self._objects:
            names.add(self._objects[source][0])
        return sorted({i for n in names for i in self._freshness.get(n, ())})
