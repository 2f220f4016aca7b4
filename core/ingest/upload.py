"""Publishing a written catalog revision to object storage, for replicas that read it from there.

The local ingest (`publish.py`) stays the one writer of a revision; this copies what it wrote, the DuckDB
file and the LanceDB folder, to a new folder `revisions/<folder>/` and only then replaces `CURRENT`
(see core/settings/objects.py). Nothing under `revisions/` is ever rewritten, so a replica still answering
from an older revision keeps reading consistent files, and one that reads the new CURRENT finds every
file of the new revision already uploaded. CURRENT is signed with the publisher's Ed25519 key
(ASOF_SIGNING_KEY, core/settings/signing.py): replicas switch only to a revision signed by a key they trust.
"""
from __future__ import annotations

import os
import shutil
import tempfile
from datetime import datetime, timezone
from pathlib import Path

from core.catalog.store import Store
from core.retrieve.index import index_path
from core.settings.objects import (
    DB_NAME,
    INDEX_NAME,
    POINTER,
    SCHEME,
    ObjectLocation,
    ObjectStoreError,
    ObjectStoreSettings,
    Pointer,
    file_sha256,
)
from core.settings.signing import (
    SIGNING_KEY_ENV,
    TRUSTED_KEYS_ENV,
    SigningError,
    key_id,
    load_signing_key,
    sign,
)


def _snapshot(db_path: Path, into: Path) -> Path:
    """The database file as it is now: a hard link (an ingest replaces the file by rename, so the link
    keeps this revision's bytes), or a copy across file systems."""
    target = into / DB_NAME
    try:
        os.link(db_path, target)
    except OSError:
        shutil.copyfile(db_path, target)
    return target


def _upload(fs, local, source: str, key: str) -> None:
    """Copy a file or folder, then check every object's size: pyarrow only logs (and does not raise) an
    upload that fails while a stream closes, so a short or missing object must be caught here."""
    import pyarrow.fs as pafs
    pafs.copy_files(source, key, source_filesystem=local, destination_filesystem=fs)
    base = Path(source)
    if base.is_dir():
        want = {str(p.relative_to(base)): p.stat().st_size for p in base.rglob("*") if p.is_file()}
        got = {i.path[len(key) + 1:]: i.size for i in fs.get_file_info(pafs.FileSelector(key, recursive=True))
               if i.type == pafs.FileType.File}
    else:
        want, got = {"": base.stat().st_size}, {"": fs.get_file_info(key).size}
    bad = sorted(name for name, size in want.items() if got.get(name) != size)
    if bad:
        raise ObjectStoreError(f"{SCHEME}{key}: {len(bad)} of {len(want)} uploaded file(s) are missing or short "
                               f"(first: {bad[0] or key.rsplit('/', 1)[-1]}); CURRENT left unchanged")


def publish_to(url: str, db_path: str | Path, settings: ObjectStoreSettings | None = None,
               now: datetime | None = None) -> Pointer:
    """Upload the revision at `db_path` (and its index folder) under `url`, then point CURRENT at it."""
    import pyarrow.fs as pafs

    where = ObjectLocation.parse(url)
    settings = settings or ObjectStoreSettings.from_env()
    db_path = Path(db_path)
    index_dir = index_path(db_path)
    now = now or datetime.now(timezone.utc)
    if not settings.signing_key:
        raise ObjectStoreError(f"publishing to {where.url} needs the publisher's signing key: set {SIGNING_KEY_ENV} to "
                               "a private key file (`asof keys new` makes one; replicas trust its .pub through "
                               f"{TRUSTED_KEYS_ENV})")
    try:
        signer = load_signing_key(settings.signing_key)  # before any upload: a bad key leaves storage untouched
    except SigningError as exc:
        raise ObjectStoreError(str(exc)) from None
    with tempfile.TemporaryDirectory(prefix="asof-publish-") as tmp:
        snap = _snapshot(db_path, Path(tmp))
        store = Store(snap)  # refuses a file that is not an AsOf catalog, naming it
        try:
            revision, meta = store.revision, store.meta()
        finally:
            store.close()
        index_version = int(meta["index_version"]) if meta.get("index_version") else None
        folder = f"{now:%Y%m%dT%H%M%S%fZ}-{revision[:16]}"
        fs = settings.filesystem()
        local = pafs.LocalFileSystem()
        try:
            fs.create_dir(where.bucket)  # no-op when it exists
            _upload(fs, local, str(snap), where.revision_key(folder, DB_NAME))
            if index_version is not None:
                if not index_dir.is_dir():
                    raise ObjectStoreError(f"{db_path} was written with a search index, but {index_dir} is "
                                           "missing; ingest again before publishing")
                _upload(fs, local, str(index_dir), where.revision_key(folder, INDEX_NAME))
            pointer = Pointer(folder=folder, revision=revision, index_version=index_version, published_at=now,
                              db_size=snap.stat().st_size, db_sha256=file_sha256(snap), key_id=key_id(signer.public_key()))
            pointer = pointer.model_copy(update={"signature": sign(signer, pointer.fields())})
            # Last, one PUT: readers move to the new revision all at once.
            with fs.open_output_stream(where.key(POINTER)) as f:
                f.write(pointer.model_dump_json().encode())
        except OSError as exc:
            raise ObjectStoreError(f"could not publish to {where.url} ({type(exc).__name__}: {str(exc)[:300]}); "
                                   "CURRENT left unchanged") from exc
    return pointer
