"""Writing the search index in batches of objects, so an ingest's memory does not grow with the catalog.

Each batch of objects is chunked, looked up in the existing index (its rows by evidence_id: a vector is reused
when its object's content_hash and its chunk's text match), embedded where it must be, and written, before the
next batch is read. Nothing here holds every row, vector or chunk id: what stays is one batch's rows, the rows
waiting to be written (at most FLUSH_ROWS), and the set of the catalog's evidence ids (to delete the rows of
objects it no longer has).

A new table (or every row of one written again) is written by Lance as the batches are embedded, a file of
FILE_ROWS rows to a commit (`_Stream`); a re-ingest commits its changed rows FLUSH_ROWS at a time. One revision,
published whole: those commits are LanceDB versions no reader opens (readers check out the version tagged with the
catalog revision they opened, core/retrieve/index.py `open_table`); the tag is set only after the last batch and
the indexes. A failure part-way restores the table to the version it started from (a new table is removed), so the
latest version is the previous revision again. A process killed part-way leaves untagged versions that the next
ingest writes over, row by row, as it would any other difference.
"""
from __future__ import annotations

import os
import queue
import shutil
import sys
import threading
import time
from array import array
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from core.catalog.bulk import collector_paused
from core.catalog.evidence import Evidence, evidence_ids, evidence_keys
from core.catalog.spilled import unflagged_runs
from core.retrieve import ann
from core.retrieve.index import (
    FILTER_COLUMNS,
    TABLE,
    IndexReport,
    check_index_path,
    chunks_of,
    embedded_text,
    index_path,
    index_precision,
    open_table,
    revision_tag,
    schema,
)
from core.retrieve.reader import dataset_uri

# Objects read, chunked and embedded at a time: ~1,800 chunk rows of the synthetic catalogs, a few MB of rows and
# vectors; large enough that the encoder's length-sorted batches pad little and a LanceDB commit is not per row.
BATCH_OBJECTS = 1000
# Rows of a re-ingest (changed objects, changed ACLs) written per commit: each commit deletes their old rows by
# chunk_id and appends the new ones, so a re-ingest that changes 1% makes a few commits, not one per batch.
FLUSH_ROWS = 20_000
# Ids per delete predicate (LanceDB parses the IN list as SQL).
DELETE_IDS = 2_000
# Each commit of rows is a fragment of its own: a first ingest of a million objects committed a batch at a time left 85
# of ~21,000 rows. Where a search reads rows by their place (from ann.RQ_MIN_ROWS rows on: the IVF_RQ index re-scores
# its candidates with their full vectors, and above search.HELD_ROWS_UP_TO a hit's columns are read so), each
# fragment touched costs a read of its own: 300 rows took 13-20 ms from those 85 fragments and 7 ms from 6 of
# ~300,000 (docs/scale.md, "Fewer, larger fragments"). So a new table is written a file of FILE_ROWS rows to a commit
# (ann.SEGMENT_ROWS: one file a segment of the vector index build). Lance writes a file as its rows arrive, so the
# write's memory does not grow with the file (one-off, 600,000 rows: the same peak for files of 100,000 and 600,000).
FILE_ROWS = 250_000
# Re-ingests still add a fragment each. One that leaves more than SMALL_FRAGMENTS fragments under COMPACT_ROWS rows
# in a table searched by place rewrites them into fragments of COMPACT_ROWS (about 20 s at a million objects, before
# the vector index is built). The rewrite's working memory grows with the fragment it writes: at a million objects
# +480 MB for fragments of 100,000 rows against +720-760 for 250,000 (one-off).
COMPACT_ROWS = 100_000
SMALL_FRAGMENTS = 16

