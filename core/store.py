"""The catalog in DuckDB: written whole in one transaction, read back per role.

Writes go to a temporary file that replaces the database only once complete, so a failed
ingest never leaves a half-written catalog and an existing database stays untouched.
"""
from __future__ import annotations

import json
import os
from datetime import datetime, timezone
from functools import cached_property
from pathlib import Path

import duckdb
import pyarrow as pa

from .catalog import Catalog, Evidence, Role

SCHEMA_VERSION = "4"  # bump when the tables change; older files must be re-ingested
SCHEMA = """
CREATE TABLE meta (key VARCHAR PRIMARY KEY, value VARCHAR);
CREATE TABLE roles (role VARCHAR PRIMARY KEY, description VARCHAR, steward BOOLEAN);
CREATE TABLE principals (principal VARCHAR, role VARCHAR);
CREATE TABLE evidence (
  evidence_id VARCHAR PRIMARY KEY, entity_id VARCHAR NOT NULL, kind VARCHAR NOT NULL, title VARCHAR,
  text VARCHAR, version VARCHAR, authority VARCHAR NOT NULL, lifecycle VARCHAR NOT NULL,
  authority_class VARCHAR, valid_from DATE, valid_to DATE, recorded_at TIMESTAMPTZ, expires_at DATE,
  acl VARCHAR[] NOT NULL, owner VARCHAR, content_hash VARCHAR NOT NULL, acl_revision VARCHAR NOT NULL,
  doc JSON NOT NULL);
CREATE TABLE acl (evidence_id VARCHAR, role VARCHAR);
CREATE TABLE entities (entity_id VARCHAR PRIMARY KEY, kinds VARCHAR[]);
CREATE TABLE aliases (entity_id VARCHAR, alias VARCHAR, evidence_id VARCHAR);
CREATE TABLE links (evidence_id VARCHAR, link_type VARCHAR, target VARCHAR);
CREATE TABLE lineage_edges (evidence_id VARCHAR, upstream VARCHAR, downstream VARCHAR,
  upstream_column VARCHAR, downstream_column VARCHAR,
  -- copied from the carrying object so the closure query needs no join
  acl VARCHAR[], governs BOOLEAN, valid_from DATE, valid_to DATE);
CREATE TABLE freshness (evidence_id VARCHAR, source VARCHAR, warn_after_hours DOUBLE,
  error_after_hours DOUBLE, loaded_at TIMESTAMPTZ, observed_at TIMESTAMPTZ);
"""


def write_catalog(catalog: Catalog, db_path: str | Path, source: str = "") -> str:
    """Replace the database at db_path with this catalog; returns the catalog revision."""
    db_path = Path(db_path)
    db_path.parent.mkdir(parents=True, exist_ok=True)
    tmp = db_path.with_name(f".{db_path.name}.tmp-{os.getpid()}")
    for stale in (tmp, tmp.with_name(tmp.name + ".wal")):
        stale.unlink(missing_ok=True)
    revision = catalog.revision()
    try:
        con = duckdb.connect(str(tmp))
        try:
            con.execute("BEGIN")
            con.execute(SCHEMA)
            _insert(con, catalog, revision, source)
            con.execute("COMMIT")
            con.execute("CHECKPOINT")
        finally:
            con.close()
        os.replace(tmp, db_path)
        Path(str(db_path) + ".wal").unlink(missing_ok=True)
    finally:
        for leftover in (tmp, tmp.with_name(tmp.name + ".wal")):
            leftover.unlink(missing_ok=True)
    return revision


