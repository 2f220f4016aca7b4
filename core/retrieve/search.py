"""Hybrid retrieval over the LanceDB index, always inside the requester's visible set.

Search finds things (which entity a paraphrase means, which drafts or notes speak to it); it never
decides which version governs. The permission filter is built from the live DuckDB catalog and
applied before ranking, so a permission revoked in the catalog holds even if the index is stale.
"""
from __future__ import annotations

import threading
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pyarrow.compute as pc

from core.catalog.envelope import IndexStatus
from core.catalog.store import Store
from core.catalog.text import STOPWORDS, words
from core.retrieve import reader
from core.retrieve.delta import IndexDelta, index_delta
from core.retrieve.embed import Embedder
from core.retrieve.index import TABLE, IndexUnavailable, connect_index, index_path
from core.retrieve.terms import TermIndex
from core.settings.objects import RemoteIndex


def sql_str(value: str) -> str:
    """A SQL string literal; quotes doubled, so user text can never close the literal."""
    return "'" + str(value).replace("'", "''") + "'"


def sql_list(values) -> str:
    return "(" + ", ".join(sql_str(v) for v in sorted(values)) + ")"


# What a hit carries; never the vector, which is most of a row's bytes.
HIT_COLUMNS = ["chunk_id", "evidence_id", "entity_id", "part", "kind", "authority", "lifecycle", "text"]


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


def _guarded(method):
    """A Lance failure mid-question (a file corrupted after opening) becomes IndexUnavailable, which
    `ask` answers from the catalog alone, with a notice, instead of a Rust/Lance traceback."""
    def run(self, *args, **kwargs):
        try:
            return method(self, *args, **kwargs)
        except IndexUnavailable:
            raise
        except Exception as exc:  # noqa: BLE001 (Lance raises OSError, RuntimeError, panics...)
            raise IndexUnavailable(f"search index {self.path} failed while answering ({type(exc).__name__}: "
                                   f"{str(exc)[:200]}); answers use the catalog only until "
                                   "`python -m core ingest` rebuilds it") from exc
    run.__name__ = method.__name__
    return run


RRF_K = 60  # the usual reciprocal-rank-fusion constant
# Rows whose hit columns a searcher holds (~320 bytes a row, most of it text: 57 MB at the 100k catalog's 178,260);
# above it a query's rows are read from Lance (at 1M objects, 1.8M rows, held they would be ~570 MB a searcher).
HELD_ROWS_UP_TO = 500_000
TEXT_BATCH = 10_000  # texts turned into Python strings at a time while their words are counted
# Filtered sets kept as row masks per searcher (a filter is per role and pass; 178 KB each at 100k objects).
MASKS_KEPT = 64


def _query_terms(query: str) -> list[str]:
    """Content words of a question, normalized as the catalog's own text is."""
    return list(dict.fromkeys(w for w in words(query) if w not in STOPWORDS))


