"""A validated catalog's objects kept on disk while an ingest writes them, not in memory.

A validated `Evidence` costs 2.5-5 KB of memory, so a million of them would not fit beside what the index build
needs (docs/scale.md, "Bounded memory"). An ingest (core/ingest/ingest.py `read_inputs`) appends each object, as
it is validated, to an anonymous temporary file as its JSON (no path: nothing else can open or swap it, and it is
gone when the process ends), and reads the objects back, in order, a batch at a time, when it writes the index
and the database. What stays in memory is the offset of each object and its key: evidence id, content hash and
ACL revision, which the catalog revision and the change summary need for every object, held in Arrow columns
(`Keys`: about 90 bytes an object where a tuple of three strings took about 320, against the kilobytes of the
object itself), and the MD5 digest of its JSON (16 bytes), by which the
catalog writer finds the objects whose rows the previous database already holds as a fresh write would
(core/catalog/store.py `_kept`): their JSON is the `doc` the database stored for them.

Objects read back are new objects: changing one changes nothing kept. Callers that edit a catalog's objects in
place (tests) use `load_catalog`, whose objects are a list.
"""
from __future__ import annotations

import hashlib
import os
import tempfile
from array import array
from bisect import bisect_right
from collections.abc import Iterator, Sequence
from typing import NamedTuple, overload

import pyarrow as pa
import pyarrow.compute as pc

from core.catalog.evidence import Evidence

# Bytes read from the file at a time when the objects are read in order.
READ_BYTES = 4 << 20
# Keys gathered as tuples before they become one Arrow chunk: a chunk's strings are then held as bytes in one buffer.
KEYS_CHUNK = 65_536
_KEY_COLUMNS = ("evidence_id", "content_hash", "acl_revision")


class Key(NamedTuple):
    evidence_id: str
    content_hash: str
    acl_revision: str


class Keys(Sequence[Key]):
    """Every object's key, in order, in Arrow columns. A million keys as tuples of Python strings held ~320 MB for
    the whole ingest, the largest part of its memory that grows with the catalog (docs/scale.md); as columns,
    ~90 MB. Read back as `Key` tuples a slice at a time, or in the catalog revision's order (`by_id`)."""

    def __init__(self):
        self._chunks: list[pa.Table] = []
        self._starts = [0]  # the first key of each chunk, and the count after the last
        self._pending: list[Key] = []

    def append(self, key: Key) -> None:
        self._pending.append(key)
        if len(self._pending) >= KEYS_CHUNK:
            self._seal()

    def _seal(self) -> None:
        if self._pending:
            columns = list(zip(*self._pending))
            self._chunks.append(pa.table({name: pa.array(col, pa.string()) for name, col in zip(_KEY_COLUMNS, columns)}))
            self._starts.append(self._starts[-1] + len(self._pending))
            self._pending = []

    def table(self) -> pa.Table:
        """All keys as one table (its chunks are the ones held: nothing is copied)."""
        self._seal()
        if not self._chunks:
            return pa.table({name: pa.array([], pa.string()) for name in _KEY_COLUMNS})
        return pa.concat_tables(self._chunks)

    def __len__(self) -> int:
        return self._starts[-1] + len(self._pending)

    @overload
    def __getitem__(self, index: int) -> Key: ...

    @overload
    def __getitem__(self, index: slice) -> list[Key]: ...

    def __getitem__(self, index):
        if isinstance(index, slice):
            start, stop, step = index.indices(len(self))
            rows = _rows(self.table().slice(start, max(0, stop - start))) if start < stop else []
            return rows[::step] if step != 1 else rows
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(index)
        return self[index:index + 1][0]

    def __iter__(self) -> Iterator[Key]:
        self._seal()
        for chunk in self._chunks:
            yield from _rows(chunk)

    def by_id(self) -> Iterator[Key]:
        """The keys sorted as tuples sort (evidence id, then content hash, then ACL revision), a chunk at a time."""
        table = self.table()
        order = pc.sort_indices(table, sort_keys=[(name, "ascending") for name in _KEY_COLUMNS])
        for start in range(0, len(order), KEYS_CHUNK):
            yield from _rows(table.take(order[start:start + KEYS_CHUNK]))


def _rows(table: pa.Table) -> list[Key]:
    return [Key(*row) for row in zip(*(table.column(name).to_pylist() for name in _KEY_COLUMNS))]


class SpilledEvidence(Sequence[Evidence]):
    """A sequence of Evidence backed by an anonymous temporary file; `append` while validating, then read."""

    def __init__(self, folder: str | None = None):
        self._file = tempfile.TemporaryFile(dir=folder)
        self._offsets = array("Q", [0])
        self.keys = Keys()
        self._digests = bytearray()

    def append(self, ev: Evidence) -> None:
        data = ev.model_dump_json().encode()
        os.pwrite(self._file.fileno(), data, self._offsets[-1])
        self._offsets.append(self._offsets[-1] + len(data))
        self.keys.append(Key(ev.evidence_id, ev.content_hash, ev.acl_revision))
        self._digests += hashlib.md5(data, usedforsecurity=False).digest()

    def digest(self, index: int) -> str:
        """The hex MD5 of object `index`'s JSON, as DuckDB's md5() gives it for the same text."""
        return self._digests[16 * index:16 * index + 16].hex()

    def __len__(self) -> int:
        return len(self._offsets) - 1

    def _read(self, start: int, stop: int) -> list[Evidence]:
        begin = self._offsets[start]
        blob = os.pread(self._file.fileno(), self._offsets[stop] - begin, begin)
        return [Evidence.model_validate_json(blob[self._offsets[i] - begin:self._offsets[i + 1] - begin])
                for i in range(start, stop)]

    @overload
    def __getitem__(self, index: int) -> Evidence: ...

    @overload
    def __getitem__(self, index: slice) -> list[Evidence]: ...

    def __getitem__(self, index):
        if isinstance(index, slice):
            start, stop, step = index.indices(len(self))
            if step != 1:
                return [self[i] for i in range(start, stop, step)]
            return self._read(start, stop) if start < stop else []
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(index)
        return self._read(index, index + 1)[0]

    def __iter__(self) -> Iterator[Evidence]:
        start = 0
        while start < len(self):
            # Whole objects up to READ_BYTES (at least one): bisect over the offsets, no Python turn per object.
            stop = min(len(self), max(start + 1, bisect_right(self._offsets, self._offsets[start] + READ_BYTES) - 1))
            yield from self._read(start, stop)
            start = stop

    def close(self) -> None:
        self._file.close()


def unflagged_runs(flags, longest: int) -> Iterator[tuple[int, int]]:
    """(start, stop) of each run of neighbouring objects whose flag is 0, at most `longest` long, in order: the objects a
    re-ingest must still read back, read a run at a time (a spilled catalog reads a run with one file read)."""
    n, start = len(flags), 0
    while start < n:
        while start < n and flags[start]:
            start += 1
        stop = start
        while stop < n and not flags[stop] and stop - start < longest:
            stop += 1
        if start < stop:
            yield start, stop
        start = stop