# What rows an object makes (core/retrieve/index.py `chunks_of`, `embedded_text`): bump it with any change there. An
# index written under this value lets a re-ingest pass over an object whose content hash and ACL revision every row
# of it holds, without reading, chunking or comparing it; under another value, or none (written before it was
# recorded), every such object is chunked again and its rows compared text by text.
CHUNKING = "1"
CHUNKING_KEY = "asof.chunking"
# Objects whose index rows are looked up at a time, by evidence_id (a BTree index), to find the settled ones.
SETTLED_LOOKUP = 5_000
# The index's evidence ids read at a time when the removed objects' rows are found: each batch is checked against
# the catalog's ids in one Arrow lookup, which builds its hash table of the ids anew.
DROP_BATCH_ROWS = 262_144

Progress = Callable[[int, int, int], None]  # (objects done, objects in all, chunks embedded so far)


class ChunkEncoder:
    """Chunks and embeds objects whose vectors cannot be reused: here, in this process. The Ray backend
    (core/retrieve/ray_embed.py) does the same on a cluster."""

    def __init__(self, encoder):
        self.encoder = encoder
        self.precision = encoder.precision
        self.dim = encoder.dim

    def rows(self, objects: list[Evidence]) -> list[tuple[int, str, str, str, np.ndarray]]:
        """(object position in `objects`, chunk_id, part, text, vector) of every chunk of these objects."""
        chunks = [(n, *c) for n, ev in enumerate(objects) for c in chunks_of(ev)]
        heads = [embedded_text(text, objects[n].kind, part) for n, _, part, text in chunks]
        return list(zip(*zip(*chunks), self.vectors(heads))) if chunks else []

    def vectors(self, heads: list[str]) -> np.ndarray:
        # Each distinct text is encoded once (sources and policies of one system often read alike).
        texts = list(dict.fromkeys(heads))
        encoded = self.encoder.encode(texts)
        position = {text: n for n, text in enumerate(texts)}
        return encoded[[position[h] for h in heads]] if heads else encoded

    def close(self) -> None:
        pass


def _batches(items: Iterable[Evidence], size: int) -> Iterator[list[Evidence]]:
    batch: list[Evidence] = []
    for item in items:
        batch.append(item)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


def _quoted(ids: Iterable[str]) -> str:
    return ", ".join("'" + i.replace("'", "''") + "'" for i in ids)


class _Stream:
    """One Lance write of a new table's rows (a file of them, IndexWriter._stream), on a thread of its own: Lance
    encodes and writes a batch while the next is embedded, and commits once, when `close` ends the rows. `put` waits
    while one batch is queued, so the rows held stay a few batches (one queued, one Lance reads, one being built)
    however large the table."""

    _END = object()
    _STOP = object()

    def __init__(self, uri: str, fields: pa.Schema, mode: str):
        self.uri = uri
        self.queue: queue.Queue = queue.Queue(maxsize=1)
        self.failed: BaseException | None = None
        self.thread = threading.Thread(target=self._write, args=(fields, mode), name="asof-index-write", daemon=True)
        self.thread.start()

    def _rows(self) -> Iterator[pa.RecordBatch]:
        while (rows := self.queue.get()) is not self._END:
            if rows is self._STOP:
                raise RuntimeError("ingest stopped")  # Lance then fails the write: nothing is committed
            yield from rows.to_batches()

    def _write(self, fields: pa.Schema, mode: str) -> None:
        import lance
        try:
            lance.write_dataset(pa.RecordBatchReader.from_batches(fields, self._rows()), self.uri, schema=fields,
                                mode=mode, max_rows_per_file=FILE_ROWS)
        except BaseException as exc:  # noqa: BLE001 (raised on the ingest's thread, by put or close)
            self.failed = exc

    def put(self, rows) -> None:
        while self.thread.is_alive():
            try:
                self.queue.put(rows, timeout=0.5)
                return
            except queue.Full:
                continue
        raise self._error() from self.failed

    def close(self) -> None:
        """End the rows and wait for Lance to commit them."""
        self.put(self._END)
        self.thread.join()
        if self.failed is not None:
            raise self._error() from self.failed

    def abort(self) -> None:
        """End the write without a commit."""
        while self.thread.is_alive():
            try:
                self.queue.get_nowait()  # room for the stop, where a batch waits
            except queue.Empty:
                pass
            try:
                self.queue.put(self._STOP, timeout=0.5)
                break
            except queue.Full:
                continue
        self.thread.join()

    def _error(self) -> OSError:
        return OSError(f"writing the search index {self.uri} failed: {self.failed or 'the write ended early'}")


