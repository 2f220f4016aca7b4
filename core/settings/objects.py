"""A published catalog in S3-compatible object storage: where it is, how to reach it, and its pointer.

Layout under `s3://bucket/prefix/`:

    revisions/<folder>/catalog.duckdb   the catalog database of one revision, never rewritten
    revisions/<folder>/catalog.lance/   its LanceDB index, never rewritten
    CURRENT                             a small JSON `Pointer` naming the live folder, signed, written last

A single PUT replaces an object whole (S3 readers see the old or the new bytes, never a mix), so moving
CURRENT is the atomic step: a reader that read CURRENT finds every file of that revision already there.
The connection comes from the standard AWS variables (`AWS_ENDPOINT_URL`, `AWS_ACCESS_KEY_ID`,
`AWS_SECRET_ACCESS_KEY`, `AWS_REGION`), read once in `ObjectStoreSettings.from_env`, with the key that
signs CURRENT (`ASOF_SIGNING_KEY`, the publisher's) or the keys that verify it (`ASOF_TRUSTED_KEYS`, a replica's).
"""
from __future__ import annotations

import hashlib
import os
import re
from datetime import datetime

from pydantic import BaseModel, ValidationError, field_validator

from core.settings.signing import SIGNING_KEY_ENV, TRUSTED_KEYS_ENV

SCHEME = "s3://"
POINTER = "CURRENT"
DB_NAME = "catalog.duckdb"
INDEX_NAME = "catalog.lance"  # the index folder name `index_path` gives the database name
_BUCKET = re.compile(r"^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$")  # S3's bucket naming rule
_FOLDER = re.compile(r"^[A-Za-z0-9._-]{1,128}$")


class ObjectStoreError(Exception):
    """Object storage unreachable, refused, or holding something that is not a published catalog."""


def is_object_url(location: object) -> bool:
    return isinstance(location, str) and location.startswith(SCHEME)


class ObjectLocation(BaseModel, frozen=True):
    bucket: str
    prefix: str  # no leading or trailing slash; may be empty (the bucket's root)

    @classmethod
    def parse(cls, url: str) -> "ObjectLocation":
        if not is_object_url(url):
            raise ValueError(f"{url!r} is not an object-storage URL; expected s3://BUCKET/PREFIX")
        bucket, _, prefix = url[len(SCHEME):].partition("/")
        if not _BUCKET.match(bucket):
            raise ValueError(f"{url!r}: bucket {bucket!r} is not a valid S3 bucket name "
                             "(3-63 lower-case letters, digits, dots and hyphens)")
        prefix = prefix.strip("/")
        if any(part in ("", ".", "..") for part in prefix.split("/")) and prefix:
            raise ValueError(f"{url!r}: prefix {prefix!r} has an empty, '.' or '..' part")
        return cls(bucket=bucket, prefix=prefix)

    @property
    def url(self) -> str:
        return f"{SCHEME}{self.key()}"

    def key(self, *parts: str) -> str:
        """`bucket/prefix/parts...`, the path form pyarrow's S3FileSystem takes."""
        return "/".join(p for p in (self.bucket, self.prefix, *parts) if p)

    def revision_key(self, folder: str, name: str = "") -> str:
        return self.key("revisions", folder, name) if name else self.key("revisions", folder)


