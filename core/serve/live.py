"""The catalog a long-running server answers from, shared by all of its threads.

A re-ingest replaces the database file by rename. Each file revision is opened once (a Store and,
once the embedding model is ready, a Searcher pinned to the index version tagged for that catalog
revision); a request takes the pair for the file as it is when the request starts and uses that pair
to the end, so an answer never mixes two revisions. Requests already running on the old pair finish
on it: the renamed-away file stays readable through its open connection.

Given an `s3://bucket/prefix` URL instead of a file, the same holds per published revision: the
replica (core/serve/replica.py) reads CURRENT, the Store opens that revision's downloaded DuckDB file,
and the Searcher reads that revision's index from object storage; a new CURRENT is picked up by the
next request, without a restart.
"""
from __future__ import annotations

import threading
import weakref
from pathlib import Path

from core.catalog.store import Store
from core.retrieve.embed import Embedder
from core.retrieve.search import Searcher
from core.serve.replica import Replica
from core.settings.objects import ObjectStoreSettings, is_object_url


def _file_key(path: Path) -> tuple[int, int]:
    st = path.stat()
    return st.st_ino, st.st_mtime_ns


class Live:
    def __init__(self, db_path: str | Path, embedder: Embedder | None = None, cache_dir: str | Path | None = None,
                 objects: ObjectStoreSettings | None = None, poll_s: float = 1.0):
        self.replica = None
        if is_object_url(str(db_path)):
            if cache_dir is None:
                raise ValueError(f"{db_path}: a catalog in object storage needs a local cache folder (cache_dir)")
            self.replica = Replica(str(db_path), cache_dir, objects, poll_s)
        self.path = Path(db_path) if self.replica is None else None
        self.embedder = embedder
        self._lock = threading.Lock()
        self._key: tuple[int, int] | str | None = None
        self._store: Store | None = None
        # The current revision's searcher, and one a question still answering from the revision before asked for. Not
        # a WeakKeyDictionary: a searcher holds its Store, so such a key is never freed, and a warmed searcher holds
        # its index's rows (~125 MB at 100k objects, core/retrieve/search.py).
        self._searchers: dict[Store, Searcher | None] = {}
        self._indexes: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # Store -> its RemoteIndex

    def store(self) -> Store:
        """The Store for the database file as it is now (opened once per file revision)."""
        if self.replica is not None:
            return self._replica_store()
        with self._lock:
            for _ in range(5):
                key = _file_key(self.path)
                if self._store is not None and key == self._key:
                    return self._store
                store = Store(self.path)
                # The key must describe the file this Store opened, not one renamed over it meanwhile.
                if _file_key(self.path) == key:
                    self._key, self._store = key, store
                    return store
                store.close()
            raise RuntimeError(f"{self.path} keeps being replaced; ask again once the ingest has finished")

    def _replica_store(self) -> Store:
        revision = self.replica.current()
        with self._lock:
            if self._store is not None and self._key == revision.pointer.folder:
                return self._store
            store = Store(revision.db_path)
            if revision.index is not None:
                self._indexes[store] = revision.index
            self._key, self._store = revision.pointer.folder, store
            return store

    def searcher(self, store: Store) -> Searcher | None:
        """The searcher paired with exactly this Store (None without an index or an embedder)."""
        if self.embedder is None:
            return None
        with self._lock:
            if store not in self._searchers:
                s = Searcher(store, self.embedder, self._indexes.get(store))
                # An unreadable index is kept: `ask` reports its problem in each answer.
                self._searchers[store] = s if s.available or s.problem else None
            for older in [k for k in self._searchers if k is not store and k is not self._store]:
                del self._searchers[older]  # questions still answering from it hold their own reference
            return self._searchers[store]
