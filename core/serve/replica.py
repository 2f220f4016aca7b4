"""A replica's side of a catalog published to object storage (core/settings/objects.py).

CURRENT is read every `poll_s` on a background thread, and by a request that finds the last look older than
that; each revision's DuckDB file (small) is downloaded once into a local cache folder, and its LanceDB index
is read in place from object storage. While a new revision downloads, requests keep answering from the one
they had: a slow download never stalls answers, and no request sees a half-downloaded file (it is renamed
into place when complete). The background look is what keeps an idle replica current: looked for only by
requests, the first ones after a quiet spell answered from the revision before, however long ago the new one
was published, while one of them downloaded it.

A revision is switched to only if CURRENT carries the publisher's signature by a key the replica trusts
(ASOF_TRUSTED_KEYS; checked before anything is downloaded), and a downloaded revision is checked before any request
answers from it (`check_revision`): its DuckDB file is the size and sha256 CURRENT records (a CURRENT without them
is refused), opens as an AsOf catalog of this schema holding nothing else (no view, macro, or table or column the
schema does not declare: a served file is data, never a program; Store opens it with no file access at all), holds
the catalog revision CURRENT names, and its index is there with that revision's tag. A revision that fails is refused: the replica keeps answering from
the last good one, says why once on stderr (and in `problem`), tries the same CURRENT again only after RETRY_S, and
switches as soon as CURRENT names a good revision. A replica (re)started while CURRENT is bad answers from the
newest revision in its cache that passed the check. A bad publish (a truncated upload, a hand-edited CURRENT, files
copied between folders) must never take a fleet of replicas down with it.
"""
from __future__ import annotations

import os
import shutil
import sys
import threading
import time
import weakref
from pathlib import Path

from core.catalog.store import Store
from core.retrieve.index import revision_tag
from core.retrieve.reader import dataset_uri, lance
from core.settings.objects import (
    DB_NAME,
    INDEX_NAME,
    ObjectLocation,
    ObjectStoreError,
    ObjectStoreSettings,
    Pointer,
    RemoteIndex,
    file_sha256,
    read_pointer,
)
from core.settings.signing import TRUSTED_KEYS_ENV, SigningError, load_trusted_keys, verify

KEEP_REVISIONS = 3  # downloaded revisions kept on disk; requests still on an older one hold its open file
RETRY_S = 60.0  # a refused CURRENT is downloaded and checked again after this long, if it has not changed
CHECKED_POINTER = "pointer.json"  # beside a downloaded file that passed the check: what it was checked against


class Revision:
    """One published revision as a replica reads it."""

    def __init__(self, pointer: Pointer, db_path: Path, index: RemoteIndex | None):
        self.pointer, self.db_path, self.index = pointer, db_path, index


def _watch(replica: "Replica") -> None:
    """Look at CURRENT every `poll_s` for as long as the replica is in use (the thread holds it weakly, and ends
    once it is gone). A failed look is the request path's to report: `problem` says why, the last revision stays."""
    ref, poll, stop = weakref.ref(replica), replica.poll_s, replica._stop

    def run() -> None:
        while not stop.wait(poll):
            live = ref()
            if live is None:
                return
            try:
                live.current()
            except Exception:  # noqa: BLE001 (pyarrow raises ValueError kinds too): the watch must outlive one bad look
                pass  # nothing published yet, or its revision unreadable: the next request raises it, named
            del live

    replica._watching = threading.Thread(target=run, daemon=True, name="asof-replica-watch")
    replica._watching.start()


def check_signature(pointer: Pointer, trusted: dict[str, object]) -> None:
    """Raise ObjectStoreError unless CURRENT was signed by a publisher key this replica trusts (before any download:
    an unsigned revision is never fetched, let alone opened)."""
    name = f"revision {pointer.folder}"
    if not trusted:
        raise ObjectStoreError(f"CURRENT names {name}, but this replica trusts no publisher key: set "
                               f"{TRUSTED_KEYS_ENV} to the publisher's public key file (`asof keys new` writes it)")
    try:
        verify(trusted, pointer.fields())
    except SigningError as exc:
        raise ObjectStoreError(f"CURRENT names {name}, but {exc}: refused") from None


