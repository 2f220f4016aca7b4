"""Writing one validated catalog: embeddings first, then the index, then the database, in that order.

Embedding happens before anything is written, so a failure there leaves both stores untouched. The
index is committed next and tagged with the catalog revision it serves; the database file is swapped
in last. Readers of the old database keep pinning the index version tagged for the old revision, and
readers of the new one find theirs, so no answer mixes two revisions.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .catalog import Catalog
from .embed import Embedder
from .index import IndexReport, commit_index, prepare_index
from .store import write_catalog


@dataclass
class Published:
    revision: str
    index: IndexReport


def publish(catalog: Catalog, db_path: str | Path, embedder: Embedder, source: str = "",
            quiet: bool = False) -> Published:
    prepared = prepare_index(catalog, db_path, embedder, quiet)
    report = commit_index(prepared, catalog.revision())
    revision = write_catalog(catalog, db_path, source=source)
    return Published(revision=revision, index=report)