@dataclass
class _Pending:
    """Rows waiting to be written and chunk ids whose old rows go, flushed together."""
    rows: list[pa.Table]
    replaced: list[str]
    count: int = 0


class IndexWriter:
    """One ingest's index write: `add` batches of objects, then `finish` (indexes, tag) or `abort`."""

    def __init__(self, db_path: str | Path, chunker: ChunkEncoder, quiet: bool = False):
        import lancedb
        self.path = index_path(db_path)
        check_index_path(db_path)
        self.chunker = chunker
        self.fields = schema(chunker.dim)
        table, broken = open_table(self.path, None)  # the probe readers run: a half-broken index is rebuilt
        self.aside = None
        if broken and not quiet:
            print(f"warning: {broken.split('; answers use')[0]}; rebuilding it now", file=sys.stderr)
        if broken and self.path.is_dir():
            # Unreadable: set it aside (one atomic rename) and build a new one; removed once that succeeded.
            self.aside = self.path.with_name(f".{self.path.name}.broken-{os.getpid()}")
            shutil.rmtree(self.aside, ignore_errors=True)
            os.replace(self.path, self.aside)
            table = None
        self.db = lancedb.connect(str(self.path))
        self.table = table
        self.start = table.version if table is not None else None
        # Written before rows recorded their precision, or at another one: every row is embedded again, into a
        # new version of the same table (readers pinned to an older tag keep reading it).
        self.reuse = table is not None and table.schema.names == self.fields.names \
            and index_precision(table) == chunker.precision
        self.overwrite = table is not None and not self.reuse
        self.pending = _Pending([], [])
        self.fresh = table is None or self.overwrite  # every row is new: written by _stream
        self.stream: _Stream | None = None
        self.streamed = 0  # rows put to the stream since its last commit
        self.report = IndexReport(chunks=0, embedded=0, reused=0, deleted=0)
        self.ids = pa.array([], pa.string())  # every evidence id of the catalog (write_index sets it from the keys)

    def _existing(self, objects: list[Evidence]) -> tuple[dict[str, tuple[str, str, str]], set[str]]:
        """chunk_id -> (content_hash, acl_revision, text) of these objects' rows in the index, and the evidence ids
        whose rows hold the object's present content_hash. Without vectors: most rows of a re-ingest are unchanged
        and never rewritten, and their vectors were most of what a re-ingest read (`_vectors` reads the few kept)."""
        if not self.reuse:
            return {}, set()
        old = self.table.to_lance().to_table(
            columns=["chunk_id", "evidence_id", "content_hash", "acl_revision", "text"],
            filter=f"evidence_id IN ({_quoted(ev.evidence_id for ev in objects)})")
        hashes = {ev.evidence_id: ev.content_hash for ev in objects}
        rows, known = {}, set()
        for cid, eid, h, a, t in zip(
                old["chunk_id"].to_pylist(), old["evidence_id"].to_pylist(), old["content_hash"].to_pylist(),
                old["acl_revision"].to_pylist(), old["text"].to_pylist()):
            rows[cid] = (h, a, t)
            if hashes.get(eid) == h:
                known.add(eid)
        return rows, known

    def _vectors(self, evidence_ids: set[str]) -> dict[str, np.ndarray]:
        """chunk_id -> stored vector of these objects' rows (rewritten with their text unchanged: a new ACL), looked
        up by evidence_id, the column with a BTree index."""
        if not evidence_ids:
            return {}
        old = self.table.to_lance().to_table(columns=["chunk_id", "vector"],
                                             filter=f"evidence_id IN ({_quoted(sorted(evidence_ids))})")
        return dict(zip(old["chunk_id"].to_pylist(), _matrix(old["vector"])))

    def add(self, objects: list[Evidence]) -> int:
        """Index one batch; returns the chunks embedded for it."""
        with collector_paused():
            existing, known = self._existing(objects)
            # An object whose content_hash the index holds is chunked here and keeps each chunk's vector when the
            # chunk's text is the same (a release that chunks differently re-embeds just those chunks); any other
            # object is chunked and embedded by the chunker (here, or on a Ray cluster).
            kept: list[tuple[int, str, str, str]] = []
            again: list[tuple[int, str, str, str]] = []
            fresh: list[int] = []
            for n, ev in enumerate(objects):
                if ev.evidence_id not in known:
                    fresh.append(n)
                    continue
                for cid, part, text in chunks_of(ev):
                    prior = existing.get(cid)
                    if prior and prior[0] == ev.content_hash and prior[2] == text:
                        kept.append((n, cid, part, text))
                    else:
                        again.append((n, cid, part, text))
        embedded = [(fresh[n], *rest) for n, *rest in self.chunker.rows([objects[n] for n in fresh])] if fresh else []
        if again:
            heads = [embedded_text(text, objects[n].kind, part) for n, _, part, text in again]
            embedded += [(*row, v) for row, v in zip(again, self.chunker.vectors(heads))]
        with collector_paused():
            self.report.chunks += len(kept) + len(embedded)
            self.report.embedded += len(embedded)
            self.report.reused += len(kept)
            new = {r[1] for r in kept} | {r[1] for r in embedded}
            stale = [cid for cid in existing if cid not in new]
            self.report.deleted += len(stale)
            # Only rows that changed are written: rewriting a row moves it out of the vector index's coverage, so
            # rewriting all of them made every re-ingest retrain the index (ann.build), changed or not.
            # A kept row holds its object's content and chunk text already: it changed only when its ACL did.
            rekept = [r for r in kept if existing[r[1]][1] != objects[r[0]].acl_revision]
            vectors = self._vectors({objects[r[0]].evidence_id for r in rekept})
            changed = [(*r, vectors[r[1]]) for r in rekept] + [
                r for r in embedded if (existing.get(r[1]) or (None, None, None))
                != (objects[r[0]].content_hash, objects[r[0]].acl_revision, r[3])]
            replaced = [r[1] for r in changed if r[1] in existing] + stale
            if changed or replaced:
                self._stage(self._arrow(objects, changed), replaced)
        return len(embedded)

    def _arrow(self, objects: list[Evidence], rows: list[tuple]) -> pa.Table:
        evs = [objects[r[0]] for r in rows]
        columns = {"chunk_id": [r[1] for r in rows], "evidence_id": [ev.evidence_id for ev in evs],
                   "entity_id": [ev.entity_id for ev in evs], "part": [r[2] for r in rows],
                   "kind": [ev.kind.value for ev in evs], "authority": [ev.authority.value for ev in evs],
                   "lifecycle": [ev.lifecycle.value for ev in evs], "valid_from": [ev.valid_from for ev in evs],
                   "valid_to": [ev.valid_to for ev in evs], "acl": [ev.acl for ev in evs],
                   "content_hash": [ev.content_hash for ev in evs],
                   "acl_revision": [ev.acl_revision for ev in evs], "text": [r[3] for r in rows],
                   "precision": [self.chunker.precision] * len(rows)}
        dim = self.chunker.dim
        vectors = np.stack([r[4] for r in rows]).astype(np.float32) if rows else np.zeros((0, dim), np.float32)
        arrays = [pa.FixedSizeListArray.from_arrays(pa.array(vectors.reshape(-1), pa.float32()), dim)
                  if f.name == "vector" else pa.array(columns[f.name], f.type) for f in self.fields]
        return pa.Table.from_arrays(arrays, schema=self.fields)

    def _stage(self, rows: pa.Table, replaced: list[str]) -> None:
        if self.fresh:
            # The rows of a new table, or of the new version that replaces every row of an old one.
            self._stream(rows)
            return
        self.pending.rows.append(rows)
        self.pending.replaced += replaced
        self.pending.count += rows.num_rows
        if self.pending.count >= FLUSH_ROWS or len(self.pending.replaced) >= FLUSH_ROWS:
            self._flush()

    def _stream(self, rows: pa.Table) -> None:
        """Write a new table's rows FILE_ROWS to a commit, each commit one file: an ingest killed part-way leaves
        what it committed for the next to reuse (its vectors), as a re-ingest's commits do."""
        at = 0
        while at < rows.num_rows:
            if self.stream is None:
                mode = "overwrite" if self.overwrite else "create" if self.table is None else "append"
                self.stream, self.streamed = _Stream(dataset_uri(self.path)[0], self.fields, mode), 0
            part = rows.slice(at, FILE_ROWS - self.streamed)
            self.stream.put(part)
            self.streamed += part.num_rows
            at += part.num_rows
            if self.streamed == FILE_ROWS:
                self._commit_stream()

    def _commit_stream(self) -> None:
        stream, self.stream = self.stream, None
        stream.close()
        if self.table is None:
            self.table = self.db.open_table(TABLE)
        else:
            self.table.checkout_latest()
        self.overwrite = False

    def _flush(self) -> None:
        pending, self.pending = self.pending, _Pending([], [])
        for start in range(0, len(pending.replaced), DELETE_IDS):
            self.table.delete(f"chunk_id IN ({_quoted(pending.replaced[start:start + DELETE_IDS])})")
        rows = [t for t in pending.rows if t.num_rows]
        if rows:
            self.table.add(pa.concat_tables(rows))

    def _drop_removed(self) -> None:
        """Delete the rows of objects the catalog no longer has (the index's ids read a batch at a time, not held)."""
        gone: set[str] = set()
        for batch in self.table.to_lance().to_batches(columns=["evidence_id"], batch_size=DROP_BATCH_ROWS):
            held = pc.unique(batch.column(0))
            gone.update(held.filter(pc.invert(pc.is_in(held, value_set=self.ids))).to_pylist())
        if not gone:
            return
        ids = sorted(gone)
        for start in range(0, len(ids), DELETE_IDS):
            self.report.deleted += self.table.count_rows(f"evidence_id IN ({_quoted(ids[start:start + DELETE_IDS])})")
            self.table.delete(f"evidence_id IN ({_quoted(ids[start:start + DELETE_IDS])})")

    def finish(self, revision: str | None, ann_min_rows: int = ann.ANN_MIN_ROWS) -> IndexReport:
        """Write what is pending, delete removed objects' rows, build the indexes and tag the version."""
        from lancedb.index import Bitmap, BTree, LabelList

        if self.stream is not None:
            self._commit_stream()
        if self.table is None or self.overwrite:  # a catalog with no indexed rows still gets an (empty) table
            self.table = self.db.create_table(TABLE, data=self._arrow([], []),
                                              mode="overwrite" if self.overwrite else "create")
            self.overwrite = False
        self._flush()
        self._drop_removed()
        self.ids = pa.array([], pa.string())  # read by _drop_removed only: freed before the index builds
        table = self.table
        _compact(table)
        # The vector index first: its build is the ingest's peak, and building the scalar indexes before it left the
        # process ~100-200 MB larger when it started (a 1M ingest: 1,033 MB against 926, docs/scale.md).
        self.report.ann = ann.build(table, ann_min_rows)
        table.create_index("acl", config=LabelList(), replace=True)
        # Every search's filter names these few-valued columns beside the ACL: with their bitmaps Lance computes the
        # whole pre-filter from indexes instead of reading three columns of every row (at 178k rows a role-filtered
        # vector search went from 24 to 10 ms: docs/scale.md; a full-text search's mask is one such filter).
        for column in FILTER_COLUMNS:
            table.create_index(column, config=Bitmap(), replace=True)
        # The next ingest looks its batches' rows up by evidence_id.
        table.create_index("evidence_id", config=BTree(), replace=True)
        if _chunking(table) != CHUNKING:
            table.to_lance().update_schema_metadata({CHUNKING_KEY: CHUNKING})
            table.checkout_latest()
        if revision:
            tag = revision_tag(revision)
            if tag in table.tags.list():
                table.tags.update(tag, table.version)
            else:
                table.tags.create(tag, table.version)
        self.report.version = table.version
        if self.aside is not None:
            shutil.rmtree(self.aside, ignore_errors=True)
        return self.report

    def abort(self) -> None:
        """Leave the index as this ingest found it: the latest version is the previous revision's again."""
        try:
            if self.stream is not None:
                self.stream.abort()
            uri = dataset_uri(self.path)[0]
            if self.start is not None:
                if self.table is not None:
                    self.table.checkout_latest()  # a stream's commit is not seen by the table object opened before
                    if self.table.version != self.start:
                        self.table.restore(self.start)
            elif self.table is not None:
                self.db.drop_table(TABLE)
            elif not Path(uri, "_versions").exists():
                shutil.rmtree(uri, ignore_errors=True)  # a new table's first write, stopped before its commit
            if self.aside is not None:
                shutil.rmtree(self.path, ignore_errors=True)  # what this ingest wrote in its place
                os.replace(self.aside, self.path)
        except Exception:  # noqa: BLE001 (the error being reported is the one that stopped the ingest)
            pass
        finally:
            self.chunker.close()


