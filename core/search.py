"""Hybrid retrieval over the LanceDB index, always inside the requester's visible set.

Search finds things (which entity a paraphrase means, which drafts or notes speak to it); it never
decides which version governs. The permission filter is built from the live DuckDB catalog and
applied before ranking, so a permission revoked in the catalog holds even if the index is stale.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property

from .embed import Embedder
from .envelope import IndexStatus
from .index import TABLE, UNINDEXED_CLASSES, index_path
from .store import Store


def sql_str(value: str) -> str:
    """A SQL string literal; quotes doubled, so user text can never close the literal."""
    return "'" + str(value).replace("'", "''") + "'"


def fts_words(text: str) -> str:
    """Plain words for the full-text query: punctuation and quotes in questions are not query syntax."""
    return " ".join(re.findall(r"\w+", text))


def sql_list(values) -> str:
    return "(" + ", ".join(sql_str(v) for v in sorted(values)) + ")"


@dataclass
class Hit:
    evidence_id: str
    entity_id: str
    part: str
    kind: str
    authority: str
    lifecycle: str
    text: str
    score: float  # cosine similarity for vector search, RRF relevance for hybrid, BM25 for full text


class Searcher:
    def __init__(self, store: Store, embedder: Embedder):
        self.store, self.embedder = store, embedder
        self.path = index_path(store.path)
        self._queries: dict = {}
        self._filters: dict[str, str] = {}
        self._status: dict[str, IndexStatus] = {}

    @cached_property
    def table(self):
        import lancedb
        if not self.path.exists():
            return None
        db = lancedb.connect(str(self.path))
        return db.open_table(TABLE) if TABLE in db.list_tables().tables else None

    @property
    def available(self) -> bool:
        return self.table is not None

    # ---- the third clock: does the index reflect the catalog's content and permissions? ----
    @cached_property
    def _state(self) -> tuple[dict, dict]:
        indexed = self.table.search().where("part = 'body' AND chunk_id LIKE '%#0'").select(
            ["evidence_id", "content_hash", "acl_revision", "acl"]).limit(None).to_arrow().to_pylist()
        live = self.store.con.execute(
            "SELECT evidence_id, content_hash, acl_revision, acl FROM evidence WHERE authority_class IS NULL "
            "OR NOT list_contains(?::VARCHAR[], authority_class)", [list(UNINDEXED_CLASSES)]).fetchall()
        return ({r["evidence_id"]: (r["content_hash"], r["acl_revision"], set(r["acl"])) for r in indexed},
                {r[0]: (r[1], r[2], set(r[3])) for r in live})

    def status_for(self, role: str) -> IndexStatus:
        """Index freshness as this role may see it: only ids the role can see are named."""
        if role not in self._status:
            self._status[role] = self._status_for(role)
        return self._status[role]

    def _status_for(self, role: str) -> IndexStatus:
        if not self.available:
            return IndexStatus(status="absent", detail="no search index; answers use the catalog only")
        indexed, live = self._state
        mine = {e for e, (_, _, acl) in live.items() if role in acl}
        stale_content = sorted(e for e in mine if e in indexed and indexed[e][0] != live[e][0])
        stale_acl = sorted(e for e in mine if e in indexed and indexed[e][1] != live[e][1])
        missing = sorted(e for e in mine if e not in indexed)
        status = "current" if not (stale_content or stale_acl or missing) else "stale"
        return IndexStatus(status=status, indexed_objects=len(indexed), stale_content=stale_content,
                           stale_acl=stale_acl, missing=missing,
                           detail="permissions are checked against the live catalog; stale text is re-read from it")

    def role_filter(self, role: str) -> str:
        """Pre-filter for one role from the live catalog: indexed ACL, minus revoked, plus granted."""
        if role not in self._filters:
            self._filters[role] = self._role_filter(role)
        return self._filters[role]

    def _role_filter(self, role: str) -> str:
        if role not in {r.name for r in self.store.roles()}:
            raise ValueError(f"unknown role {role!r}")
        indexed, live = self._state
        revoked = {e for e, (_, _, acl) in indexed.items() if role in acl and role not in live.get(e, ("", "", set()))[2]}
        granted = {e for e, (_, _, acl) in live.items() if role in acl and e in indexed and role not in indexed[e][2]}
        where = f"array_has(acl, {sql_str(role)})"
        if revoked:
            where = f"({where} AND evidence_id NOT IN {sql_list(revoked)})"
        if granted:
            where = f"({where} OR evidence_id IN {sql_list(granted)})"
        return where

    # ---- queries ----
    def _hits(self, rows, score_key: str) -> list[Hit]:
        out = []
        for r in rows:
            score = r.get(score_key, 0.0)
            if score_key == "_distance":
                score = 1.0 - score
            out.append(Hit(r["evidence_id"], r["entity_id"], r["part"], r["kind"], r["authority"], r["lifecycle"],
                           r["text"], float(score)))
        return out

    def embed(self, query: str):
        # One question is embedded once, however many searches it drives.
        if query not in self._queries:
            if len(self._queries) > 256:
                self._queries.clear()
            self._queries[query] = self.embedder.encode([query])[0]
        return self._queries[query]

    def vector(self, query: str, where: str | None, k: int = 10) -> list[Hit]:
        q = self.table.search(self.embed(query)).distance_type("cosine")
        if where:
            q = q.where(where, prefilter=True)
        return self._hits(q.limit(k).to_list(), "_distance")

    def text(self, query: str, where: str | None, k: int = 10) -> list[Hit]:
        words = fts_words(query)
        if not words:
            return []
        q = self.table.search(words, query_type="fts")
        if where:
            q = q.where(where, prefilter=True)
        return self._hits(q.limit(k).to_list(), "_score")

    def hybrid(self, query: str, where: str | None, k: int = 10) -> list[Hit]:
        from lancedb.rerankers import RRFReranker
        words = fts_words(query)
        if not words:
            return self.vector(query, where, k)
        q = self.table.search(query_type="hybrid").vector(self.embed(query)).text(words).rerank(RRFReranker())
        if where:
            q = q.where(where, prefilter=True)
        return self._hits(q.limit(k).to_list(), "_relevance_score")


def open_searcher(store: Store, embed_model: str | None = None) -> Searcher | None:
    """A searcher when the index exists next to the database, else None (answers use the catalog only)."""
    return Searcher(store, Embedder(embed_model)) if index_path(store.path).exists() else None