def check_revision(revision: Revision, trusted: dict[str, object]) -> None:
    """Raise ObjectStoreError naming what is wrong unless `revision` is one a replica can answer from."""
    pointer, name = revision.pointer, f"revision {revision.pointer.folder}"
    check_signature(pointer, trusted)
    if pointer.db_size is None or pointer.db_sha256 is None:
        # Never "not checked": a pointer without them could name any file that happens to be there.
        raise ObjectStoreError(f"CURRENT names {name} without the size and sha256 of its {DB_NAME}; "
                               "publish again with `asof publish`")
    size = revision.db_path.stat().st_size
    if size != pointer.db_size:
        raise ObjectStoreError(f"CURRENT names {name}, but its {DB_NAME} is {size:,} bytes where "
                               f"{pointer.db_size:,} were published (a cut-short or replaced upload)")
    if file_sha256(revision.db_path) != pointer.db_sha256:
        raise ObjectStoreError(f"CURRENT names {name}, but its {DB_NAME} is not the file published "
                               "(its sha256 differs): a corrupted or replaced upload")
    try:
        store = Store(revision.db_path)  # opens the file as data (no file access), checks it is an AsOf catalog
    except Exception as exc:  # noqa: BLE001 (DuckDB raises many kinds on a damaged file; none may escape)
        why = str(exc).split("; run `")[0]  # the ingest hint is for a local file, not a replica's download
        raise ObjectStoreError(f"CURRENT names {name}, but its {DB_NAME} is refused: {why}") from None
    try:
        store.check_declared()  # a view or macro in a served file would be a program the replica runs
    except Exception as exc:  # noqa: BLE001 (DatabaseError, or DuckDB failing on a damaged catalog)
        store.close()
        raise ObjectStoreError(f"CURRENT names {name}, but its {DB_NAME} is refused: {exc}") from None
    try:
        held, meta = store.revision, store.meta()
    except KeyError:
        held, meta = None, {}
    finally:
        store.close()
    if held != pointer.revision:
        raise ObjectStoreError(f"CURRENT names {name} as catalog revision {pointer.revision}, but its {DB_NAME} "
                               f"holds revision {held or '(none)'}")
    if pointer.index_version is None:
        return
    if meta.get("index_version") != str(pointer.index_version):
        raise ObjectStoreError(f"CURRENT names {name} with index version {pointer.index_version}, but its {DB_NAME} "
                               f"was written with index version {meta.get('index_version') or '(none)'}")
    try:
        uri, options = dataset_uri(revision.index)
        tags = lance().dataset(uri, storage_options=options or None).tags.list()
    except Exception as exc:  # noqa: BLE001 (Lance raises many kinds: OSError, ValueError, RuntimeError)
        raise ObjectStoreError(f"CURRENT names {name}, but its index {INDEX_NAME} cannot be opened "
                               f"({type(exc).__name__}: {str(exc)[:200]})") from None
    if revision_tag(pointer.revision) not in tags:
        raise ObjectStoreError(f"CURRENT names {name}, but its index {INDEX_NAME} has no version for catalog "
                               f"revision {pointer.revision}")