def _insert(con: duckdb.DuckDBPyConnection, catalog: Catalog, revision: str, source: str) -> None:
    now = datetime.now(timezone.utc).isoformat(timespec="seconds")
    con.executemany("INSERT INTO meta VALUES (?, ?)", [
        ("catalog_revision", revision), ("ingested_at", now), ("source", source), ("schema_version", SCHEMA_VERSION),
        ("warnings", json.dumps(catalog.warnings)), ("object_count", str(len(catalog.evidence))),
        ("fiscal_year_start_month", str(catalog.settings.fiscal_year_start_month))])
    _many(con, "roles", [(r.name, r.description, r.steward) for r in catalog.roles])
    _many(con, "principals", [(p.name, r) for p in catalog.principals for r in p.roles])
    rows, acl, aliases, links, edges, fresh = [], [], [], [], [], []
    kinds: dict[str, set[str]] = {}
    for ev in catalog.evidence:
        rows.append((ev.evidence_id, ev.entity_id, ev.kind.value, ev.title, ev.text, ev.version,
                     ev.authority.value, ev.lifecycle.value, ev.authority_class, ev.valid_from, ev.valid_to,
                     ev.recorded_at, ev.expires_at, ev.acl, ev.owner, ev.content_hash, ev.acl_revision,
                     ev.model_dump_json()))
        acl += [(ev.evidence_id, r) for r in ev.acl]
        aliases += [(ev.entity_id, a, ev.evidence_id) for a in ev.aliases]
        links += [(ev.evidence_id, t, target) for t, target in ev.link_targets()]
        governs = ev.authority.value == "authoritative" and ev.lifecycle.value not in ("draft", "retired")
        edges += [(ev.evidence_id, e.upstream, e.downstream, e.upstream_column, e.downstream_column, ev.acl,
                   governs, ev.valid_from, ev.valid_to) for e in ev.edges]
        if ev.freshness:
            f = ev.freshness
            fresh.append((ev.evidence_id, f.source or ev.entity_id, f.warn_after_hours, f.error_after_hours,
                          f.loaded_at, f.observed_at))
        kinds.setdefault(ev.entity_id, set()).add(ev.kind.value)
    for table, data in (("evidence", rows), ("acl", acl), ("aliases", aliases), ("links", links),
                        ("lineage_edges", edges), ("freshness", fresh),
                        ("entities", [(k, sorted(v)) for k, v in kinds.items()])):
        _many(con, table, data)


def _many(con: duckdb.DuckDBPyConnection, table: str, rows: list[tuple]) -> None:
    """Bulk insert through Arrow: row-by-row executemany takes minutes on 100k objects."""
    if not rows:
        return
    columns = [c for (c,) in con.execute(
        "SELECT column_name FROM information_schema.columns WHERE table_name = ? ORDER BY ordinal_position",
        [table]).fetchall()]
    batch = pa.Table.from_pylist([dict(zip(columns, r)) for r in rows])  # noqa: F841 (scanned by DuckDB)
    con.execute(f"INSERT INTO {table} SELECT {', '.join(columns)} FROM batch")