def _compact(table) -> None:
    """Rewrite the table's small fragments into fragments of COMPACT_ROWS rows, where searches read rows by place. The
    rows as written before stay on disk for readers of earlier revisions (each revision's version is tagged)."""
    dataset = table.to_lance()
    if dataset.count_rows() < ann.RQ_MIN_ROWS:
        return
    # Rows as written, as Lance's own plan counts them: a fragment that lost a few rows to a re-ingest is not small.
    if sum(1 for f in dataset.get_fragments() if f.metadata.physical_rows < COMPACT_ROWS) <= SMALL_FRAGMENTS:
        return
    # One thread, batches of 256 rows: +930 MB at a million objects with Lance's defaults (two threads, 1,024 rows).
    dataset.optimize.compact_files(target_rows_per_fragment=COMPACT_ROWS, num_threads=1, batch_size=256)
    table.checkout_latest()


def _matrix(column) -> np.ndarray:
    """A fixed-size-list column as a (rows, dim) array, without a Python list per vector."""
    column = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    if len(column) == 0:
        return np.zeros((0, column.type.list_size), dtype=np.float32)
    return column.flatten().to_numpy(zero_copy_only=False).reshape(len(column), column.type.list_size)


def count_chunks(evidence: Iterable[Evidence]) -> int:
    """Chunk rows the catalog makes, counted before any is built: the encoder's precision follows the index's
    size (core/retrieve/embed.py `for_rows`)."""
    return sum(len(chunks_of(ev)) for ev in evidence)


