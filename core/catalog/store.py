"""The catalog in DuckDB: written whole in one transaction, read back per role.

Writes go to a temporary file that replaces the database only once complete, so a failed
ingest never leaves a half-written catalog and an existing database stays untouched.

Transaction time: the current tables (evidence, links, lineage_edges, ...) hold today's catalog and are
all the answer path reads. Beside them, `ingests` lists every ingest and `evidence_history` every content
and ACL revision each object ever had, with the ingests that introduced (`recorded_from`) and replaced
(`recorded_to`) it, together with the rows that revision put in the other tables (`*_history`, written only
for the revisions an ingest introduces, so history grows with changes, not with ingests times objects), and
`latest_acl` each object's ACL as of this ingest. Each ingest copies the previous file's history into the new
one before the swap and only adds to it; core/catalog/history.py reads past states from it in place, as views.
"""
from __future__ import annotations

import functools
import json
import os
import shutil
import threading
from datetime import datetime, timezone
from pathlib import Path

import duckdb
import numpy as np
import pyarrow as pa

from core.catalog.bulk import collector_paused
from core.catalog.evidence import Catalog, Evidence, Role, evidence_keys
from core.catalog.facts import catalog_facts
from core.catalog.rows import LargeRows, MemoryRows, acl_sql
from core.catalog.spilled import unflagged_runs
from core.catalog.walk import walk
from core.settings import budget

SCHEMA_VERSION = "6"  # bump when the tables change; older files must be re-ingested (their history is converted)
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
# Point lookups on the answer path: an object's other revisions, edges into or out of a node, pages linking to an
# object, a source's freshness. A catalog is one DuckDB row group up to ~120k rows, so without these every such
# lookup scans the table (10-12 ms at 100k objects, 1 ms through the index; docs/scale.md). Built after the rows
# are in, once per ingest.
LOOKUP_INDEXES = """
CREATE INDEX evidence_entity ON evidence (entity_id);
CREATE INDEX edges_downstream ON lineage_edges (downstream);
CREATE INDEX edges_upstream ON lineage_edges (upstream);
CREATE INDEX links_evidence ON links (evidence_id);
CREATE INDEX links_target ON links (target);
CREATE INDEX freshness_source ON freshness (source);
"""
HISTORY_SCHEMA = """
CREATE TABLE ingests (ingest INTEGER PRIMARY KEY, ingested_at TIMESTAMPTZ NOT NULL,
  catalog_revision VARCHAR NOT NULL, source VARCHAR, object_count INTEGER);
-- One row per content or ACL revision of an object; recorded_to is NULL while it is current. The columns after
-- recorded_to are the evidence table's for that revision, so a past state is read without parsing `doc`.
CREATE TABLE evidence_history (evidence_id VARCHAR NOT NULL, content_hash VARCHAR NOT NULL,
  acl_revision VARCHAR NOT NULL, acl VARCHAR[] NOT NULL, doc JSON NOT NULL,
  recorded_from INTEGER NOT NULL, recorded_to INTEGER,
  entity_id VARCHAR, kind VARCHAR, title VARCHAR, text VARCHAR, version VARCHAR, authority VARCHAR,
  lifecycle VARCHAR, authority_class VARCHAR, valid_from DATE, valid_to DATE, recorded_at TIMESTAMPTZ,
  expires_at DATE, owner VARCHAR);
-- The rows each revision put in aliases, links, lineage_edges and freshness, with that revision's
-- (evidence_id, recorded_from, recorded_to): written when an ingest introduces the revision, closed with it.
-- Lineage edges keep no ACL: a past state takes each object's ACL from `latest_acl` (core/catalog/history.py).
CREATE TABLE aliases_history (entity_id VARCHAR, alias VARCHAR, evidence_id VARCHAR,
  recorded_from INTEGER NOT NULL, recorded_to INTEGER);
CREATE TABLE links_history (evidence_id VARCHAR, link_type VARCHAR, target VARCHAR,
  recorded_from INTEGER NOT NULL, recorded_to INTEGER);
CREATE TABLE lineage_edges_history (evidence_id VARCHAR, upstream VARCHAR, downstream VARCHAR,
  upstream_column VARCHAR, downstream_column VARCHAR, governs BOOLEAN, valid_from DATE, valid_to DATE,
  recorded_from INTEGER NOT NULL, recorded_to INTEGER);
CREATE TABLE freshness_history (evidence_id VARCHAR, source VARCHAR, warn_after_hours DOUBLE,
  error_after_hours DOUBLE, loaded_at TIMESTAMPTZ, observed_at TIMESTAMPTZ,
  recorded_from INTEGER NOT NULL, recorded_to INTEGER);
-- Every object ever recorded, with the ACL of its latest revision at this file's ingest (today's permissions
-- for every past state; rewritten by each ingest, so it grows with objects, not with ingests).
CREATE TABLE latest_acl (evidence_id VARCHAR PRIMARY KEY, acl VARCHAR[] NOT NULL, acl_revision VARCHAR NOT NULL);
"""
# The tables each object revision writes rows to, closed together when the revision is replaced or removed.
DERIVED_HISTORY = ("aliases", "links", "lineage_edges", "freshness")
# Bump when the rows an object writes (`_rows`) change for the same document: a re-ingest copies an unchanged
# object's rows from the previous file only when that file says it was written by the same `_rows` (`_kept`).
ROWS_VERSION = "1"
EVIDENCE_COLUMNS = ("entity_id, kind, title, text, version, authority, lifecycle, authority_class, valid_from, "
                    "valid_to, recorded_at, expires_at, owner")