class Replica:
    def __init__(self, url: str, cache_dir: str | Path, settings: ObjectStoreSettings | None = None,
                 poll_s: float = 1.0):
        self.where = ObjectLocation.parse(url)
        self.settings = settings or ObjectStoreSettings.from_env()
        self.cache_dir = Path(cache_dir)
        self.poll_s = poll_s
        self._fs = self.settings.filesystem()
        try:
            self.trusted = load_trusted_keys(self.settings.trusted_keys)  # id -> public key; read once, at start
        except SigningError as exc:
            raise ObjectStoreError(str(exc)) from None
        self._current: Revision | None = None
        self._checked = 0.0
        self._refreshing = threading.Lock()
        self.problem: str | None = None  # why CURRENT could not be read or used at the last look
        # The last CURRENT refused, why, and when: the same CURRENT is not downloaded again before RETRY_S (a bad
        # publish costs one download a minute, and a transient failure or files mended in place are picked up).
        self._refused: tuple[Pointer, str, float] | None = None
        self._stop, self._watching = threading.Event(), None
        if poll_s > 0:
            _watch(self)

    def close(self) -> None:
        """End the watch of CURRENT and wait for a look in progress (a server exiting must not leave a thread in
        pyarrow's S3 client while the interpreter finalizes)."""
        self._stop.set()
        if self._watching is not None and self._watching is not threading.current_thread():
            self._watching.join()

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
                    if pointer is None:
                        raise ObjectStoreError(f"nothing is published at {self.where.url} yet (no CURRENT object); "
                                               "run `asof publish` or `asof ingest ... --publish URL` first")
                    if self._current is None or pointer.folder != self._current.pointer.folder:
                        self._current = self._switch(pointer)
                except ObjectStoreError as exc:
                    # A replica started while CURRENT is bad (or storage is down) answers from the newest revision
                    # it checked before, kept in its cache, rather than not at all.
                    self._current = self._current or self._cached()
                    if self._current is None:
                        raise
                    # Storage unreachable, or CURRENT naming a revision that is refused: keep answering from the
                    # revision we have (whole, checked, only not newer), say so once, and look again next interval.
                    if self.problem != str(exc):
                        print(f"warning: {exc}; answering from revision {self._current.pointer.folder} meanwhile",
                              file=sys.stderr, flush=True)
                    self.problem, self._checked = str(exc), time.monotonic()
                    return self._current
                self.problem = None
                self._checked = time.monotonic()
            return self._current
        finally:
            self._refreshing.release()

    def _switch(self, pointer: Pointer) -> Revision:
        """The revision `pointer` names, downloaded and checked; ObjectStoreError when it is refused."""
        if (self._refused is not None and self._refused[0] == pointer
                and time.monotonic() - self._refused[2] < RETRY_S):
            raise ObjectStoreError(self._refused[1])  # the same CURRENT, refused a moment ago: not downloaded again
        try:
            check_signature(pointer, self.trusted)
        except ObjectStoreError as exc:
            self._refused = (pointer, str(exc), time.monotonic())
            raise
        revision = self._fetch(pointer)
        try:
            check_revision(revision, self.trusted)
        except ObjectStoreError as exc:
            self._refused = (pointer, str(exc), time.monotonic())
            _remove(revision.db_path)  # downloaded again when next tried, in case the files were mended in place
            raise
        self._refused = None
        # What a restart falls back on while CURRENT is bad: the pointer this file was checked against.
        (revision.db_path.parent / CHECKED_POINTER).write_text(pointer.model_dump_json())
        self._prune(keep={pointer.folder, *([self._current.pointer.folder] if self._current else [])})
        return revision

    def _revision(self, pointer: Pointer, local: Path) -> Revision:
        index = None
        if pointer.index_version is not None:
            index = RemoteIndex(uri=f"s3://{self.where.revision_key(pointer.folder, INDEX_NAME)}",
                                storage_options=self.settings.lance_options())
        return Revision(pointer, local, index)

    def _fetch(self, pointer: Pointer) -> Revision:
        import pyarrow.fs as pafs
        folder = self.cache_dir / pointer.folder
        local = folder / DB_NAME
        if not local.is_file():
            folder.mkdir(parents=True, exist_ok=True)
            part = folder / f".{DB_NAME}.{os.getpid()}.part"  # per process: a shared cache folder stays whole
            try:
                pafs.copy_files(self.where.revision_key(pointer.folder, DB_NAME), str(part),
                                source_filesystem=self._fs, destination_filesystem=pafs.LocalFileSystem())
                os.replace(part, local)
            except OSError as exc:
                _remove(part)
                raise ObjectStoreError(f"CURRENT at {self.where.url} names revision {pointer.folder}, but its "
                                       f"{DB_NAME} cannot be read ({type(exc).__name__}: {str(exc)[:300]})") from exc
        return self._revision(pointer, local)

    def _cached(self) -> Revision | None:
        """The newest revision in the cache that was checked when downloaded and still passes the check."""
        kept = []
        for folder in (p for p in self.cache_dir.iterdir() if p.is_dir()) if self.cache_dir.is_dir() else ():
            try:
                kept.append(Pointer.model_validate_json((folder / CHECKED_POINTER).read_text()))
            except (OSError, ValueError):
                continue  # never checked (or being downloaded): not a fallback
        for pointer in sorted(kept, key=lambda p: p.published_at, reverse=True):
            revision = self._revision(pointer, self.cache_dir / pointer.folder / DB_NAME)
            try:
                check_revision(revision, self.trusted)
            except (ObjectStoreError, OSError):
                continue
            return revision
        return None

    def _prune(self, keep: set[str]) -> None:
        """Keep the KEEP_REVISIONS most recently downloaded folders, and always `keep` (the revision answering now
        and the one replacing it: after a rollback CURRENT may name an older folder than the others)."""
        folders = sorted((p for p in self.cache_dir.iterdir() if p.is_dir()), key=lambda p: p.stat().st_mtime)
        for old in folders[:-KEEP_REVISIONS]:
            if old.name not in keep:
                # An open DuckDB connection keeps reading an unlinked file on POSIX.
                shutil.rmtree(old, ignore_errors=True)


def _remove(path: Path) -> None:
    try:
        path.unlink(missing_ok=True)
        path.parent.rmdir()  # only when nothing else is in it (another process's download, a kept pointer)
    except OSError:
        pass
