"""The catalog a long-running server answers from, shared by all of its threads.

A re-ingest replaces the database file by rename. Each file revision is opened once (a Store and,
once the embedding model is ready, a Searcher pinned to the index version tagged for that catalog
revision); a request takes the pair for the file as it is when the request starts and uses that pair
to the end, so an answer never mixes two revisions. Requests already running on the old pair finish
on it: the renamed-away file stays readable through its open connection.
"""
from __future__ import annotations

import threading
import weakref
from pathlib import Path

from core.catalog.store import Store
from core.retrieve.embed import Embedder
from core.retrieve.search import Searcher


def _file_key(path: Path) -> tuple[int, int]:
    st = path.stat()
    return st.st_ino, st.st_mtime_ns


class Live:
    def __init__(self, db_path: str | Path, embedder: Embedder | None = None):
        self.path = Path(db_path)
        self.embedder = embedder
        self._lock = threading.Lock()
        self._key: tuple[int, int] | None = None
        self._store: Store | None = None
        self._searchers: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

    def store(self) -> Store:
        """The Store for the database file as it is now (opened once per file revision)."""
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

    def searcher(self, store: Store) -> Searcher | None:
        """The searcher paired with exactly this Store (None without an index or an embedder)."""
        if self.embedder is None:
            return None
        with self._lock:
            if store not in self._searchers:
                s = Searcher(store, self.embedder)
                # An unreadable index is kept: `ask` reports its problem in each answer.
                self._searchers[store] = s if s.available or s.problem else None
            return self._searchers[store]
