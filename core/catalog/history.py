"""Transaction time: the catalog as it stood at a past moment ("as recorded on", "as we knew it on").

Each ingest keeps, for every object revision it introduces, the rows that revision put in the current tables
(`evidence_history` and the `*_history` tables, core/catalog/store.py). A past state is read from them in
place: `PastStore` is a set of views over the open file, named like the current tables and selecting the rows
alive at that ingest, so it is a `Store` and everything after it (Visible, the resolver, lineage, freshness)
reads it unchanged. Opening one validates nothing and copies only the revisions replaced since that ingest,
whatever the catalog's size. The current-state read path never touches the history tables.

Permissions are always today's: a past object carries the ACL of its latest revision at the permission
ingest (today's for a question; the one in force when a recorded answer was given, for an audit replay),
never the ACL it had at the past moment. So an object a role may not see now stays hidden in every past
state, and one it may see now shows only the content recorded then. The search index keeps only current
content, so past states are answered from the catalog's names and rules alone.
"""
from __future__ import annotations

import threading
import weakref
from dataclasses import dataclass
from datetime import datetime
from functools import cached_property

from core.catalog.access import visible
from core.catalog.rows import SqlRows
from core.catalog.store import Store

KEEP_PAST_STATES = 4  # past states kept per open database with their per-role caches; the views (and the few
# rows copied for them) stay defined until the Store closes, and serve the state again when it is asked for


class NothingRecorded(ValueError):
    """The moment asked about is before the catalog's first ingest."""

    def __init__(self, message: str, at: datetime):
        super().__init__(message)
        self.at = at


@dataclass(frozen=True)
class Ingest:
    number: int
    ingested_at: datetime
    revision: str
    source: str
    object_count: int


class PastStore(Store):
    """The catalog as recorded at one ingest, with the permissions of another: views over the parent's file.

    The views live in a schema of the parent's in-memory database (shared by every cursor of its connection,
    which temporary views are not), so a past state reads exactly the file the parent opened, even after a
    re-ingest renamed a new one over it."""

    def __init__(self, parent: Store, ingest: Ingest, acl_ingest: int):
        self.path, self.ingest, self.acl_ingest = parent.path, ingest, acl_ingest
        self.views: dict = {}
        self._parent_con = parent._con
        self._local = threading.local()
        self._lock = threading.Lock()
        self.schema = f"past_{ingest.number}_{acl_ingest}"
        meta = parent.meta()
        # The catalog's settings (fiscal year, clock) are not recorded per ingest: a past state keeps today's.
        meta.update(catalog_revision=ingest.revision, ingested_at=ingest.ingested_at.isoformat(timespec="seconds"),
                    source=ingest.source, ingest=str(ingest.number), warnings="[]",
                    object_count=str(ingest.object_count), index_version="")
        with parent._lock:
            con = parent._con.cursor()
        try:
            _define_views(con, self.schema, ingest.number, acl_ingest, current_ingest(parent), meta)
        finally:
            con.close()
        self._meta, self._roles = meta, parent.roles()

    @property
    def con(self):
        # One cursor per thread: the app answers questions from several threads at once.
        cur = getattr(self._local, "cursor", None)
        if cur is None:
            with self._lock:
                cur = self._parent_con.cursor()
            cur.execute(f"USE memory.{self.schema}")
            self._local.cursor = cur
        return cur

    def close(self) -> None:
        """The views belong to the parent's connection and close with it."""

    @cached_property
    def rows(self) -> SqlRows:
        """Read through the views on every call: loading a past state's rows would rebuild it in memory."""
        return SqlRows(lambda: self.con)