def _chunking(table) -> str | None:
    raw = table.schema.metadata or {}
    value = raw.get(CHUNKING_KEY.encode())
    return value.decode() if value else None


def settled_rows(db_path: str | Path, keys: list[tuple[str, str, str]]) -> array:
    """Per object (in catalog order), the rows the index holds for it when every one of them holds the object's
    content hash and ACL revision and was chunked as this release chunks (CHUNKING); 0 for any other object. A
    re-ingest neither reads nor chunks a settled object: its rows stay as they are."""
    counts = array("I", bytes(4 * len(keys)))
    table, broken = open_table(index_path(db_path), None) if index_path(db_path).is_dir() else (None, None)
    if table is None or broken or _chunking(table) != CHUNKING or not table.count_rows():
        return counts
    ds = table.to_lance()
    for start in range(0, len(keys), SETTLED_LOOKUP):
        part = keys[start:start + SETTLED_LOOKUP]
        rows = ds.to_table(columns=["evidence_id", "content_hash", "acl_revision"],
                           filter=f"evidence_id IN ({_quoted(k[0] for k in part)})")
        if not rows.num_rows:
            continue
        # One row per (object, content hash, ACL revision) held: an object is settled when its only one is its own.
        held = rows.group_by(["evidence_id", "content_hash", "acl_revision"]).aggregate([("evidence_id", "count")])
        seen: dict[str, tuple[str, str, int] | None] = {}
        for eid, h, a, n in zip(*(held.column(c).to_pylist() for c in
                                  ("evidence_id", "content_hash", "acl_revision", "evidence_id_count"))):
            seen[eid] = None if eid in seen else (h, a, n)
        for i, (eid, h, a) in enumerate(part, start):
            got = seen.get(eid)
            if got and got[:2] == (h, a):
                counts[i] = got[2]
    return counts


