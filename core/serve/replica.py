"""A replica's side of a catalog published to object storage (core/settings/objects.py).

CURRENT is read every `poll_s` on a background thread, and by a request that finds the last look older than
that; each revision's DuckDB file (small) is downloaded once into a local cache folder, and its LanceDB index
is read in place from object storage. While a new revision downloads, requests keep answering from the one
they had: a slow download never stalls answers, and no request sees a half-downloaded file (it is renamed
into place when complete). The background look is what keeps an idle replica current: looked for only by
requests, the first ones after a quiet spell answered from the revision before, however long ago the new one
was published, while one of them downloaded it.
"""
from __future__ import annotations

import os
import shutil
import sys
import threading
import time
import weakref
from pathlib import Path

from core.settings.objects import (
    DB_NAME,
    INDEX_NAME,
    ObjectLocation,
    ObjectStoreError,
    ObjectStoreSettings,
    Pointer,
    RemoteIndex,
    read_pointer,
)

KEEP_REVISIONS = 3  # downloaded revisions kept on disk; requests still on an older one hold its open file


class Revision:
    """One published revision as a replica reads it."""

    def __init__(self, pointer: Pointer, db_path: Path, index: RemoteIndex | None):
        self.pointer, self.db_path, self.index = pointer, db_path, index


def _watch(replica: "Replica") -> None:
    """Look at CURRENT every `poll_s` for as long as the replica is in use (the thread holds it weakly, and ends
    once it is gone). A failed look is the request path's to report: `problem` says why, the last revision stays."""
    ref, poll = weakref.ref(replica), replica.poll_s

    def run() -> None:
        while True:
            time.sleep(poll)
            live = ref()
            if live is None:
                return
            try:
                live.current()
            except Exception:  # noqa: BLE001 (pyarrow raises ValueError kinds too): the watch must outlive one bad look
                pass  # nothing published yet, or its revision unreadable: the next request raises it, named
            del live

    threading.Thread(target=run, daemon=True, name="asof-replica-watch").start()


class Replica:
    def __init__(self, url: str, cache_dir: str | Path, settings: ObjectStoreSettings | None = None,
                 poll_s: float = 1.0):
        self.where = ObjectLocation.parse(url)
        self.settings = settings or ObjectStoreSettings.from_env()
        self.cache_dir = Path(cache_dir)
        self.poll_s = poll_s
        self._fs = self.settings.filesystem()
        self._current: Revision | None = None
        self._checked = 0.0
        self._refreshing = threading.Lock()
        self.problem: str | None = None  # why CURRENT could not be read at the last look, if it could not
        if poll_s > 0:
            _watch(self)

    def current(self) -> Revision:
        """The revision CURRENT names (as of at most `poll_s` ago)."""
        if self._current is not None and time.monotonic() - self._checked < self.poll_s:
            return self._current
        if not self._refreshing.acquire(blocking=self._current is None):
            return self._current  # another request is already looking; answer from what we have
        try:
            if self._current is None or time.monotonic() - self._checked >= self.poll_s:
                try:
                    pointer = read_pointer(self._fs, self.where)
                except ObjectStoreError as exc:
                    if self._current is None:
                        raise
                    # Storage unreachable for a moment: keep answering from the revision we have (whole and
                    # consistent, only not newer), say so once, and look again after the next interval.
                    if self.problem is None:
                        print(f"warning: {exc}; answering from revision {self._current.pointer.folder} meanwhile",
                              file=sys.stderr, flush=True)
                    self.problem, self._checked = str(exc), time.monotonic()
                    return self._current
                self.problem = None
                if pointer is None:
                    raise ObjectStoreError(f"nothing is published at {self.where.url} yet (no CURRENT object); "
                                           "run `asof publish` or `asof ingest ... --publish URL` first")
                if self._current is None or pointer.folder != self._current.pointer.folder:
                    self._current = self._fetch(pointer)
                self._checked = time.monotonic()
            return self._current
        finally:
            self._refreshing.release()

    def _fetch(self, pointer: Pointer) -> Revision:
        import pyarrow.fs as pafs
        folder = self.cache_dir / pointer.folder
        local = folder / DB_NAME
        if not local.is_file():
            folder.mkdir(parents=True, exist_ok=True)
            part = folder / f".{DB_NAME}.{os.getpid()}.part"
            try:
                pafs.copy_files(self.where.revision_key(pointer.folder, DB_NAME), str(part),
                                source_filesystem=self._fs, destination_filesystem=pafs.LocalFileSystem())
            except OSError as exc:
                raise ObjectStoreError(f"CURRENT at {self.where.url} names revision {pointer.folder}, but its "
                                       f"{DB_NAME} cannot be read ({type(exc).__name__}: {str(exc)[:300]})") from exc
            os.replace(part, local)
            self._prune(keep=pointer.folder)
        index = None
        if pointer.index_version is not None:
            index = RemoteIndex(uri=f"s3://{self.where.revision_key(pointer.folder, INDEX_NAME)}",
                                storage_options=self.settings.lance_options())
        return Revision(pointer, local, index)

    def _prune(self, keep: str) -> None:
        folders = sorted((p for p in self.cache_dir.iterdir() if p.is_dir()), key=lambda p: p.name)
        for old in folders[:-KEEP_REVISIONS]:
            if old.name != keep:
                # An open DuckDB connection keeps reading an unlinked file on POSIX.
                shutil.rmtree(old, ignore_errors=True)