def _define_views(con, schema: str, k: int, acl_ingest: int, file_ingest: int | None, meta: dict[str, str],
                  in_place: bool | None = None) -> None:
    """Views named like the current tables, selecting the rows alive at ingest `k`, each object with the ACL of
    its latest revision at `acl_ingest`.

    When the permissions are the file's own (every question; `in_place`), an object whose revision is still
    current is read from today's tables, which already hold today's ACL and are indexed, and only the revisions
    replaced since `k` are copied, once, into small tables beside the views: opening costs what changed since,
    not the catalog's size. Otherwise (an audit replay of an answer given under older permissions) every row is
    read from the history tables, with the ACLs in force then computed once per permission ingest."""
    if con.execute("SELECT count(*) FROM duckdb_views() WHERE database_name = 'memory' AND schema_name = ?",
                   [schema]).fetchone()[0]:
        return  # defined by an earlier past state of this (file, ingest, permission ingest): the same views
    con.execute(f"CREATE SCHEMA memory.{schema}")
    h, mine, k = "catalog.main", f"memory.{schema}", int(k)
    in_place = acl_ingest == file_ingest if in_place is None else in_place
    if acl_ingest == file_ingest:
        perm = f"{h}.latest_acl"
    else:
        perm = f"memory.main.acl_at_{int(acl_ingest)}"
        con.execute(f"""CREATE TABLE IF NOT EXISTS {perm} AS SELECT evidence_id, arg_max(acl, recorded_from) AS acl,
                          arg_max(acl_revision, recorded_from) AS acl_revision FROM {h}.evidence_history
                        WHERE recorded_from <= {int(acl_ingest)} GROUP BY evidence_id""")
    alive = f"recorded_from <= {k} AND (recorded_to IS NULL OR recorded_to > {k})"
    if in_place:
        # Only revisions replaced (or removed) since k; everything else is today's row: the same content hash and
        # ACL (a source-given `recorded_at`, outside the content hash, is the only field that can be newer).
        alive = f"recorded_from <= {k} AND recorded_to > {k}"
    # An object first recorded after the permission ingest had no permissions then: it is in no past state.
    known = "" if k <= acl_ingest else f" AND evidence_id IN (SELECT evidence_id FROM {perm})"
    then = {
        "evidence": f"""SELECT h.evidence_id, h.entity_id, h.kind, h.title, h.text, h.version, h.authority,
                          h.lifecycle, h.authority_class, h.valid_from, h.valid_to, h.recorded_at, h.expires_at,
                          p.acl, h.owner, h.content_hash, p.acl_revision,
                          CASE WHEN h.acl_revision = p.acl_revision THEN h.doc
                               ELSE json_merge_patch(h.doc, json_object('acl', p.acl)) END AS doc
                        FROM {h}.evidence_history h JOIN {perm} p USING (evidence_id) WHERE {alive}""",
        "aliases": f"SELECT entity_id, alias, evidence_id FROM {h}.aliases_history WHERE {alive}{known}",
        "links": f"SELECT evidence_id, link_type, target FROM {h}.links_history WHERE {alive}{known}",
        "lineage_edges": f"""SELECT l.evidence_id, l.upstream, l.downstream, l.upstream_column, l.downstream_column,
                               p.acl, l.governs, l.valid_from, l.valid_to
                             FROM {h}.lineage_edges_history l JOIN {perm} p USING (evidence_id) WHERE {alive}""",
        "freshness": f"""SELECT evidence_id, source, warn_after_hours, error_after_hours, loaded_at, observed_at
                         FROM {h}.freshness_history WHERE {alive}{known}""",
    }
    views = dict(then)
    if in_place:
        con.execute(f"""CREATE TABLE {mine}.changed_since AS SELECT evidence_id FROM {h}.evidence_history
                        WHERE recorded_to IS NULL AND recorded_from > {k}""")
        for table, select in then.items():
            con.execute(f"CREATE TABLE {mine}.{table}_then AS {select}")
            views[table] = (f"SELECT * FROM {h}.{table} WHERE evidence_id NOT IN "
                            f"(SELECT evidence_id FROM {mine}.changed_since) UNION ALL SELECT * FROM {mine}.{table}_then")
    views.update({
        "acl": f"SELECT evidence_id, unnest(acl) AS role FROM {mine}.evidence",
        "entities": f"""SELECT entity_id, list_sort(list(DISTINCT kind)) AS kinds FROM {mine}.evidence
                        GROUP BY entity_id""",
        "roles": f"SELECT role, description, steward FROM {h}.roles",
        # Store.principals orders by rowid, which a view has only when it names it: the file's order.
        "principals": f"SELECT principal, role, rowid AS rowid FROM {h}.principals",
        "meta": "SELECT * FROM (VALUES " + ", ".join(
            f"({_literal(key)}, {_literal(value)})" for key, value in meta.items()) + ") AS m(key, value)",
        # A past state holds its own objects, not the file's ingest log.
        "ingests": f"SELECT * FROM {h}.ingests WHERE FALSE",
        "evidence_history": f"SELECT * FROM {h}.evidence_history WHERE FALSE",
    })
    for name, select in views.items():
        con.execute(f"CREATE OR REPLACE VIEW {mine}.{name} AS {select}")