class DatabaseError(Exception):
    """The catalog database cannot be opened or written; the message names the file and why."""


def check_db_path(db_path: str | Path) -> None:
    """Refuse, before any work, a --db that cannot hold a database file."""
    db_path = Path(db_path)
    if db_path.is_dir():
        raise DatabaseError(f"{db_path} is a folder; --db names the database file to create or replace "
                            f"(for example {db_path / 'catalog.duckdb'})")
    if db_path.exists() and not db_path.is_file():
        raise DatabaseError(f"{db_path} is not a regular file; --db names the database file to create or replace")
    for parent in db_path.parents:
        if parent.exists():
            if not parent.is_dir():
                raise DatabaseError(f"cannot create {db_path}: {parent} is a file, not a folder")
            break


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's live process
    return True


def clean_stale_temp(db_path: str | Path) -> list[Path]:
    """Remove temporary files (and set-aside index folders) left by an ingest killed with SIGKILL:
    only those whose process id is no longer running, so a concurrent ingest keeps its own."""
    import re
    import shutil
    db_path = Path(db_path)
    if not db_path.parent.is_dir():
        return []
    pattern = re.compile(rf"^\.{re.escape(db_path.name)}\.tmp-(\d+)(\.wal|\.spill)?$|"
                         rf"^\.{re.escape(db_path.with_suffix('.lance').name)}\.broken-(\d+)$")
    removed = []
    for entry in db_path.parent.iterdir():
        m = pattern.match(entry.name)
        if not m:
            continue
        pid = int(m.group(1) or m.group(3))
        if pid == os.getpid() or _pid_alive(pid):
            continue
        try:
            shutil.rmtree(entry) if entry.is_dir() and not entry.is_symlink() else entry.unlink()
            removed.append(entry)
        except OSError:
            pass  # not ours to force; it breaks nothing (readers never look at temp names)
    return removed


def write_catalog(catalog: Catalog, db_path: str | Path, source: str = "", index_version: int | None = None) -> str:
    """Replace the database at db_path with this catalog; returns the catalog revision.

    `index_version` records that an index was written for this revision (readers then report a missing
    index instead of silently answering without one). Any OS or DuckDB failure (read-only folder, full
    disk) raises DatabaseError and leaves the previous database as it was."""
    with collector_paused():
        return _write_catalog(catalog, Path(db_path), source, index_version)


def _write_catalog(catalog: Catalog, db_path: Path, source: str, index_version: int | None) -> str:
    check_db_path(db_path)
    tmp = db_path.with_name(f".{db_path.name}.tmp-{os.getpid()}")
    revision = catalog.revision()
    try:
        db_path.parent.mkdir(parents=True, exist_ok=True)
        clean_stale_temp(db_path)
        spill = tmp.with_name(tmp.name + ".spill")
        for stale in (tmp, tmp.with_name(tmp.name + ".wal")):
            stale.unlink(missing_ok=True)
        shutil.rmtree(spill, ignore_errors=True)
        try:
            # No reader opens this file until it is renamed into place, and a failure removes it: so the rows are
            # committed in parts (_insert), never one transaction of every row, and DuckDB works within WRITE_MEMORY,
            # spilling to `spill`. Its default budget (80% of RAM) kept every page it wrote.
            con = duckdb.connect(str(tmp), config={"memory_limit": WRITE_MEMORY, "temp_directory": str(spill)})
            try:
                con.execute(SCHEMA)
                con.execute(HISTORY_SCHEMA)
                now = datetime.now(timezone.utc)
                ingest = _carry_history(con, db_path)
                kept = _kept(con, db_path, catalog.evidence)
                _insert(con, catalog, revision, source, now, ingest, index_version, kept)
                con.execute(LOOKUP_INDEXES)
                _record_ingest(con, ingest, now, revision, source, len(catalog.evidence))
                con.execute("CHECKPOINT")
            finally:
                con.close()
            os.chmod(tmp, 0o600)  # the catalog holds every role's text: owner only, whatever the umask
            os.replace(tmp, db_path)
            Path(str(db_path) + ".wal").unlink(missing_ok=True)
        finally:
            for leftover in (tmp, tmp.with_name(tmp.name + ".wal")):
                try:
                    leftover.unlink(missing_ok=True)
                except OSError:
                    pass
            shutil.rmtree(spill, ignore_errors=True)
    except (OSError, duckdb.Error) as exc:
        reason = getattr(exc, "strerror", None) or str(exc).splitlines()[0][:300]
        raise DatabaseError(f"could not write the catalog database {db_path}: {reason}; "
                            "the previous database is unchanged") from exc
    return revision


