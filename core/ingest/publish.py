"""Writing one validated catalog: the index, batch by batch, then the database, in that order.

The index is chunked, embedded and written a batch of objects at a time (core/retrieve/writer.py), so memory
does not grow with the catalog; its versions stay untagged until the last batch is in, and a failure part-way
restores the version it started from. The finished index is tagged with the catalog revision it serves; the
database file (written in batches into a temporary file) is swapped in last. Readers of the old database keep
pinning the index version tagged for the old revision, and readers of the new one find theirs, so no answer
mixes two revisions.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import duckdb

from core.catalog.evidence import Catalog
from core.catalog.store import DatabaseError, write_catalog
from core.ingest.semantic_history import RecordedManifest, record_semantic_manifest
from core.retrieve.embed import Embedder
from core.retrieve.index import IndexReport, index_path
from core.retrieve.writer import Progress, write_index


@dataclass
class Published:
    revision: str
    index: IndexReport
    semantic: RecordedManifest | None = None  # the dbt semantic manifest this ingest kept, if it read one


def publish(catalog: Catalog, db_path: str | Path, embedder: Embedder, source: str = "",
            quiet: bool = False, dbt_target: str | Path | None = None, progress: Progress | None = None,
            chunker=None) -> Published:
    """`progress(objects done, objects, chunks embedded)` after each batch; `chunker` embeds elsewhere (a Ray
    cluster: core/retrieve/ray_embed.py)."""
    try:
        report = write_index(catalog.evidence, db_path, embedder, catalog.revision(), quiet, progress=progress,
                             chunker=chunker)
    except Exception as exc:  # noqa: BLE001 (Lance reports a full or read-only disk in many ways)
        raise DatabaseError(f"could not write the search index {index_path(db_path)} ({type(exc).__name__}: "
                            f"{str(exc)[:300]}); the catalog database is unchanged") from exc
    # index_version tells readers an index belongs to this catalog: a missing one is then reported.
    revision = write_catalog(catalog, db_path, source=source, index_version=report.version)
    # After the catalog, so the manifest is filed under the ingest that just read it (metric values as
    # recorded then: core/ingest/semantic_history.py).
    try:
        semantic = record_semantic_manifest(db_path, dbt_target) if dbt_target else None
    except (OSError, duckdb.Error) as exc:
        raise DatabaseError(f"the catalog was written (revision {revision}), but the dbt semantic manifest could not "
                            f"be kept beside it ({type(exc).__name__}: {str(exc)[:300]}); dbt metric values as "
                            "recorded at this ingest will use the last manifest kept before it") from exc
    return Published(revision=revision, index=report, semantic=semantic)
