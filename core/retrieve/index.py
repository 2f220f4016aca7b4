"""The search index in LanceDB, next to the DuckDB file: object-aligned chunks with vectors and full text.

Chunks follow objects, not token windows: a metric definition stays whole; long prose is split on
sentence boundaries and every piece carries its parent's metadata. Re-ingest is incremental: an
unchanged content_hash keeps its vector, removed objects are deleted, old versions stay.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa

from core.catalog.entities import id_phrases
from core.catalog.evidence import Evidence, Kind
from core.settings.objects import RemoteIndex

TABLE = "chunks"
MAX_CHUNK_CHARS = 800
# Prose a question may quote from anywhere is split, so every part has its own vector. A model's or source's
# body is structured (name, relation, column names, then the description and described columns): a question
# names what it holds, which the head carries, so it stays one row, found in full by full text and by the
# vector of its head (HEAD_CHARS). Real dbt descriptions (500-1,200 characters plus described columns) made two
# to four rows per model before, most of first-ingest time (benchmarks/results/dbt_ingest.md, the long-text project).
SPLIT_KINDS = (Kind.documentation, Kind.note, Kind.policy)
# The head of an unsplit body that is embedded: the name, relation, column names and the description's first
# sentences of a dbt model. Every body of the demo and research catalogs is shorter (longest 504), so their
# vectors are what they were; an encoder's cost grows with tokens, so a long body costs what a short one does.
HEAD_CHARS = 512
# A name row is the title, the name, aliases and the first sentence; its vector is for what a question calls the
# object, which the first words say. A long first sentence repeats the body's head and cost a name row more
# tokens than its body (the synthetic 100k catalog: 92 against 81). The demo's longest name row is 216.
NAME_HEAD_CHARS = 256
# Lineage generated from dbt's parent_map and OpenLineage jobs is read as edges, never searched: its text
# only says which node it leads into. Not embedding it halves a dbt project's first ingest.
UNINDEXED_CLASSES = ("dbt_parent_map", "openlineage_job")


def indexed(ev: Evidence) -> bool:
    return ev.authority_class not in UNINDEXED_CLASSES


def index_path(db_path: str | Path) -> Path:
    return Path(db_path).with_suffix(".lance")


class IndexUnavailable(Exception):
    """The search index exists but cannot be read (corrupted, deleted, not a folder): answers fall back
    to the catalog alone and say so; the next ingest rebuilds it."""


REBUILD_HINT = "answers use the catalog only until `python -m core ingest` rebuilds it"


def revision_tag(revision: str) -> str:
    """The index version written for one catalog revision. The catalog (DuckDB) is replaced last, so
    readers check out the version tagged with the catalog's revision: an ingest killed after the index
    commit but before the catalog replace leaves readers on the previous catalog and its own index."""
    return f"rev-{revision}"


def connect_index(location: Path | RemoteIndex):
    """LanceDB on a local folder, or natively on object storage (a replica reading a published revision)."""
    import lancedb
    if isinstance(location, RemoteIndex):
        return lancedb.connect(location.uri, storage_options=location.storage_options)
    return lancedb.connect(str(location))


def open_table(path: Path | RemoteIndex, revision: str | None):
    """(table, None) at the version matching `revision` when tagged, else the latest; (None, None) when
    there is no index; (None, reason) when it is there but unreadable. Probes every column a question
    reads (metadata, vectors) so a corrupted index is found here, not mid-answer."""
    import numpy as np
    remote = isinstance(path, RemoteIndex)
    if not remote and not path.exists():
        return None, None
    if not remote and not path.is_dir():
        return None, f"search index {path} is not a folder; {REBUILD_HINT}"
    try:
        db = connect_index(path)
        if TABLE not in db.list_tables().tables:
            return None, f"search index {path} holds no {TABLE!r} table; {REBUILD_HINT}"
        table = db.open_table(TABLE)
        tag = revision_tag(revision) if revision else None
        if tag and tag in table.tags.list():
            table.checkout(tag)
        dim = table.schema.field("vector").type.list_size
        table.search().select(["chunk_id", "evidence_id", "content_hash", "acl_revision", "acl"]) \
            .limit(None).to_arrow()
        table.search(np.zeros(dim, dtype=np.float32)).distance_type("cosine").limit(1).to_list()
    except Exception as exc:  # Lance raises many kinds (OSError, ValueError, RuntimeError, panics)
        return None, f"search index {path} cannot be read ({type(exc).__name__}: {str(exc)[:200]}); {REBUILD_HINT}"
    return table, None


def schema(dim: int) -> pa.Schema:
    return pa.schema([
        ("chunk_id", pa.string()), ("evidence_id", pa.string()), ("entity_id", pa.string()),
        ("part", pa.string()),  # "name": what the entity is called; "body": what it says
        ("kind", pa.string()), ("authority", pa.string()), ("lifecycle", pa.string()),
        ("valid_from", pa.date32()), ("valid_to", pa.date32()), ("acl", pa.list_(pa.string())),
        ("content_hash", pa.string()), ("acl_revision", pa.string()), ("text", pa.string()),
        ("vector", pa.list_(pa.float32(), dim)),
        ("precision", pa.string()),  # of the encoder that computed the vector: core/retrieve/embed.py
    ])


def index_precision(table) -> str:
    """The precision of an index's vectors (one per index: a change re-embeds every row); indexes written
    before rows recorded it are full precision."""
    if "precision" not in table.schema.names:
        return "fp32"
    rows = table.search().select(["precision"]).limit(1).to_list()
    return rows[0]["precision"] if rows else "fp32"


def _body(ev: Evidence) -> str:
    parts = [ev.title]
    if ev.metric:
        m = ev.metric
        parts.append(f"Formula: {m.formula}.")
        parts += [f"{k}: {v}." for k, v in (("Grain", m.grain), ("Unit", m.unit), ("Time dimension", m.time_dimension)) if v]
        if m.exclusions:
            parts.append("Excludes " + ", ".join(m.exclusions) + ".")
    if ev.model:
        parts += [f"Relation {ev.model.relation}." if ev.model.relation else "",
                  f"Grain: {ev.model.grain}." if ev.model.grain else "",
                  ("Columns: " + ", ".join(ev.model.columns) + ".") if ev.model.columns else ""]
    parts.append(ev.text)
    return " ".join(p for p in parts if p)


def _split(text: str) -> list[str]:
    if len(text) <= MAX_CHUNK_CHARS:
        return [text]
    pieces, current = [], ""
    for sentence in re.split(r"(?<=[.!?])\s+", text):
        if current and len(current) + len(sentence) + 1 > MAX_CHUNK_CHARS:
            pieces.append(current)
            current = ""
        current = f"{current} {sentence}".strip()
    return pieces + ([current] if current else [])


def embedded_text(text: str, kind: str | Kind = Kind.model, part: str = "body") -> str:
    """What a row's vector is computed from: a piece of split prose whole (at most MAX_CHUNK_CHARS, the
    encoder reads 256 tokens, ~1,100 characters, anyway), a name row's first NAME_HEAD_CHARS characters, any
    other row's first HEAD_CHARS characters, cut at a word."""
    limit = NAME_HEAD_CHARS if part == "name" else MAX_CHUNK_CHARS if Kind(kind) in SPLIT_KINDS else HEAD_CHARS
    if len(text) <= limit:
        return text
    cut = text[:limit]
    return cut[:cut.rfind(" ")] if " " in cut else cut