class Searcher:
    """Hybrid search, shared by every thread of the app.

    Every query reads one Lance dataset checked out at the version this searcher first saw (a read-only
    snapshot every thread shares), so a re-ingest never mixes two index versions into one answer. It is
    read through `lance`, not LanceDB (core/retrieve/reader.py): a cold `ask` does not import LanceDB.
    Scores and counts are computed from what the asking role may see only: the presence of hidden rows
    changes no ranking, no score and no number shown.
    """

    def __init__(self, store: Store, embedder: Embedder, index: RemoteIndex | None = None, exact: bool = False):
        self.store, self.embedder = store, embedder
        self.exact = exact  # flat search even where the index has an ANN vector index (recall baselines)
        # A replica of a published catalog reads the revision's index from object storage (core/serve/live.py).
        self.path = index or index_path(store.path)
        self._lock = threading.Lock()
        self._local = threading.local()
        self._queries: dict = {}
        self._filters: dict[str, str] = {}
        self._masks: dict[str, object] = {}  # rows per filter (Searcher.within): the pinned version never changes
        self._status: dict[str, IndexStatus] = {}
        self._rows_lock = threading.Lock()
        self._hit_rows: tuple | None = None
        self._terms: TermIndex | None = None
        self.problem: str | None = None  # why an index that should be there cannot be used
        self.encoder = embedder
        self.version = self._pin()

    def _pin(self) -> int | str | None:
        """The index version for this catalog revision: its tag when the ingest left one, else the latest.
        An index that is there but unreadable (or missing although the catalog was ingested with one)
        leaves the searcher unavailable with `problem` saying why; answers then use the catalog only."""
        self.dataset, self.problem = reader.open_dataset(self.path, self.store.revision)  # probes what it reads
        if self.dataset is None:
            if self.problem is None and self.store.meta().get("index_version"):
                self.problem = (f"search index {self.path} is missing although the catalog was ingested with "
                                "one; answers use the catalog only until `python -m core ingest` rebuilds it")
            return None
        # Questions are embedded by the encoder the index's vectors were computed with (full precision or int8).
        self.encoder = self.embedder.for_precision(reader.precision(self.dataset))
        # The number, not the tag: a re-ingest that moves the tag does not move this searcher.
        return self.dataset.version

    @property
    def table(self):
        """The LanceDB table at the pinned version, for maintenance and benchmarks (its vector index, its row
        count); questions read `dataset`. Opened on first use, one handle per thread."""
        table = getattr(self._local, "table", None)
        if table is None and self.version is not None:
            table = connect_index(self.path).open_table(TABLE)
            table.checkout(self.version)
            self._local.table = table
        return table

    @cached_property
    def rows(self) -> int:
        """Rows of the pinned version: read once."""
        return self.dataset.count_rows() if self.dataset is not None else 0

    @cached_property
    def partitions(self) -> int:
        """The partition count the pinned version's vector index was trained with (how many a search probes)."""
        return reader.trained_partitions(self.dataset) if self.dataset is not None else 1

    @cached_property
    def index_type(self) -> str | None:
        """The kind of the pinned version's vector index (whether a search re-scores its candidates)."""
        return reader.index_type(self.dataset) if self.dataset is not None else None

    @property
    def available(self) -> bool:
        return self.version is not None

    def _cached(self, cache: dict, key, make):
        with self._lock:
            if key in cache:
                return cache[key]
        value = make()  # computed outside the lock: pure, so a rare double computation is harmless
        with self._lock:
            return cache.setdefault(key, value)

    # ---- the third clock: does the index reflect the catalog's content and permissions? ----
    @cached_property
    @_guarded
    def _delta(self) -> IndexDelta:
        """Where the pinned index and the live catalog disagree, computed once in SQL (core/retrieve/delta.py): what
        status_for and role_filter need, held for the changed objects only, never for every object."""
        return index_delta(self.store.con, self.dataset)

    def status_for(self, role: str, grants: frozenset[str] = frozenset()) -> IndexStatus:
        """Index freshness as this role may see it: only ids the role can see are named or counted."""
        grants = frozenset(grants)
        return self._cached(self._status, (role, grants), lambda: self._status_for(role, grants))

    def _status_for(self, role: str, grants: frozenset[str]) -> IndexStatus:
        if not self.available:
            return IndexStatus(status="absent", detail="no search index; answers use the catalog only")
        delta = self._delta
        granted = delta.granted_beyond(self.store.con, role, grants)
        mine = [(e, live, indexed) for e, (live, indexed) in sorted(delta.changed.items())
                if live is not None and (role in live[2] or e in grants)]
        stale_content = [e for e, live, indexed in mine if indexed is not None and indexed[0] != live[0]]
        stale_acl = [e for e, live, indexed in mine if indexed is not None and indexed[1] != live[1]]
        missing = [e for e, _, indexed in mine if indexed is None]
        status = "current" if not (stale_content or stale_acl or missing) else "stale"
        return IndexStatus(status=status, indexed_objects=delta.indexed_by_role.get(role, 0) + len(granted),
                           stale_content=stale_content, stale_acl=stale_acl, missing=missing,
                           detail="permissions are checked against the live catalog; stale text is re-read from it")

    def role_filter(self, role: str, grants: frozenset[str] = frozenset()) -> str:
        """Pre-filter for one role from the live catalog: indexed ACL, minus revoked, plus granted (by a
        changed ACL, or to the view by id: a steward's review queue)."""
        if role not in {r.name for r in self.store.roles()}:
            raise ValueError(f"unknown role {role!r}")
        grants = frozenset(grants)
        return self._cached(self._filters, (role, grants), lambda: self._role_filter(role, grants))

    def view_filter(self, view) -> str:
        """role_filter for a Visible view (its role and the ids granted to it)."""
        return self.role_filter(view.role, view.grants)

    def _role_filter(self, role: str, grants: frozenset[str]) -> str:
        delta = self._delta
        revoked = {e for e, (live, indexed) in delta.changed.items()
                   if indexed is not None and role in indexed[2] and (live is None or role not in live[2])}
        granted = {e for e, (live, indexed) in delta.changed.items()
                   if live is not None and indexed is not None and role in live[2] and role not in indexed[2]}
        granted |= delta.indexed_and_live(self.store.con, grants)
        where = f"array_has(acl, {sql_str(role)})"
        if revoked:
            where = f"({where} AND evidence_id NOT IN {sql_list(revoked)})"
        if granted:
            where = f"({where} OR evidence_id IN {sql_list(granted)})"
        return where

    # ---- queries ----
    @property
    def hit_rows(self) -> tuple:
        """Every row's hit columns at the pinned version (or None above HELD_ROWS_UP_TO rows), and how to find a row
        id's place among them: read once per searcher (57 MB and 0.2 s for the 178,260 rows of the 100k catalog), so a
        query returns row ids and scores only. Reading the columns of a query's rows cost more than the query: at 100k
        Lance's analyze_plan gave 3 of a vector search's 13 ms to reading its 30 rows. Above HELD_ROWS_UP_TO a query's
        rows are taken from Lance by their place (the same scan order) instead of held.
        The version is pinned, so these rows cannot change under the searcher; a row reaches an answer only
        through a query or a mask that applied the role's filter."""
        with self._rows_lock:
            if self._hit_rows is None:
                held = self.rows <= HELD_ROWS_UP_TO
                table = self.dataset.to_table(columns=HIT_COLUMNS if held else ["chunk_id"], with_row_id=True,
                                              scan_in_order=True)
                ids = table.column("_rowid").to_numpy()
                order = np.argsort(ids, kind="stable")
                # A row's place in chunk id order: how equal full-text scores are ranked (at 100k, ~1,000 rows can tie).
                by_chunk = pc.rank(table.column("chunk_id"), sort_keys="ascending").to_numpy()
                # One chunk per column: taking rows across the 22 chunks Lance returns at 100k took 24 ms, from one 1.6.
                held_rows = table.drop_columns(["_rowid"]).combine_chunks() if held else None
                self._hit_rows = (held_rows, ids[order], order, by_chunk)
            return self._hit_rows

    def _places(self, row_ids) -> np.ndarray:
        """Each row id's place in hit_rows."""
        _, ids, order, _ = self.hit_rows
        return order[np.searchsorted(ids, np.asarray(row_ids, dtype=ids.dtype))]

    def _take(self, at) -> list[dict]:
        """The hit columns of the rows at these places in hit_rows, in this order."""
        if not len(at):
            return []
        held = self.hit_rows[0]
        return (held.take(at) if held is not None else self.dataset.take(at, columns=HIT_COLUMNS)).to_pylist()

    @property
    def terms(self) -> TermIndex:
        """Every row's words counted (core/retrieve/terms.py), built once per searcher from the rows' text in scan order
        (a row's place in hit_rows): ~4-5 s at 100k objects, which the warm-up pays (core/answer/warm.py), else the
        first full-text search. The text is read a batch at a time: only the counts are kept."""
        held = self.hit_rows[0]
        with self._rows_lock:
            if self._terms is None:
                batches = ([held.column("text")] if held is not None else
                           (b.column("text") for b in self.dataset.to_batches(columns=["text"], scan_in_order=True)))
                self._terms = TermIndex(text for column in batches
                                        for start in range(0, len(column), TEXT_BATCH)
                                        for text in column.slice(start, TEXT_BATCH).to_pylist())
            return self._terms

    def within(self, where: str) -> np.ndarray:
        """The rows of the pinned version that `where` keeps, as a mask over hit_rows: Lance evaluates the filter
        (one scan of its columns, ~14 ms at 100k), once per filter and searcher."""
        def scan():
            found = self.dataset.to_table(columns=[], with_row_id=True, filter=where)
            mask = np.zeros(len(self.hit_rows[1]), dtype=bool)
            mask[self._places(found.column("_rowid").to_numpy())] = True
            return mask
        with self._lock:
            if len(self._masks) > MASKS_KEPT:
                self._masks.clear()
        return self._cached(self._masks, where, scan)

    @staticmethod
    def _hit(r: dict, score: float) -> Hit:
        return Hit(r["evidence_id"], r["entity_id"], r["part"], r["kind"], r["authority"], r["lifecycle"],
                   r["text"], float(score))

    def prepare(self, query: str) -> None:
        """Start embedding `query` on the encoder's thread. A question's embedding does not depend on what it turns
        out to ask, so it is computed while the question is read and its subject chosen (at 100k objects ~5 ms
        of an answer's ~30 were the encoding, waited for before the vector search)."""
        self._embedding(query)

    def embed(self, query: str):
        # One question is embedded once, however many searches it drives.
        return self._embedding(query).result()

    def _embedding(self, query: str) -> Future:
        with self._lock:
            pending = self._queries.get(query)
            if pending is None or (pending.done() and pending.exception() is not None):
                # A failed encoding is not kept: the next search of this text (or question) encodes it again.
                if len(self._queries) > 256:
                    self._queries.clear()
                pending = self._queries[query] = self._encoding.submit(lambda: self.encoder.encode([query])[0])
        return pending

    @_guarded
    def vector(self, query: str, where: str | None, k: int = 10) -> list[Hit]:
        # Cosine search, flat below the ANN threshold (a distance then depends on the query and the row
        # alone) and through the ANN index above it; the role's filter is applied first either way.
        found = self.dataset.to_table(columns=["_distance"], with_row_id=True, filter=where, prefilter=bool(where),
                                      nearest=reader.nearest(self.embed(query), k, self.exact, self.partitions,
                                                             self.index_type))
        rows = self._take(self._places(found.column("_rowid").to_numpy()))
        return [self._hit(r, 1.0 - d) for r, d in zip(rows, found.column("_distance").to_pylist())]

    @_guarded
    def text(self, query: str, where: str | None, k: int = 10) -> list[Hit]:
        """Full-text search: BM25 over every row of the filtered set that holds a content word of `query`, with
        statistics from that set alone (TermIndex.bm25), best first, ties by chunk id."""
        terms = _query_terms(query)
        if not terms or not where:
            return []
        rows, scores = self.terms.bm25(terms, self.within(where))
        if len(rows) > k:  # the k best and every row tied with the k-th, before ordering them
            keep = scores >= np.partition(scores, len(scores) - k)[len(scores) - k]
            rows, scores = rows[keep], scores[keep]
        best = np.lexsort((self.hit_rows[3][rows], -scores))[:k]
        return [self._hit(r, s) for r, s in zip(self._take(rows[best]), scores[best].tolist())]

    @cached_property
    def _encoding(self) -> ThreadPoolExecutor:
        # Its own thread, never waiting on anything: a search on _pool may wait for its query's encoding here.
        return ThreadPoolExecutor(max_workers=1, thread_name_prefix="asof-encode")

    @cached_property
    def _pool(self) -> ThreadPoolExecutor:
        # Lance releases the GIL while it searches, so one question's searches run side by side on the cores.
        return ThreadPoolExecutor(max_workers=2, thread_name_prefix="asof-search")

    def submit(self, search, *args, **kwargs) -> Future:
        """Start one of this searcher's searches on another thread; `.result()` returns its hits or raises what
        it raised (IndexUnavailable). Only Lance is read there: every filter is built before, on the caller's
        thread, from the catalog."""
        return self._pool.submit(search, *args, **kwargs)

    @_guarded
    def hybrid(self, query: str, where: str | None, k: int = 10) -> list[Hit]:
        """Reciprocal rank fusion of the vector and re-scored full-text lists, computed here so both
        inputs are the role's own rankings."""
        pending = self.submit(self.text, query, where, k * 2)
        vec = self.vector(query, where, k * 2)
        return fuse(vec, pending.result(), k)


def fuse(vec: list[Hit], txt: list[Hit], k: int) -> list[Hit]:
    """Reciprocal rank fusion of a vector and a full-text ranking of the same filtered set."""
    fused: dict[str, float] = {}
    rows: dict[str, Hit] = {}
    for hits in (vec, txt):
        for rank, h in enumerate(hits):
            key = f"{h.evidence_id}#{h.part}#{h.text[:40]}"
            fused[key] = fused.get(key, 0.0) + 1.0 / (RRF_K + rank + 1)
            rows.setdefault(key, h)
    order = sorted(fused, key=lambda key: (-fused[key], key))[:k]
    return [Hit(**{**rows[key].__dict__, "score": fused[key]}) for key in order]


def open_searcher(store: Store, embed_model: str | None = None) -> Searcher | None:
    """A searcher when the index exists next to the database, or should (then it reports why it cannot be
    used); else None (answers use the catalog only)."""
    expected = index_path(store.path).exists() or bool(store.meta().get("index_version"))
    return Searcher(store, Embedder(embed_model)) if expected else None