def _carry_history(con: duckdb.DuckDBPyConnection, db_path: Path) -> int:
    """Copy the previous database's history into the new file; returns this ingest's number.

    A previous file of schema 5 (history without the derived rows) has them derived once, here, from each
    revision's document; one without history (an older schema) contributes its catalog as ingest 1; an
    unreadable one is replaced whole, as before, and the history starts again.
    """
    if not db_path.exists():
        return 1
    try:
        con.execute(f"ATTACH '{str(db_path).replace(chr(39), chr(39) * 2)}' AS prev (READ_ONLY)")
    except duckdb.Error:
        return 1
    history = ["ingests", "evidence_history", *(f"{t}_history" for t in DERIVED_HISTORY)]
    keyed = "evidence_id, content_hash, acl_revision, acl, doc, recorded_from, recorded_to"
    try:
        tables = {t for (t,) in con.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_catalog = 'prev'").fetchall()}
        if set(history) <= tables:
            for table in history:
                con.execute(f"INSERT INTO {table} SELECT * FROM prev.{table}")
        elif {"ingests", "evidence_history"} <= tables:
            con.execute("INSERT INTO ingests SELECT * FROM prev.ingests")
            con.execute(f"INSERT INTO evidence_history ({keyed}) SELECT {keyed} FROM prev.evidence_history")
        elif {"evidence", "meta"} <= tables:
            meta = dict(con.execute("SELECT key, value FROM prev.meta").fetchall())
            con.execute("INSERT INTO ingests VALUES (1, ?, ?, ?, ?)", [
                meta.get("ingested_at") or datetime.now(timezone.utc), meta.get("catalog_revision", "unknown"),
                meta.get("source", ""), int(meta.get("object_count") or 0)])
            con.execute(f"""INSERT INTO evidence_history ({keyed}) SELECT evidence_id, content_hash, acl_revision,
                            acl, doc, 1, NULL FROM prev.evidence""")
    except duckdb.Error:
        _forget_history(con)
    finally:
        con.execute("DETACH prev")
    try:
        _derive_history(con)
    except (duckdb.Error, ValueError):  # a recorded document today's model cannot read: unreadable history
        _forget_history(con)
    return (con.execute("SELECT max(ingest) FROM ingests").fetchone()[0] or 0) + 1


def _forget_history(con: duckdb.DuckDBPyConnection) -> None:
    for table in ("ingests", "evidence_history", *(f"{t}_history" for t in DERIVED_HISTORY)):
        con.execute(f"DELETE FROM {table}")


def _derive_history(con: duckdb.DuckDBPyConnection) -> None:
    """Fill the evidence columns and derived rows of revisions carried from an older file (one read of each
    recorded document, once: later ingests copy the rows)."""
    todo = con.execute("SELECT evidence_id, recorded_from, recorded_to, doc FROM evidence_history "
                       "WHERE entity_id IS NULL").fetchall()
    if not todo:
        return
    columns, derived = [], {t: [] for t in DERIVED_HISTORY}
    for evidence_id, start, end, doc in todo:
        rows = _rows([Evidence.model_validate_json(doc)])
        columns.append((evidence_id, start, *rows["evidence"][0][1:13], rows["evidence"][0][14]))
        for table in DERIVED_HISTORY:
            derived[table] += [(*r[:5], *r[6:], start, end) if table == "lineage_edges" else (*r, start, end)
                               for r in rows[table]]
    names = ["evidence_id", "recorded_from", *EVIDENCE_COLUMNS.split(", ")]
    batch = pa.Table.from_pylist([dict(zip(names, r)) for r in columns])  # noqa: F841 (scanned by DuckDB)
    con.execute(f"""UPDATE evidence_history h SET {', '.join(f"{c} = b.{c}" for c in names[2:])} FROM batch b
                    WHERE h.evidence_id = b.evidence_id AND h.recorded_from = b.recorded_from""")
    for table, data in derived.items():
        _many(con, f"{table}_history", data)


def _record_ingest(con: duckdb.DuckDBPyConnection, ingest: int, now: datetime, revision: str, source: str,
                   count: int) -> None:
    """Close the revisions this ingest replaced (or removed) and add the ones it introduced, each with the rows
    it put in the derived tables: history grows with what changed, not with ingests times objects."""
    same = ("e.evidence_id = h.evidence_id AND e.content_hash = h.content_hash "
            "AND e.acl_revision = h.acl_revision")
    con.execute(f"""CREATE TEMP TABLE closing AS SELECT evidence_id FROM evidence_history h
                    WHERE recorded_to IS NULL AND NOT EXISTS (SELECT 1 FROM evidence e WHERE {same})""")
    for table in ("evidence", *DERIVED_HISTORY):
        con.execute(f"""UPDATE {table}_history SET recorded_to = ? WHERE recorded_to IS NULL
                        AND evidence_id IN (SELECT evidence_id FROM closing)""", [ingest])
    con.execute(f"""CREATE TEMP TABLE opening AS SELECT evidence_id FROM evidence e WHERE NOT EXISTS (
                      SELECT 1 FROM evidence_history h WHERE h.recorded_to IS NULL AND {same})""")
    new = "WHERE evidence_id IN (SELECT evidence_id FROM opening)"
    for table, select in (
            ("evidence", f"evidence_id, content_hash, acl_revision, acl, doc, ?, NULL, {EVIDENCE_COLUMNS}"),
            ("aliases", "entity_id, alias, evidence_id, ?, NULL"),
            ("links", "evidence_id, link_type, target, ?, NULL"),
            ("lineage_edges", "evidence_id, upstream, downstream, upstream_column, downstream_column, governs, "
                              "valid_from, valid_to, ?, NULL"),
            ("freshness", "evidence_id, source, warn_after_hours, error_after_hours, loaded_at, observed_at, ?, "
                          "NULL")):
        con.execute(f"INSERT INTO {table}_history SELECT {select} FROM {table} {new}", [ingest])
    con.execute("DROP TABLE closing")
    con.execute("DROP TABLE opening")
    # In id order: a grouping's order is the hash table's, and two writes of the same catalog must give the same file.
    con.execute("""INSERT INTO latest_acl SELECT evidence_id, arg_max(acl, recorded_from),
                   arg_max(acl_revision, recorded_from) FROM evidence_history GROUP BY evidence_id ORDER BY evidence_id""")
    con.execute("INSERT INTO ingests VALUES (?, ?, ?, ?, ?)", [ingest, now, revision, source, count])


def _kept(con: duckdb.DuckDBPyConnection, db_path: Path, evidence) -> bytes | None:
    """Per object (in catalog order), 1 when the database being replaced holds its rows as this write would
    build them; the file stays attached as `prev` for `_insert` to copy them from. None (build every row) for a
    catalog that is not kept on disk, without a readable previous file, or written by other row-building code.

    An object is kept when the previous file's document for its id is the very JSON the ingest just validated
    (MD5 of the spilled text against md5(doc)): every row an object writes is built from that document alone
    (`_rows`), so a kept object is neither read back, parsed nor rebuilt: at 1% changed that was most of a
    re-ingest's DuckDB phase (docs/scale.md)."""
    digest = getattr(evidence, "digest", None)
    if digest is None or not len(evidence) or not db_path.exists():
        return None
    try:
        con.execute(f"ATTACH '{str(db_path).replace(chr(39), chr(39) * 2)}' AS prev (READ_ONLY)")
    except duckdb.Error:
        return None
    try:
        written = dict(con.execute("SELECT key, value FROM prev.meta WHERE key IN "
                                   "('schema_version', 'rows_version')").fetchall())
        if written != {"schema_version": SCHEMA_VERSION, "rows_version": ROWS_VERSION}:
            raise duckdb.InvalidInputException("written by other row-building code")
        con.execute("CREATE TEMP TABLE incoming (seq INTEGER, evidence_id VARCHAR, digest VARCHAR)")
        keys = evidence_keys(evidence)
        for start in range(0, len(keys), KEYS_BATCH):
            stop = min(len(keys), start + KEYS_BATCH)
            batch = pa.table({"seq": pa.array(range(start, stop), pa.int32()),  # noqa: F841 (scanned by DuckDB)
                              "evidence_id": [k[0] for k in keys[start:stop]],
                              "digest": [digest(i) for i in range(start, stop)]})
            con.execute("INSERT INTO incoming SELECT * FROM batch")
        con.execute("CREATE TEMP TABLE kept AS SELECT i.seq, i.evidence_id FROM incoming i "
                    "JOIN prev.evidence p ON p.evidence_id = i.evidence_id WHERE md5(p.doc) = i.digest")
        con.execute("DROP TABLE incoming")
        seqs = con.execute("SELECT seq FROM kept").fetchnumpy()["seq"]
    except duckdb.Error:
        con.execute("DROP TABLE IF EXISTS temp.incoming")
        con.execute("DROP TABLE IF EXISTS temp.kept")
        con.execute("DETACH prev")
        return None
    flags = np.zeros(len(keys), np.uint8)  # a byte an object, never a Python int per kept one
    flags[seqs] = 1
    return flags.tobytes()


def _stage(con: duckdb.DuckDBPyConnection, staged: dict[str, list[tuple]]) -> None:
    for table, rows in staged.items():
        _many(con, f"new_{table}", rows)
        rows.clear()


def _insert_kept(con: duckdb.DuckDBPyConnection, evidence, kept: bytes) -> None:
    """The current tables' rows: a kept object's copied from `prev` in SQL, the others' built from their objects
    (read back from the spill in runs), merged in catalog order as a fresh write lays them out."""
    for table in CURRENT:
        con.execute(f"CREATE TEMP TABLE new_{table} AS SELECT 0::INTEGER AS _seq, * FROM {table} LIMIT 0")
    staged: dict[str, list[tuple]] = {t: [] for t in CURRENT}
    held = 0
    for start, stop in unflagged_runs(kept, INSERT_BATCH):
        for seq, ev in enumerate(evidence[start:stop], start):
            for table, rows in _rows([ev]).items():
                if table in staged:
                    staged[table] += [(seq, *r) for r in rows]
        held += stop - start
        if held >= INSERT_BATCH:
            _stage(con, staged)
            held = 0
    _stage(con, staged)
    for table in CURRENT:
        columns = [d[0] for d in con.execute(f"SELECT * FROM {table} LIMIT 0").description]
        listed = ", ".join(columns)
        from_prev = ", ".join(f"p.{c}" for c in columns)
        # Within an object its rows keep their order: the previous file's row order, or the order they were built.
        con.execute(f"INSERT INTO {table} SELECT {listed} FROM ("
                    f"SELECT k.seq AS _seq, p.rowid AS _row, {from_prev} FROM prev.{table} p "
                    f"JOIN kept k ON p.evidence_id = k.evidence_id "
                    f"UNION ALL SELECT _seq, rowid, {listed} FROM new_{table}) ORDER BY _seq, _row")
        con.execute(f"DROP TABLE new_{table}")
    con.execute("DROP TABLE kept")
    con.execute("DETACH prev")


def _insert_built(con: duckdb.DuckDBPyConnection, evidence) -> None:
    """The current tables' rows, every object's built. A batch of objects at a time: the rows of every object at once
    (a tuple each, the JSON document, then an Arrow copy) were most of a large ingest's peak memory (docs/scale.md,
    "Bounded memory")."""
    for start in range(0, len(evidence), INSERT_BATCH):
        if start % COMMIT_OBJECTS == 0:
            con.execute("BEGIN")
        for table, data in _rows(evidence[start:start + INSERT_BATCH]).items():
            if table != "entities":
                _many(con, table, data)
        if (start + INSERT_BATCH) % COMMIT_OBJECTS == 0 or start + INSERT_BATCH >= len(evidence):
            con.execute("COMMIT")


def _insert(con: duckdb.DuckDBPyConnection, catalog: Catalog, revision: str, source: str,
            now: datetime | None = None, ingest: int | None = None, index_version: int | None = None,
            kept: bytes | None = None) -> None:
    now = now or datetime.now(timezone.utc)
    con.executemany("INSERT INTO meta VALUES (?, ?)", [
        ("catalog_revision", revision), ("ingested_at", now.isoformat(timespec="seconds")), ("source", source),
        ("schema_version", SCHEMA_VERSION), ("rows_version", ROWS_VERSION), ("ingest", str(ingest or "")),
        ("warnings", json.dumps(catalog.warnings)), ("object_count", str(len(catalog.evidence))),
        ("index_version", "" if index_version is None else str(index_version)),
        ("fiscal_year_start_month", str(catalog.settings.fiscal_year_start_month)),
        ("evaluation_time", catalog.settings.evaluation_time.isoformat() if catalog.settings.evaluation_time else "")])
    _many(con, "roles", [(r.name, r.description, r.steward) for r in catalog.roles])
    _many(con, "principals", [(p.name, r) for p in catalog.principals for r in p.roles])
    if kept is None:
        _insert_built(con, catalog.evidence)
    else:
        _insert_kept(con, catalog.evidence, kept)
    # Each entity's kinds from the rows just written (in the order entities first appear), not a dict of every
    # entity held while the batches go by.
    con.execute("""INSERT INTO entities SELECT entity_id, list(DISTINCT kind ORDER BY kind) FROM
                   (SELECT entity_id, kind, rowid AS r FROM evidence) GROUP BY entity_id ORDER BY min(r)""")


# Objects whose rows are built and inserted at a time.
INSERT_BATCH = 5_000
# Objects whose rows are committed at a time. The file is renamed into place only once complete, so a commit part way
# is not seen by any reader; what it bounds is the rows a transaction holds. One transaction of every row kept 4.3 GB
# at a million objects (docs/scale.md, "Bounded memory"); a statement each (autocommit) took a third longer.
COMMIT_OBJECTS = 100_000
# Objects whose keys are handed to DuckDB at a time when it finds the ones it can copy (`_kept`).
KEYS_BATCH = 100_000
# The tables whose rows each object writes (one `_rows` call), copied for kept objects.
CURRENT = ("evidence", "acl", "aliases", "links", "lineage_edges", "freshness")
# DuckDB's memory while it writes a catalog file; beyond it, pages go to a spill folder beside the file.
WRITE_MEMORY = "256MB"


def _rows(evidence: list[Evidence]) -> dict[str, list[tuple]]:
    """The rows these objects put in each current table (in the tables' column order)."""
    rows, acl, aliases, links, edges, fresh = [], [], [], [], [], []
    kinds: dict[str, set[str]] = {}
    for ev in evidence:
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
    return {"evidence": rows, "acl": acl, "aliases": aliases, "links": links, "lineage_edges": edges,
            "freshness": fresh, "entities": [(k, sorted(v)) for k, v in kinds.items()]}


def _many(con: duckdb.DuckDBPyConnection, table: str, rows: list[tuple]) -> None:
    """Bulk insert through Arrow: row-by-row executemany takes minutes on 100k objects."""
    if not rows:
        return
    # The table's columns as its name resolves (a temporary staging table too; never an attached file's table).
    columns = [d[0] for d in con.execute(f"SELECT * FROM {table} LIMIT 0").description]
    # Column by column: a dict per row (from_pylist) cost more than the insert itself at 100k objects.
    batch = pa.Table.from_arrays([pa.array(list(c)) for c in zip(*rows)], names=columns)  # noqa: F841 (scanned)
    con.execute(f"INSERT INTO {table} SELECT {', '.join(columns)} FROM batch")


# A catalog file is data, never a program: a served revision is written by someone else (core/serve/replica.py), and a
# view in it calling read_text() or read_csv() would read the replica's own files and show them as catalog text. So
# the connection reading it has no file system, no extension loading, and a configuration no statement can change.
DATA_ONLY = {"autoload_known_extensions": False, "autoinstall_known_extensions": False}
LOCKED = ("SET enable_external_access = false", "SET lock_configuration = true")


def open_data_file(path: str | Path) -> duckdb.DuckDBPyConnection:
    """A DuckDB file attached read-only (as `catalog`) to a private in-memory database that can read nothing else.

    `duckdb.connect(path)` shares one database instance per path within a process, so after a
    re-ingest renames a new file over the old one, a new connection would still read the old file
    while any Store holds it open. Attaching opens the file that is at the path now. External access is
    switched off only after the ATTACH (which is itself file access), then the configuration is locked.
    """
    con = duckdb.connect(":memory:", config=DATA_ONLY)
    try:
        literal = "'" + str(path).replace("'", "''") + "'"
        con.execute(f"ATTACH {literal} AS catalog (READ_ONLY)")
        con.execute("USE catalog")
        for statement in LOCKED:
            con.execute(statement)
    except BaseException:
        con.close()
        raise
    return con


@functools.cache
def _declared() -> frozenset[tuple[str, str, str, str | None]]:
    """(table, column, type, default) of every column the schema creates, as DuckDB reports them."""
    con = duckdb.connect(":memory:", config=DATA_ONLY)
    try:
        con.execute(SCHEMA)
        con.execute(HISTORY_SCHEMA)
        return frozenset(con.execute("""SELECT table_name, column_name, data_type, column_default FROM duckdb_columns()
                                        WHERE database_name = 'memory'""").fetchall())
    finally:
        con.close()


def undeclared(con: duckdb.DuckDBPyConnection) -> list[str]:
    """What the attached `catalog` holds beyond the tables and columns the schema declares: views, macros, other
    tables, other schemas, changed or generated columns (anything that could run when a table is read)."""
    found = []
    for (name,) in con.execute("""SELECT schema_name || '.' || view_name FROM duckdb_views()
                                  WHERE database_name = 'catalog' ORDER BY 1""").fetchall():
        found.append(f"view {name}")
    for name, kind in con.execute("""SELECT DISTINCT schema_name || '.' || function_name, function_type
                                     FROM duckdb_functions() WHERE database_name = 'catalog' ORDER BY 1""").fetchall():
        found.append(f"{kind.replace('_', ' ')} {name}")
    for (name,) in con.execute("""SELECT schema_name FROM duckdb_schemas() WHERE database_name = 'catalog'
                                  AND schema_name <> 'main' ORDER BY 1""").fetchall():
        found.append(f"schema {name}")
    declared = _declared()
    tables = {t for t, _, _, _ in declared}
    for schema, table, column, kind, default in con.execute(
            """SELECT schema_name, table_name, column_name, data_type, column_default FROM duckdb_columns()
               WHERE database_name = 'catalog' ORDER BY table_name, column_index""").fetchall():
        if schema != "main" or table not in tables:
            found.append(f"table {schema}.{table}")
        elif (table, column, kind, default) not in declared:
            found.append(f"column {table}.{column} ({kind}{', computed' if default is not None else ''})")
    return list(dict.fromkeys(found))


# Above this many objects a Store reads its documents by key through SQL rather than holding them (LargeRows, not
# MemoryRows): held, they cost ~3.9 KB an object (385 MB and 1.4 s at 100,000 objects, docs/scale.md
# "Answering at a million"), ~4 GB at 1M, where a keyed read costs a few ms (2-7 ms measured at 2,440 objects).
MEMORY_ROWS_UP_TO = 250_000


class Store:
    """Read access to an ingested catalog. Every evidence read is scoped to one role.

    One Store serves every thread of the app. A DuckDB connection must not run queries from two
    threads at once (one thread can fetch the other's result), so each thread reads through its
    own cursor of the one read-only connection. The file is opened once: a re-ingest replaces it by
    rename, and this Store keeps answering from the revision it opened, never a mix.
    """

    def __init__(self, db_path: str | Path):
        self.path = Path(db_path)
        if not self.path.exists():
            raise FileNotFoundError(f"no catalog database at {self.path}; run `python -m core ingest` first")
        again = f"; run `python -m core ingest CATALOG --db {self.path}` to write it again"
        if not self.path.is_file():
            raise DatabaseError(f"{self.path} is {'a folder' if self.path.is_dir() else 'not a regular file'}, "
                                f"not a catalog database{again}")
        if self.path.stat().st_size == 0:
            raise DatabaseError(f"{self.path} is empty, not a catalog database{again}")
        try:
            self._con = open_data_file(self.path)
        except duckdb.Error as exc:
            raise DatabaseError(f"{self.path} is not a readable DuckDB catalog database "
                                f"({str(exc).splitlines()[0][:200]}){again}") from exc
        self._local = threading.local()
        self._lock = threading.Lock()
        self.views: dict = {}  # (role, grants) -> that view of this file (core/catalog/access.py fills it)
        self._rows_lock = threading.Lock()
        try:
            found = dict(self._con.execute("SELECT key, value FROM meta").fetchall()).get("schema_version")
        except duckdb.Error as exc:
            self._con.close()
            raise DatabaseError(f"{self.path} is a DuckDB file but not an AsOf catalog "
                                f"({str(exc).splitlines()[0][:200]}){again}") from exc
        if found != SCHEMA_VERSION:
            self._con.close()
            raise FileNotFoundError(f"{self.path} was written by an older AsOf (schema {found}, need "
                                    f"{SCHEMA_VERSION}); run `python -m core ingest CATALOG --db {self.path}` again")
        try:
            self._meta, self._roles = self._read_meta(), self._read_roles()
        except duckdb.Error as exc:  # a file cut short past its first blocks fails here, not at ATTACH
            self._con.close()
            raise DatabaseError(f"{self.path} is not a readable DuckDB catalog database "
                                f"({str(exc).splitlines()[0][:200]}){again}") from exc

    @property
    def con(self) -> duckdb.DuckDBPyConnection:
        """This thread's cursor (a connection of its own to the same database)."""
        cur = getattr(self._local, "cursor", None)
        if cur is None:
            with self._lock:
                cur = self._con.cursor()
            cur.execute("USE catalog")
            self._local.cursor = cur
        return cur

    def close(self) -> None:
        self._con.close()

    def check_declared(self) -> None:
        """Raise DatabaseError unless the file holds only the schema's tables and columns (a served revision)."""
        extra = undeclared(self._con)
        if extra:
            raise DatabaseError(f"{self.path} holds what an AsOf catalog never does: {', '.join(extra[:5])}"
                                f"{f' and {len(extra) - 5} more' if len(extra) > 5 else ''}")

    @property
    def rows(self) -> MemoryRows | LargeRows:
        """The rows answers read by key (core/catalog/rows.py), read from this file on first use, outside the asking
        question's time budget: like loading the embedding model (about 1 s at 100,000 objects). Read once per
        Store however many threads ask at first, and never while holding a lock another Store needs.
        From MEMORY_ROWS_UP_TO objects on, documents are read through SQL instead: the same rows, a few ms a read."""
        rows = self.__dict__.get("_rows")
        if rows is None:
            with self._rows_lock:
                rows = self.__dict__.get("_rows")
                if rows is None:
                    with budget.not_counted():
                        rows = self.__dict__["_rows"] = (
                            LargeRows(lambda: self.con, lambda: catalog_facts(self))
                            if int(self._meta.get("object_count") or 0) > MEMORY_ROWS_UP_TO else MemoryRows(self.con))
        return rows

    # The file is opened read-only, so meta and roles are read once, in __init__, not on every question.
    def _read_meta(self) -> dict[str, str]:
        return dict(self._con.execute("SELECT key, value FROM meta").fetchall())

    def meta(self) -> dict[str, str]:
        return dict(self._meta)

    @property
    def revision(self) -> str:
        return self._meta["catalog_revision"]

    @property
    def fiscal_year_start_month(self) -> int:
        """The catalog's `settings.fiscal_year_start_month` (1, a calendar fiscal year, when not set)."""
        return int(self._meta.get("fiscal_year_start_month") or 1)

    @property
    def clock(self) -> datetime | None:
        """The catalog's `settings.evaluation_time` (a demo's fixed clock), or None: the real clock."""
        value = self._meta.get("evaluation_time")
        return datetime.fromisoformat(value) if value else None

    def now(self) -> datetime:
        """When freshness is evaluated unless someone says otherwise: the catalog's clock, else the wall clock."""
        return self.clock or datetime.now(timezone.utc)

    def _read_roles(self) -> list[Role]:
        return [Role(name=n, description=d or "", steward=bool(st)) for n, d, st in
                self._con.execute("SELECT role, description, steward FROM roles ORDER BY role").fetchall()]

    def roles(self) -> list[Role]:
        return list(self._roles)

    def principal_roles(self, principal: str) -> list[str]:
        """The roles a catalog principal holds (identity modes map a signed-in user to one)."""
        return [r for (r,) in self.con.execute(
            "SELECT DISTINCT role FROM principals WHERE principal = ? ORDER BY role", [principal]).fetchall()]

    def principals(self) -> dict[str, list[str]]:
        """Principal name -> its roles, in catalog order (core/auth maps signed-in users onto these; the
        first role is the CLI's default)."""
        out: dict[str, list[str]] = {}
        for name, role in self.con.execute("SELECT principal, role FROM principals ORDER BY rowid").fetchall():
            out.setdefault(name, []).append(role)
        return out

    def all_evidence_for_review(self) -> list[Evidence]:
        """Unscoped read for catalog stewards' review queue; never on the answer path."""
        return [Evidence.model_validate_json(doc) for (doc,) in
                self.con.execute("SELECT doc FROM evidence ORDER BY evidence_id").fetchall()]

    def upstream_closure(self, starts: list[str], role: str, day, max_depth: int = 25,
                         direction: str = "upstream", grants: frozenset[str] = frozenset()) -> list[tuple]:
        """Upstream lineage from `starts` over edges the role may see and that are in effect on `day`.

        Only authoritative, non-draft lineage objects count. Returns (upstream, downstream,
        [evidence_ids carrying that edge], depth) rows. The path check and depth cap make it
        terminate on cyclic graphs.
        """
        if not starts:
            return []
        # Downstream is the same walk over reversed edges.
        near, far = ("upstream", "downstream") if direction == "upstream" else ("downstream", "upstream")
        # One lookup per step for the edges out of the nodes reached so far: a recursive query over every edge the
        # role may see read all of them (29 ms a question at 100k objects).
        edges: list[tuple[str, str, str]] = []
        reach, frontier = set(starts), set(starts)
        for _ in range(max_depth):
            if not frontier:
                break
            rows = [(e.upstream, e.downstream, e.evidence_id) for e in self.rows.edges(far, frontier, role, grants)
                    if e.in_effect(day)]
            edges += rows
            found = {row[0] if near == "upstream" else row[1] for row in rows}
            frontier = found - reach
            reach |= found
        return walk(edges, starts, max_depth, upstream=near == "upstream")

    def column_edges(self, role: str, day, nodes: list[str], grants: frozenset[str] = frozenset()) -> list[tuple]:
        """Column-level edges into `nodes` the role may see and that are in effect on `day`:
        (upstream, upstream_column, downstream, downstream_column, evidence_id)."""
        rows = {(e.upstream, e.upstream_column, e.downstream, e.downstream_column, e.evidence_id)
                for e in self.rows.edges("downstream", nodes, role, grants)
                if e.downstream_column is not None and e.in_effect(day)}
        return sorted(rows, key=lambda r: tuple((r[k] is None, r[k] or "") for k in (2, 3, 0, 1, 4)))

    def table_edges_into(self, nodes: list[str], day, role: str,
                         grants: frozenset[str] = frozenset()) -> list[tuple[str, str]]:
        """Every governing table edge into `nodes` in effect on `day` that an object the view may see carries,
        whatever the edge's ends: only compared with what a role was shown, to say that lineage continues
        beyond it (never shown, named or counted). An edge carried by a hidden object is as absent as the
        object: counting it would tell a hidden lineage object from a missing one."""
        return sorted({(e.upstream, e.downstream) for e in self.rows.edges("downstream", nodes, role, grants)
                       if e.upstream_column is None and e.in_effect(day)})

    def hidden_ids(self, role: str, ids: set[str], grants: frozenset[str] = frozenset()) -> set[str]:
        """Which of these ids name objects the role may not see (used only to redact, never shown)."""
        return {i for i, visible in self.carriers(ids, role, grants).items() if not visible}

    def unseen_ids(self, role: str, ids: set[str], grants: frozenset[str] = frozenset(),
                   carried: dict[str, bool] | None = None) -> set[str]:
        """Which of these referenced ids a visible object may not name for the role: hidden ones, and absent
        ones that look exactly like them. A catalog read from dbt has an object for every node, so a
        reference in a namespace where the role sees objects (`model.jaffle_shop.`) that no object carries
        was removed or is hidden: both are cut alike, and a reference never tells a hidden target from a
        missing one. Names that hand-written or OpenLineage lineage uses for nodes that are no objects
        (`model.stg_orders`, `source.raw_app.orders`, `dataset:...`) are names in edges and stay."""
        refs = {i for i in ids if not i.startswith("dataset:")}
        if not refs:
            return set()
        # `carried`: carriers() of these ids, when the caller already knows them (a view keeps them).
        carried = self.carriers(refs, role, grants) if carried is None else carried
        absent = {i for i in refs if i not in carried}
        spaces = {_namespace(i) for i in absent} - {None}
        if spaces:
            spaces = self._namespaces(role, frozenset(grants)) & spaces
        return {i for i in refs if i in carried and not carried[i]} | {i for i in absent if _namespace(i) in spaces}

    def carriers(self, ids, role: str, grants: frozenset[str] = frozenset()) -> dict[str, bool]:
        """For each of these ids that some object carries (as its evidence id or entity id): whether an object
        the role may see carries it. Ids no object carries are left out."""
        return self.rows.carriers(ids, role, grants)

    def _namespaces(self, role: str, grants: frozenset[str]) -> set[str]:
        """The id namespaces (`model.jaffle_shop`) of the objects a view sees: a scan of every visible id, so
        kept per view (the file is read-only while open)."""
        cache = self.__dict__.setdefault("_namespace_cache", {})
        key = (role, grants)
        if key not in cache:
            cache[key] = {sp for (sp,) in self.con.execute(
                "SELECT DISTINCT regexp_extract(evidence_id, '^([^.]+[.][^.]+)[.]', 1) FROM evidence "
                f"WHERE {acl_sql()}", [role, sorted(grants)]).fetchall()}
        return cache[key]


def _namespace(object_id: str) -> str | None:
    """`model.jaffle_shop` of `model.jaffle_shop.orders`: the resource type and project of a dbt unique id."""
    parts = object_id.split(".")
    return ".".join(parts[:2]) if len(parts) >= 3 else None