class Store:
    """Read access to an ingested catalog. Every evidence read is scoped to one role."""

    def __init__(self, db_path: str | Path):
        self.path = Path(db_path)
        if not self.path.exists():
            raise FileNotFoundError(f"no catalog database at {self.path}; run `python -m core ingest` first")
        self.con = duckdb.connect(str(self.path), read_only=True)
        self._views: dict = {}
        found = dict(self.con.execute("SELECT key, value FROM meta").fetchall()).get("schema_version")
        if found != SCHEMA_VERSION:
            self.con.close()
            raise FileNotFoundError(f"{self.path} was written by an older AsOf (schema {found}, need "
                                    f"{SCHEMA_VERSION}); run `python -m core ingest CATALOG --db {self.path}` again")

    def close(self) -> None:
        self.con.close()

    # The file is opened read-only, so meta and roles are read once, not on every question.
    @cached_property
    def _meta(self) -> dict[str, str]:
        return dict(self.con.execute("SELECT key, value FROM meta").fetchall())

    def meta(self) -> dict[str, str]:
        return dict(self._meta)

    @property
    def revision(self) -> str:
        return self._meta["catalog_revision"]

    @property
    def fiscal_year_start_month(self) -> int:
        """The catalog's `settings.fiscal_year_start_month` (1, a calendar fiscal year, when not set)."""
        return int(self._meta.get("fiscal_year_start_month") or 1)

    @cached_property
    def _roles(self) -> list[Role]:
        return [Role(name=n, description=d or "", steward=bool(st)) for n, d, st in
                self.con.execute("SELECT role, description, steward FROM roles ORDER BY role").fetchall()]

    def roles(self) -> list[Role]:
        return list(self._roles)

    def visible(self, role: str):
        """The role's view (see access.Visible); cached, since the database is read-only here."""
        from .access import Visible
        if role not in self._views:
            self._views[role] = Visible(self, role)
        return self._views[role]

    def all_evidence_for_review(self) -> list[Evidence]:
        """Unscoped read for catalog stewards' review queue; never on the answer path."""
        return [Evidence.model_validate_json(doc) for (doc,) in
                self.con.execute("SELECT doc FROM evidence ORDER BY evidence_id").fetchall()]

    def upstream_closure(self, starts: list[str], role: str, day, max_depth: int = 25,
                         direction: str = "upstream") -> list[tuple]:
        """Upstream lineage from `starts` over edges the role may see and that are in effect on `day`.

        Only authoritative, non-draft lineage objects count. Returns (upstream, downstream,
        [evidence_ids carrying that edge], depth) rows. The path check and depth cap make it
        terminate on cyclic graphs.
        """
        if not starts:
            return []
        # Downstream is the same walk over reversed edges.
        near, far = ("upstream", "downstream") if direction == "upstream" else ("downstream", "upstream")
        return self.con.execute(
            f"""
            WITH RECURSIVE allowed AS (
              SELECT DISTINCT upstream, downstream, evidence_id FROM lineage_edges
              WHERE list_contains(acl, ?) AND governs
                AND (?::DATE IS NULL OR ((valid_from IS NULL OR valid_from <= ?::DATE)
                                         AND (valid_to IS NULL OR ?::DATE < valid_to)))),
            up(upstream, downstream, evidence_id, depth, path) AS (
              SELECT upstream, downstream, evidence_id, 1, [{far}, {near}] FROM allowed
              WHERE list_contains(?::VARCHAR[], {far})
              UNION ALL
              SELECT a.upstream, a.downstream, a.evidence_id, up.depth + 1, list_append(up.path, a.{near})
              FROM allowed a JOIN up ON a.{far} = up.{near}
              WHERE NOT list_contains(up.path, a.{near}) AND up.depth < ?)
            SELECT upstream, downstream, list(DISTINCT evidence_id ORDER BY evidence_id), min(depth) FROM up
            GROUP BY upstream, downstream ORDER BY 4, 1, 2
            """, [role, day, day, day, starts, max_depth]).fetchall()

    def column_edges(self, role: str, day, nodes: list[str]) -> list[tuple]:
        """Column-level edges into `nodes` the role may see and that are in effect on `day`:
        (upstream, upstream_column, downstream, downstream_column, evidence_id)."""
        if not nodes:
            return []
        return self.con.execute(
            """SELECT DISTINCT upstream, upstream_column, downstream, downstream_column, evidence_id
               FROM lineage_edges
               WHERE downstream = ANY(?::VARCHAR[]) AND downstream_column IS NOT NULL
                 AND list_contains(acl, ?) AND governs
                 AND (?::DATE IS NULL OR ((valid_from IS NULL OR valid_from <= ?::DATE)
                                          AND (valid_to IS NULL OR ?::DATE < valid_to)))
               ORDER BY 3, 4, 1, 2""", [sorted(nodes), role, day, day, day]).fetchall()

    def hidden_ids(self, role: str, ids: set[str]) -> set[str]:
        """Which of these ids name objects the role may not see (used only to redact, never shown)."""
        if not ids:
            return set()
        seen: dict[str, bool] = {}
        for column in ("evidence_id", "entity_id"):
            for key, visible in self.con.execute(
                    f"SELECT {column}, bool_or(list_contains(acl, ?)) FROM evidence "
                    f"WHERE {column} = ANY(?::VARCHAR[]) GROUP BY 1", [role, sorted(ids)]).fetchall():
                seen[key] = seen.get(key, False) or visible
        return {key for key, visible in seen.items() if not visible}