def chunks_of(ev: Evidence) -> list[tuple[str, str, str]]:
    """(chunk_id, part, text) for one object (none for objects search never needs)."""
    if not indexed(ev):
        return []
    name = " ".join(id_phrases(ev.entity_id)[0])
    also = f" Also called: {', '.join(ev.aliases)}." if ev.aliases else ""
    first = re.split(r"(?<=[.!?])\s+", ev.text.strip())[0] if ev.text else ""
    # Lineage objects and load observations are never what a question names: no name row.
    out = [] if ev.kind in (Kind.lineage, Kind.freshness_observation) else [
        (f"{ev.evidence_id}#name", "name", f"{ev.title}. {name}.{also} {first}".strip())]
    body = _body(ev)
    pieces = _split(body) if ev.kind in SPLIT_KINDS else [body]
    out += [(f"{ev.evidence_id}#{i}", "body", text) for i, text in enumerate(pieces)]
    return out


@dataclass
class IndexReport:
    chunks: int
    embedded: int
    reused: int
    deleted: int
    version: int | None = None  # the LanceDB table version written
    ann: bool = False  # vector search goes through an ANN index (core/retrieve/ann.py)


FILTER_COLUMNS = ("part", "authority", "lifecycle")


def check_index_path(db_path: str | Path) -> None:
    """Refuse before any work when the index location is unusable (a file where the folder goes)."""
    path = index_path(db_path)
    if path.exists() and not path.is_dir():
        raise ValueError(f"{path} is a file, but the search index goes there as a folder; "
                         f"move it away or choose another --db")
