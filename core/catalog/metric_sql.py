"""A metric version's SQL (`metric.sql`): what it reads, read by DuckDB's own parser, and how it is bound to a model.

The SQL is one SELECT returning a column named `value` over the half-open period [$start, $end). It may write
`{{ model }}` for the relation of the model version backing it on the period (a metric linked to a model entity,
such as gross merchandise value on whichever fct_orders is in effect). Parsing uses `json_serialize_sql`, so what
counts as a table is what DuckDB would read, not what a regular expression guesses.
"""
from __future__ import annotations

import hashlib
import json
import re
import threading

import duckdb

PLACEHOLDER = re.compile(r"\{\{\s*model\s*\}\}")
PARAMETERS = {"start", "end"}
_LOCAL = threading.local()


def _parser() -> duckdb.DuckDBPyConnection:
    # An in-memory database with no tables: only the parser is used. One per thread (connections are not shared).
    con = getattr(_LOCAL, "con", None)
    if con is None:
        con = _LOCAL.con = duckdb.connect(":memory:")
    return con


def quote_relation(relation: str) -> str:
    """`schema.table` as quoted identifiers, so a relation name cannot add SQL of its own."""
    return ".".join('"' + part.replace('"', '""') + '"' for part in relation.split("."))


def render(sql: str, relation: str | None) -> str:
    """The SQL with `{{ model }}` replaced by the (quoted) relation of the backing model version."""
    if PLACEHOLDER.search(sql):
        if not relation:
            raise ValueError("the SQL reads {{ model }} but no backing model relation is known")
        return PLACEHOLDER.sub(lambda _: quote_relation(relation), sql)
    return sql


def sql_hash(sql: str) -> str:
    return "sha256:" + hashlib.sha256(sql.encode()).hexdigest()[:32]


class Reads:
    """What one rendered SELECT reads: base tables (lower-cased `schema.table`, or `table`), table functions
    and the named parameters it uses."""

    def __init__(self) -> None:
        self.tables: set[str] = set()
        self.functions: set[str] = set()
        self.parameters: set[str] = set()


def _walk(node, reads: Reads, ctes: set[str]) -> None:
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, list):
            stack.extend(item)
            continue
        if not isinstance(item, dict):
            continue
        cte_map = item.get("cte_map")
        if isinstance(cte_map, dict):
            ctes.update(str(entry.get("key", "")).lower() for entry in cte_map.get("map", []))
        kind = item.get("type")
        if kind == "BASE_TABLE":
            name = ".".join(p for p in (item.get("catalog_name"), item.get("schema_name"), item.get("table_name")) if p)
            reads.tables.add(name.lower())
        elif kind == "TABLE_FUNCTION":
            fn = item.get("function") or {}
            reads.functions.add(str(fn.get("function_name") or "a table function"))
        elif kind == "VALUE_PARAMETER":
            reads.parameters.add(str(item.get("identifier", "")))
        stack.extend(v for v in item.values() if isinstance(v, (dict, list)))


def reads(sql: str) -> Reads:
    """Parse one SELECT and say what it reads; ValueError with DuckDB's message when it is not one SELECT."""
    out = json.loads(_parser().execute("SELECT json_serialize_sql(?)", [sql]).fetchone()[0])
    if out.get("error"):
        raise ValueError(f"DuckDB cannot read it as one SELECT: {out.get('error_message') or out}")
    statements = out.get("statements") or []
    if len(statements) != 1:
        raise ValueError(f"holds {len(statements)} statements; a metric's SQL is exactly one SELECT")
    found, ctes = Reads(), set()
    _walk(statements[0], found, ctes)
    found.tables -= ctes
    return found