class ObjectStoreSettings(BaseModel, frozen=True):
    endpoint: str | None = None  # None: AWS itself
    region: str = "us-east-1"
    access_key: str | None = None
    secret_key: str | None = None
    signing_key: str | None = None  # the publisher's private key file (ASOF_SIGNING_KEY)
    trusted_keys: tuple[str, ...] = ()  # the public key files a replica accepts revisions signed by (ASOF_TRUSTED_KEYS)

    @classmethod
    def from_env(cls) -> "ObjectStoreSettings":
        env = os.environ
        return cls(endpoint=env.get("AWS_ENDPOINT_URL_S3") or env.get("AWS_ENDPOINT_URL") or None,
                   region=env.get("AWS_REGION") or env.get("AWS_DEFAULT_REGION") or "us-east-1",
                   access_key=env.get("AWS_ACCESS_KEY_ID") or None, secret_key=env.get("AWS_SECRET_ACCESS_KEY") or None,
                   signing_key=env.get(SIGNING_KEY_ENV) or None,
                   trusted_keys=tuple(p for p in (env.get(TRUSTED_KEYS_ENV) or "").split(os.pathsep) if p))

    def filesystem(self):
        """pyarrow's S3 client (pyarrow is already part of the stack, through LanceDB)."""
        import pyarrow.fs as pafs
        kwargs = {"region": self.region, "allow_bucket_creation": True}
        if self.endpoint:
            kwargs["endpoint_override"] = self.endpoint
            kwargs["scheme"] = "https" if self.endpoint.startswith("https://") else "http"
        if self.access_key and self.secret_key:
            kwargs["access_key"], kwargs["secret_key"] = self.access_key, self.secret_key
        return pafs.S3FileSystem(**kwargs)

    def lance_options(self) -> dict[str, str]:
        """The same connection as LanceDB's `storage_options` (its object_store reads s3:// itself)."""
        out = {"aws_region": self.region}
        if self.endpoint:
            out["aws_endpoint"] = self.endpoint
            if self.endpoint.startswith("http://"):
                out["allow_http"] = "true"
        if self.access_key and self.secret_key:
            out["aws_access_key_id"], out["aws_secret_access_key"] = self.access_key, self.secret_key
        return out


class RemoteIndex(BaseModel, frozen=True):
    """A LanceDB index folder in object storage, with what LanceDB needs to open it."""
    uri: str
    storage_options: dict[str, str] = {}

    def __str__(self) -> str:
        return self.uri


class Pointer(BaseModel, frozen=True):
    """The content of CURRENT: which revision folder is live."""
    folder: str
    revision: str  # the catalog revision (Store.revision) the folder holds
    index_version: int | None = None  # the LanceDB version tagged for it; None: published without an index
    published_at: datetime
    # The DuckDB file's size and sha256 as uploaded, so a replica refuses a download that is not that file (a
    # truncated or corrupted upload can still open, and fail only in the middle of an answer). None: an older publish.
    db_size: int | None = None
    db_sha256: str | None = None
    # The publisher's Ed25519 signature over every other field, and the id of the key that made it
    # (core/settings/signing.py). A replica refuses a CURRENT that is unsigned or not signed by a key it trusts.
    key_id: str | None = None
    signature: str | None = None

    def fields(self) -> dict:
        """The fields as JSON values: what is signed and checked."""
        return self.model_dump(mode="json")

    @field_validator("folder")
    @classmethod
    def _folder(cls, value: str) -> str:
        if not _FOLDER.match(value):
            raise ValueError("must be 1-128 letters, digits, '.', '_' or '-'")
        if value.startswith("."):  # '..' would name the folder above revisions/ (and above a replica's cache)
            raise ValueError("must not start with '.'")
        return value


def file_sha256(path) -> str:
    """The sha256 of a file, read in 1 MB blocks (a 100k-object catalog file is hundreds of MB)."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def read_pointer(fs, where: ObjectLocation) -> Pointer | None:
    """CURRENT as published, None when nothing was published there yet; a clear error naming the object
    and the field when it is not a pointer (a catalog is never guessed from a damaged one)."""
    import pyarrow.fs as pafs
    key = where.key(POINTER)
    try:
        info = fs.get_file_info(key)
        if info.type == pafs.FileType.NotFound:
            return None
        with fs.open_input_stream(key) as f:
            raw = f.read(65536)
    except OSError as exc:
        raise ObjectStoreError(f"cannot read {SCHEME}{key} ({type(exc).__name__}: {str(exc)[:300]})") from exc
    try:
        return Pointer.model_validate_json(raw)
    except ValidationError as exc:
        where_bad = "; ".join(f"field {'.'.join(map(str, e['loc'])) or '(whole object)'}: {e['msg']}"
                              for e in exc.errors()[:5])
        raise ObjectStoreError(f"{SCHEME}{key} is not an AsOf catalog pointer ({where_bad}); "
                               "publish again with `asof publish`") from None