def _unsettled(evidence: Sequence[Evidence], settled: array) -> Iterator[Evidence]:
    """The objects not settled, in order, read in runs of neighbours (a spilled catalog reads a run at once)."""
    for start, stop in unflagged_runs(settled, SETTLED_LOOKUP):
        yield from evidence[start:stop]


def write_index(evidence: Sequence[Evidence], db_path: str | Path, embedder, revision: str | None = None,
                quiet: bool = False, ann_min_rows: int = ann.ANN_MIN_ROWS, progress: Progress | None = None,
                chunker: Callable[[object], ChunkEncoder] | None = None) -> IndexReport:
    """The catalog's index, written batch by batch and tagged with `revision` once complete; on any failure the
    index is left as it was and the error raised. A re-ingest's work follows what changed: settled objects
    (`settled_rows`) are counted from the index, never read back, chunked or looked up row by row."""
    keys = evidence_keys(evidence)
    with collector_paused():
        settled = settled_rows(db_path, keys)
        kept_rows = sum(settled)
        encoder = embedder.for_rows(kept_rows + count_chunks(_unsettled(evidence, settled)))
    writer = IndexWriter(db_path, (chunker or ChunkEncoder)(encoder), quiet)
    if not writer.reuse:  # a new table, or every row embedded again at another precision: nothing is settled
        settled, kept_rows = array("I", bytes(4 * len(keys))), 0
    try:
        writer.ids = evidence_ids(keys)
        writer.report.chunks += kept_rows
        writer.report.reused += kept_rows
        done = sum(1 for c in settled if c)
        todo = len(keys) - done
        # A remote chunker takes larger windows (core/retrieve/ray_embed.py: starting its actors costs seconds).
        for batch in _batches(_unsettled(evidence, settled), getattr(writer.chunker, "batch_objects", BATCH_OBJECTS)):
            writer.add(batch)
            done += len(batch)
            if progress:
                progress(done, len(keys), writer.report.embedded)
        if progress and not todo:
            progress(len(keys), len(keys), 0)
        report = writer.finish(revision, ann_min_rows)
    except BaseException:
        writer.abort()
        raise
    writer.chunker.close()
    return report


