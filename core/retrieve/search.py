"""Hybrid retrieval over the LanceDB index, always inside the requester's visible set.

Search finds things (which entity a paraphrase means, which drafts or notes speak to it); it never
decides which version governs. The permission filter is built from the live DuckDB catalog and
applied before ranking, so a permission revoked in the catalog holds even if the index is stale.
"""
from __future__ import annotations

import math
import re
import threading
from collections import Counter
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from functools import cached_property

from core.catalog.envelope import IndexStatus
from core.catalog.objects import RemoteIndex
from core.catalog.store import Store
from core.catalog.text import STOPWORDS, normalize, words
from core.retrieve import reader
from core.retrieve.embed import Embedder
from core.retrieve.index import TABLE, UNINDEXED_CLASSES, IndexUnavailable, connect_index, index_path


def sql_str(value: str) -> str:
    """A SQL string literal; quotes doubled, so user text can never close the literal."""
    return "'" + str(value).replace("'", "''") + "'"


def fts_words(text: str) -> str:
    """Plain words for the full-text query: punctuation and quotes in questions are not query syntax."""
    return " ".join(re.findall(r"\w+", text))


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


# Full-text matches fetched per query (LanceDB's best first) before re-scoring with the role's statistics. A
# question's content words rarely match more on catalogs of thousands of objects, so there every match is
# re-scored. From LARGE_FTS_ROWS rows in the role's filtered set (the 100k catalog: ~45,000 approved rows and
# ~5,000 drafts and notes a role), a common word matches thousands of rows and re-scoring them was the largest
# cost of an answer after the vector search (cProfile of benchmarks/bench.py's questions): there LanceDB's best
# LARGE_FTS_CANDIDATES are, four times the most any pass keeps (2 x SEARCH_K).
# Which rows those are follows LanceDB's scores, whose statistics count every row: there a row the role may not
# see can change which of its rows are re-scored, never a score or a row outside its filter (docs/scale.md, "Not
# done yet").
FTS_CANDIDATES = 1000
LARGE_FTS_ROWS = 4000
LARGE_FTS_CANDIDATES = 120
RRF_K = 60  # the usual reciprocal-rank-fusion constant


def _query_terms(query: str) -> list[str]:
    """Content words of a question, normalized as the catalog's own text is."""
    return list(dict.fromkeys(w for w in words(query) if w not in STOPWORDS))


def _joined_words(text: str) -> str:
    """A text's words as text.words reads them, kept as one string: one object a row, not one a word."""
    return " ".join(words(text))


