"""Where a search index and the live catalog disagree: the objects whose text, ACL revision or ACL changed since the
index was written, those not indexed yet, and those indexed but gone; and how many indexed objects each role sees.

A searcher needs this for two things (core/retrieve/search.py): the index status it reports to a role (the third
clock) and each role's pre-filter (indexed ACL, minus revoked, plus granted). Both depend on the changed objects
only, so only those are held: the comparison of every object is one join in DuckDB over the catalog's evidence and
the index's light columns, read once per searcher. Held for every object instead (dicts and ACL sets of both sides),
it was ~150 MB at 100,000 objects and a warm-up at 1M outgrew 19 GB (docs/scale.md "Answering at a million").
"""
from __future__ import annotations

from dataclasses import dataclass

from core.catalog.rows import in_list
from core.retrieve.index import UNINDEXED_CLASSES

# (content hash, ACL revision, ACL) of one side of an object.
Side = tuple[str, int, frozenset[str]]

# The catalog's objects an index holds: every class but those never embedded (lineage maps: core/retrieve/index.py).
_LIVE = ("SELECT evidence_id, content_hash, acl_revision, acl FROM evidence "
         "WHERE authority_class IS NULL OR NOT list_contains(?::VARCHAR[], authority_class)")


@dataclass(frozen=True)
class IndexDelta:
    changed: dict[str, tuple[Side | None, Side | None]]  # evidence id -> (live, indexed); None: not on that side
    indexed_by_role: dict[str, int]  # role -> live objects in the role's ACL that the index holds

    def indexed(self, evidence_id: str) -> bool:
        """Whether the index holds this live object (an object that changed in no way is held as it is)."""
        return evidence_id not in self.changed or self.changed[evidence_id][1] is not None

    def indexed_and_live(self, con, ids) -> set[str]:
        """Of `ids` (a view's grants), those live in the catalog and held by the index."""
        return {e for e in _live(con, ids) if self.indexed(e)}

    def granted_beyond(self, con, role: str, grants) -> set[str]:
        """Grants a view holds beyond its role's ACL that are live and indexed: counted for it on top of the role."""
        return {e for e, acl in _live(con, grants).items() if role not in acl and self.indexed(e)}


def _live(con, ids) -> dict[str, frozenset[str]]:
    """The live ACL of those of `ids` the index should hold."""
    if not ids:
        return {}
    return {e: frozenset(acl) for e, acl in con.execute(
        f"SELECT evidence_id, acl FROM ({_LIVE}) WHERE {in_list('evidence_id', ids)}",
        [list(UNINDEXED_CLASSES)]).fetchall()}


def index_delta(con, dataset) -> IndexDelta:
    """Compare the index `dataset` (a Lance dataset at a pinned version) with the catalog behind `con`."""
    # One row per indexed object: its first body chunk carries the object's hash, ACL revision and ACL.
    indexed = dataset.to_table(columns=["evidence_id", "content_hash", "acl_revision", "acl"],
                               filter="part = 'body' AND chunk_id LIKE '%#0'")
    con.register("asof_indexed", indexed)
    try:
        rows = con.execute(
            f"""WITH live AS ({_LIVE})
                SELECT coalesce(l.evidence_id, i.evidence_id), l.evidence_id IS NOT NULL, l.content_hash,
                       l.acl_revision, l.acl, i.evidence_id IS NOT NULL, i.content_hash, i.acl_revision, i.acl
                FROM live l FULL JOIN asof_indexed i ON l.evidence_id = i.evidence_id
                WHERE l.evidence_id IS NULL OR i.evidence_id IS NULL OR l.content_hash IS DISTINCT FROM i.content_hash
                   OR l.acl_revision IS DISTINCT FROM i.acl_revision
                   OR list_sort(list_distinct(l.acl)) IS DISTINCT FROM list_sort(list_distinct(i.acl))""",
            [list(UNINDEXED_CLASSES)]).fetchall()
        counts = dict(con.execute(
            f"""WITH live AS ({_LIVE})
                SELECT role, count(*) FROM (SELECT unnest(list_distinct(l.acl)) AS role
                                            FROM live l JOIN asof_indexed i ON l.evidence_id = i.evidence_id)
                GROUP BY role""", [list(UNINDEXED_CLASSES)]).fetchall())
    finally:
        con.unregister("asof_indexed")
    acls: dict = {}

    def side(present, content_hash, revision, acl) -> Side | None:
        acl = tuple(acl or ())
        return (content_hash, revision, acls.setdefault(acl, frozenset(acl))) if present else None
    return IndexDelta({r[0]: (side(*r[1:5]), side(*r[5:9])) for r in rows}, counts)