def stderr_progress(quiet: bool = False, every: float = 5.0) -> Progress | None:
    """Progress lines on stderr for a long ingest: objects, chunks embedded, rate, time left; at most one every
    `every` seconds, and the last."""
    if quiet:
        return None
    start = time.monotonic()
    last = [start]

    def report(done: int, total: int, embedded: int) -> None:
        now = time.monotonic()
        if now - last[0] < every and done < total:
            return
        last[0] = now
        elapsed = max(now - start, 1e-6)
        left = elapsed / done * (total - done) if done else 0.0
        print(f"  indexed {done:,}/{total:,} objects, {embedded:,} chunks embedded, "
              f"{embedded / elapsed:,.0f} chunks/s, {done / elapsed:,.0f} objects/s, "
              f"about {_duration(left)} left", file=sys.stderr, flush=True)
    return report


def _duration(seconds: float) -> str:
    seconds = int(round(seconds))
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return f"{seconds // 60} min {seconds % 60:02d} s"
    return f"{seconds // 3600} h {seconds % 3600 // 60:02d} min"


def build_index(catalog, db_path: str | Path, embedder, quiet: bool = False,
                ann_min_rows: int = ann.ANN_MIN_ROWS) -> IndexReport:
    """The whole catalog's index, tagged with its revision (tests, the evaluation page, benchmarks)."""
    return write_index(catalog.evidence, db_path, embedder, catalog.revision(), quiet, ann_min_rows)