def _literal(value) -> str:
    return "NULL" if value is None else "'" + str(value).replace("'", "''") + "'"


class _History:
    def __init__(self):
        self.lock = threading.Lock()
        self.ingests: list[Ingest] | None = None
        self.past: dict[tuple[int, int], PastStore] = {}


_STATE: "weakref.WeakKeyDictionary[Store, _History]" = weakref.WeakKeyDictionary()
_STATE_LOCK = threading.Lock()


def _history(store: Store) -> _History:
    with _STATE_LOCK:
        if store not in _STATE:
            _STATE[store] = _History()
        return _STATE[store]


def ingests(store: Store) -> list[Ingest]:
    """Every ingest of this database, oldest first (read once: the file is read-only while open)."""
    h = _history(store)
    with h.lock:
        if h.ingests is None:
            h.ingests = [Ingest(n, at, rev, src or "", cnt or 0) for n, at, rev, src, cnt in store.con.execute(
                "SELECT ingest, ingested_at, catalog_revision, source, object_count FROM ingests ORDER BY ingest"
            ).fetchall()]
        return list(h.ingests)


def current_ingest(store: Store) -> int | None:
    value = store.meta().get("ingest")
    return int(value) if value else None


def state_at(store: Store, at: datetime) -> Ingest:
    """The ingest whose catalog stood at `at`: the last one recorded at or before it."""
    known = [i for i in ingests(store) if i.ingested_at <= at]
    if not known:
        first = ingests(store)[0].ingested_at.isoformat() if ingests(store) else "never"
        raise NothingRecorded(f"nothing was recorded in this catalog by {at.isoformat()}: its history starts at "
                              f"{first}", at)
    return known[-1]


def past_store(store: Store, ingest: int, acl_ingest: int | None = None) -> PastStore:
    """The catalog as recorded at `ingest`, with the permissions in force at `acl_ingest` (default today's).
    Built once per pair and kept: a past state never changes."""
    acl_ingest = acl_ingest or current_ingest(store) or ingest
    by_number = {i.number: i for i in ingests(store)}
    if ingest not in by_number:
        raise ValueError(f"{store.path} has no ingest {ingest}; its history holds ingests "
                         f"{', '.join(map(str, by_number)) or 'none'}")
    h = _history(store)
    key = (ingest, acl_ingest)
    with h.lock:
        if key not in h.past:
            while len(h.past) >= KEEP_PAST_STATES:  # the oldest-built goes; a thread still using it keeps it alive
                h.past.pop(next(iter(h.past)))
            h.past[key] = PastStore(store, by_number[ingest], acl_ingest)
        return h.past[key]


def view_for(store: Store, env):
    """The role's view of the catalog state that answered `env`: what its explanation's citations are checked
    against (a past state for an as-recorded answer, else the current catalog)."""
    state = env.recorded
    if state and state.catalog_only and state.ingest:
        return visible(past_store(store, state.ingest, state.acl_ingest), env.role, frozenset(env.granted))
    return visible(store, env.role, frozenset(env.granted))
