"""The search index as a question reads it: the Lance dataset itself, through `lance` (pylance).

Ingest writes the index with LanceDB (core/retrieve/index.py); a question only reads one version of one table.
Importing LanceDB builds its REST namespace client (pydantic validators for hundreds of functions) and its
pandas integrations, about half of a cold `ask` on a 1,000-model project (docs/scale.md, "Long texts");
`lance` opens the same dataset, with the same vector index and the same filters, for a
third of that. pylance is pinned to the Lance format LanceDB writes (requirements.txt).
"""
from __future__ import annotations

import sys
from pathlib import Path

from core.retrieve import ann
from core.retrieve.index import REBUILD_HINT, TABLE, revision_tag
from core.settings.objects import RemoteIndex

# Columns every body row carries that the freshness check and a hit read; probed at opening.
STATE_COLUMNS = ["chunk_id", "evidence_id", "content_hash", "acl_revision", "acl"]


class _PandasAbsent:
    """An import finder that says pandas is not installed (pyarrow and Lance treat it as optional)."""

    @staticmethod
    def find_spec(name, path=None, target=None):
        if name == "pandas" or name.startswith("pandas."):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


def lance():
    """The `lance` module. Importing it imports pyarrow.dataset, whose module set-up makes pyarrow look for pandas
    (a scalar built at import time asks whether it is a pandas object), which imported all of pandas: a fifth of a
    cold `ask`, for a library nothing in AsOf uses. In a process that has not imported pandas yet, pyarrow.dataset is
    imported with pandas looking absent, as on a machine without it; pyarrow looks again (and finds it) the first
    time anything asks it for a pandas conversion, and Lance checks pandas lazily on its own. A process that has
    imported pandas already (the app, through Streamlit) is left as it is."""
    if "pyarrow.dataset" not in sys.modules and "pandas" not in sys.modules:
        sys.meta_path.insert(0, _PandasAbsent)
        try:
            import pyarrow.dataset  # noqa: F401
        finally:
            sys.meta_path.remove(_PandasAbsent)
    import lance as module
    return module


def dataset_uri(location: Path | RemoteIndex) -> tuple[str, dict[str, str]]:
    """Where LanceDB keeps the table of an index folder (local or in object storage), and how to reach it."""
    if isinstance(location, RemoteIndex):
        return f"{location.uri.rstrip('/')}/{TABLE}.lance", dict(location.storage_options)
    return str(Path(location) / f"{TABLE}.lance"), {}


def open_dataset(location: Path | RemoteIndex, revision: str | None, version: int | None = None):
    """(dataset, None) at `version`, else at the version tagged for `revision`, else the latest; (None, None)
    when there is no index; (None, reason) when it is there but unreadable. Probes every column a question
    reads (metadata, vectors) so a corrupted index is found here, not mid-answer: the same
    checks as index.open_table."""
    remote = isinstance(location, RemoteIndex)
    if not remote and not Path(location).exists():
        return None, None
    if not remote and not Path(location).is_dir():
        return None, f"search index {location} is not a folder; {REBUILD_HINT}"
    uri, options = dataset_uri(location)
    if not remote and not Path(uri).exists():
        return None, f"search index {location} holds no {TABLE!r} table; {REBUILD_HINT}"
    try:
        import numpy as np
        ds = lance().dataset(uri, storage_options=options or None)
        tag = revision_tag(revision) if revision else None
        if version is not None:
            ds = ds.checkout_version(version)
        elif tag and tag in ds.tags.list():
            ds = ds.checkout_version(tag)
        dim = ds.schema.field(ann.VECTOR_COLUMN).type.list_size
        ds.to_table(columns=STATE_COLUMNS)
        ds.to_table(columns=["chunk_id", "_distance"], limit=1,
                    nearest={"column": ann.VECTOR_COLUMN, "q": np.zeros(dim, dtype=np.float32), "k": 1,
                             "metric": "cosine"})
    except Exception as exc:  # noqa: BLE001 (Lance raises many kinds: OSError, ValueError, RuntimeError, panics)
        return None, f"search index {location} cannot be read ({type(exc).__name__}: {str(exc)[:200]}); {REBUILD_HINT}"
    return ds, None


def nearest(vector, k: int, exact: bool, trained_partitions: int, index_type: str | None = None) -> dict:
    """The vector query for k results: flat when asked, else the share of the index's partitions ann.py says to
    probe, re-scored with full vectors where the index keeps codes (ann.refine_factor). On a dataset without a
    vector index Lance scans flat whatever is set here."""
    query = {"column": ann.VECTOR_COLUMN, "q": vector, "k": k, "metric": "cosine"}
    if exact:
        return {**query, "use_index": False}
    probes = ann.nprobes(trained_partitions)
    refine = ann.refine_factor(index_type)
    return {**query, "minimum_nprobes": probes, "maximum_nprobes": probes, **({"refine_factor": refine} if refine else {})}


def index_type(ds) -> str | None:
    """The kind of the dataset's vector index ("IVF_FLAT", "IVF_RQ"); None without one."""
    return next((i["type"] for i in ds.list_indices() if ann.VECTOR_COLUMN in i["fields"]), None)


def trained_partitions(ds) -> int:
    """The partition count the dataset's vector index was trained with; 1 without a vector index."""
    index = next((i for i in ds.list_indices() if ann.VECTOR_COLUMN in i["fields"]), None)
    return ann.trained_partitions(ds.stats.index_stats(index["name"])) if index else 1


def precision(ds) -> str:
    """The precision of the index's vectors (index.index_precision, read through `lance`)."""
    if "precision" not in ds.schema.names:
        return "fp32"
    rows = ds.to_table(columns=["precision"], limit=1).column("precision").to_pylist()
    return rows[0] if rows else "fp32"