def bm25_rescore(terms: list[str], docs: list[Counter], total: int, k1: float = 1.5, b: float = 0.75) -> list[float]:
    """BM25 of each text (`docs`: its words counted) against `terms`, with statistics from these texts alone.

    `docs` must be every row of the role's filtered set that contains a query term, and `total` the
    size of that set: then document frequencies and the corpus size are exactly the role's own, and
    nothing the role may not see moves a score (LanceDB's own scores use statistics over all rows).
    """
    if not docs:
        return []
    lengths = [d.total() for d in docs]
    avgdl = sum(lengths) / len(docs) or 1.0
    n = max(total, len(docs))
    df = {t: sum(1 for d in docs if t in d) for t in terms}
    idf = {t: math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5)) for t in terms if df[t]}
    scores = []
    for counts, length in zip(docs, lengths):
        score = 0.0
        for t, weight in idf.items():
            tf = counts.get(t, 0)
            if tf:
                score += weight * tf * (k1 + 1) / (tf + k1 * (1 - b + b * length / avgdl))
        scores.append(score)
    return scores


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
        self._counts: dict[str, int] = {}  # rows per filter: the pinned version never changes
        self._status: dict[str, IndexStatus] = {}
        self._rows_lock = threading.Lock()
        self._hit_rows: tuple | None = None
        self._words: dict[int, str] = {}  # a row's words as text.words reads them, by its place in hit_rows
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
    def _state(self) -> tuple[dict, dict]:
        indexed = self.dataset.to_table(columns=["evidence_id", "content_hash", "acl_revision", "acl"],
                                        filter="part = 'body' AND chunk_id LIKE '%#0'").to_pylist()
        live = self.store.con.execute(
            "SELECT evidence_id, content_hash, acl_revision, acl FROM evidence WHERE authority_class IS NULL "
            "OR NOT list_contains(?::VARCHAR[], authority_class)", [list(UNINDEXED_CLASSES)]).fetchall()
        return ({r["evidence_id"]: (r["content_hash"], r["acl_revision"], set(r["acl"])) for r in indexed},
                {r[0]: (r[1], r[2], set(r[3])) for r in live})

    def status_for(self, role: str, grants: frozenset[str] = frozenset()) -> IndexStatus:
        """Index freshness as this role may see it: only ids the role can see are named or counted."""
        grants = frozenset(grants)
        return self._cached(self._status, (role, grants), lambda: self._status_for(role, grants))

    def _status_for(self, role: str, grants: frozenset[str]) -> IndexStatus:
        if not self.available:
            return IndexStatus(status="absent", detail="no search index; answers use the catalog only")
        indexed, live = self._state
        mine = {e for e, (_, _, acl) in live.items() if role in acl or e in grants}
        stale_content = sorted(e for e in mine if e in indexed and indexed[e][0] != live[e][0])
        stale_acl = sorted(e for e in mine if e in indexed and indexed[e][1] != live[e][1])
        missing = sorted(e for e in mine if e not in indexed)
        status = "current" if not (stale_content or stale_acl or missing) else "stale"
        return IndexStatus(status=status, indexed_objects=len(mine & set(indexed)), stale_content=stale_content,
                           stale_acl=stale_acl, missing=missing,
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
        indexed, live = self._state
        revoked = {e for e, (_, _, acl) in indexed.items() if role in acl and role not in live.get(e, ("", "", set()))[2]}
        granted = {e for e, (_, _, acl) in live.items() if role in acl and e in indexed and role not in indexed[e][2]}
        granted |= {e for e in grants if e in live and e in indexed}
        where = f"array_has(acl, {sql_str(role)})"
        if revoked:
            where = f"({where} AND evidence_id NOT IN {sql_list(revoked)})"
        if granted:
            where = f"({where} OR evidence_id IN {sql_list(granted)})"
        return where

    # ---- queries ----
    @property
    def hit_rows(self) -> tuple:
        """Every row's hit columns at the pinned version, and each row id's position among them: read once per
        searcher (57 MB and 0.2 s for the 178,260 rows of the 100k catalog), so a query returns row ids and scores
        only. Reading the columns of a query's rows cost more than the query: at 100k Lance's analyze_plan gave 11
        of a full-text query's 32 ms to reading its 240 candidates, 3 of a vector search's 13 ms to its 30 rows.
        The version is pinned, so these rows cannot change under the searcher; a row reaches an answer only
        through a query that applied the role's filter."""
        with self._rows_lock:
            if self._hit_rows is None:
                table = self.dataset.to_table(columns=HIT_COLUMNS, with_row_id=True)
                ids = table.column("_rowid").to_pylist()
                # One chunk per column: taking rows across the 22 chunks Lance returns at 100k took 24 ms, from one 1.6.
                self._hit_rows = (table.drop_columns(["_rowid"]).combine_chunks(), dict(zip(ids, range(len(ids)))))
            return self._hit_rows

    def _rows(self, found) -> list[dict]:
        """The hit columns of a query's rows (`found`: its result, with `_rowid`), in its order; `_at` is the row's
        place in hit_rows."""
        table, position = self.hit_rows
        at = [position[i] for i in found.column("_rowid").to_pylist()]
        if not at:
            return []
        rows = table.take(at).to_pylist()
        for row, i in zip(rows, at):
            row["_at"] = i
        return rows

    def _counted(self, row: dict) -> Counter:
        """A row's words counted, as text.words reads them. Each row is read into words once per searcher (a
        warm-up reads them all, read_words): reading a question's 240 full-text candidates into words was 6 of its
        ~11 ms of re-scoring at 100k objects."""
        norm = self._words.get(row["_at"])
        if norm is None:
            norm = self._words[row["_at"]] = _joined_words(row["text"])
        return Counter(norm.split())

    def read_words(self) -> None:
        """Every row's words, ahead of the questions that re-score them (at 100k: 1.9 s, ~50 MB)."""
        texts = self.hit_rows[0].column("text").to_pylist()
        for at, text in enumerate(texts):
            if at not in self._words:
                self._words[at] = _joined_words(text)

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
                                      nearest=reader.nearest(self.embed(query), k, self.exact, self.partitions))
        return [self._hit(r, 1.0 - d) for r, d in zip(self._rows(found), found.column("_distance").to_pylist())]

    def _count(self, where: str) -> int:
        # A count scans the filtered set; it depends on the filter and the pinned version only, and a few
        # filters serve every question of a role.
        if len(self._counts) > 4096:
            self._counts.clear()
        return self._cached(self._counts, where, lambda: self.dataset.count_rows(filter=where))

    def _matches(self, query: str, where: str, limit: int) -> list[dict]:
        """Rows of the filtered set sharing a content word with `query`, LanceDB's best first."""
        terms = _query_terms(query)
        raw = " ".join(w for w in fts_words(query).split() if normalize(w) in terms)
        return self._rows(self.dataset.to_table(columns=["_score"], with_row_id=True, full_text_query=raw or " ".join(terms),
                                                filter=where, prefilter=True, limit=limit))

    def _ranked(self, terms: list[str], rows: list[dict], total: int, k: int) -> list[Hit]:
        """The top k of `rows` by BM25 over those holding one of `terms` as text.words reads them (LanceDB's
        tokenizer stems differently: a row it matched on "excluded" may hold no word the scorer counts)."""
        counted = [(r, c) for r in rows if not (c := self._counted(r)).keys().isdisjoint(terms)]
        rows = [r for r, _ in counted]
        scores = bm25_rescore(terms, [c for _, c in counted], total)
        ranked = sorted(zip(rows, scores), key=lambda p: (-p[1], p[0]["chunk_id"]))
        return [self._hit(r, s) for r, s in ranked[:k] if s > 0]

    @_guarded
    def text(self, query: str, where: str | None, k: int = 10) -> list[Hit]:
        """Full-text search: LanceDB finds every row of the filtered set sharing a content word; BM25 is
        then computed over those rows, so statistics come from the role's own rows only."""
        terms = _query_terms(query)
        if not terms or not where:
            return []
        total = self._count(where)
        rows = self._matches(query, where, FTS_CANDIDATES if total < LARGE_FTS_ROWS else LARGE_FTS_CANDIDATES)
        return self._ranked(terms, rows, total, k) if rows else []

    @_guarded
    def texts(self, where: str, parts: list[tuple[str, str, Callable[[dict], bool], int]]) -> list[list[Hit]]:
        """Full-text searches over the parts of one filtered set, as one LanceDB query (each such query costs
        8-16 ms at 100,000 objects, two of them half an answer's search time). `parts`: (query, the part's
        filter in SQL, the same filter on a row in Python, how many hits it keeps). Each part is ranked as text() ranks it, BM25 with the
        part's own statistics, over the rows of the part that hold one of its query's words (_ranked).

        The query fetches as many candidates as the parts' own searches would together. When that fills the
        list and a part got fewer candidates than it keeps, the other part's rows crowded it out, and that part
        runs its own search. (At 100k objects the drafts and notes, 5,000 rows a role against 45,000 approved
        ones, got 16-100 of 240 candidates for the benchmark's questions, and keep 15.)"""
        if not where:
            return [[] for _ in parts]
        limits = [FTS_CANDIDATES if self._count(part_where) < LARGE_FTS_ROWS else LARGE_FTS_CANDIDATES
                  for _, part_where, _, _ in parts]
        if not any(_query_terms(query) for query, _, _, _ in parts):
            return [[] for _ in parts]
        rows = self._matches(" ".join(query for query, _, _, _ in parts), where, sum(limits))
        full = len(rows) >= sum(limits)
        out = []
        for (query, part_where, belongs, k), limit in zip(parts, limits):
            mine = [r for r in rows if belongs(r)]
            terms = _query_terms(query)
            if full and len(mine) < min(limit, k):
                out.append(self.text(query, part_where, k))
            else:
                out.append(self._ranked(terms, mine, self._count(part_where), k) if mine and terms else [])
        return out

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
