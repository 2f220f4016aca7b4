"""The search index in LanceDB, next to the DuckDB file: object-aligned chunks with vectors and full text.

Chunks follow objects, not token windows: a metric definition stays whole; long prose is split on
sentence boundaries and every piece carries its parent's metadata. Re-ingest is incremental: an
unchanged content_hash keeps its vector, removed objects are deleted, old versions stay.
"""
from __future__ import annotations

import os
import re
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa

from core.catalog.bulk import collector_paused
from core.catalog.entities import id_phrases
from core.catalog.evidence import Catalog, Evidence, Kind
from core.retrieve import ann
from core.retrieve.embed import Embedder
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


def _progress(done: int, total: int) -> None:
    print(f"  embedding {done}/{total} chunks", file=sys.stderr, flush=True)


@dataclass
class PreparedIndex:
    """Rows with vectors, computed before anything is written, so an embedding failure writes nothing."""
    path: Path
    data: pa.Table
    report: IndexReport
    revision: str | None = None  # the catalog revision these rows belong to (the version's tag)
    broken: str | None = None  # why the existing index could not be read: it is rebuilt whole


def check_index_path(db_path: str | Path) -> None:
    """Refuse before any work when the index location is unusable (a file where the folder goes)."""
    path = index_path(db_path)
    if path.exists() and not path.is_dir():
        raise ValueError(f"{path} is a file, but the search index goes there as a folder; "
                                f"move it away or choose another --db")


def _existing(path: Path, precision: str) -> tuple[dict[str, tuple[str, str, np.ndarray]], str | None]:
    """Vectors already computed at `precision`, by chunk_id; an unreadable index contributes nothing and is
    rebuilt, and one of another precision is re-embedded whole (question and rows must share an encoder)."""
    table, problem = open_table(path, None)  # the same probe readers run: a half-broken index is rebuilt
    if table is None:
        return {}, problem
    try:
        if index_precision(table) != precision:
            return {}, None
        old = table.search().select(["chunk_id", "content_hash", "text", "vector"]).limit(None).to_arrow()
        vectors = _matrix(old["vector"])
        return {cid: (h, text, vectors[i]) for i, (cid, h, text) in enumerate(zip(
            old["chunk_id"].to_pylist(), old["content_hash"].to_pylist(), old["text"].to_pylist()))}, None
    except Exception as exc:  # noqa: BLE001 (Lance raises many kinds on a corrupted folder)
        return {}, f"search index {path} cannot be read ({type(exc).__name__}: {str(exc)[:200]})"


def _matrix(column) -> np.ndarray:
    """A fixed-size-list column as a (rows, dim) array, without a Python list per vector."""
    column = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    if len(column) == 0:
        return np.zeros((0, column.type.list_size), dtype=np.float32)
    return column.flatten().to_numpy(zero_copy_only=False).reshape(len(column), column.type.list_size)


def _columns(chunks: list[tuple[Evidence, tuple[str, str, str]]], precision: str) -> dict[str, list]:
    """Every column of the index rows but the vector, one list each (a column at a time: 178k rows at 100k
    objects)."""
    objects = [ev for ev, _ in chunks]
    return {"chunk_id": [c[0] for _, c in chunks], "evidence_id": [ev.evidence_id for ev in objects],
            "entity_id": [ev.entity_id for ev in objects], "part": [c[1] for _, c in chunks],
            "kind": [ev.kind.value for ev in objects], "authority": [ev.authority.value for ev in objects],
            "lifecycle": [ev.lifecycle.value for ev in objects], "valid_from": [ev.valid_from for ev in objects],
            "valid_to": [ev.valid_to for ev in objects], "acl": [ev.acl for ev in objects],
            "content_hash": [ev.content_hash for ev in objects],
            "acl_revision": [ev.acl_revision for ev in objects], "text": [c[2] for _, c in chunks],
            "precision": [precision] * len(chunks)}


def prepare_index(catalog: Catalog, db_path: str | Path, embedder: Embedder, quiet: bool = False) -> PreparedIndex:
    """Rows for the whole catalog, embedding only chunks whose object's content_hash changed."""
    path = index_path(db_path)
    check_index_path(db_path)
    # Every chunk's row is built here (see core/catalog/bulk.py); encoding, minutes long, runs collected as usual.
    with collector_paused():
        chunks = [(ev, chunk) for ev in catalog.evidence for chunk in chunks_of(ev)]
        encoder = embedder.for_rows(len(chunks))
        existing, broken = _existing(path, encoder.precision)
        if broken and not quiet:
            print(f"warning: {broken.split('; answers use')[0]}; rebuilding it now", file=sys.stderr)
        columns = _columns(chunks, encoder.precision)
        vectors = np.zeros((len(chunks), encoder.dim), dtype=np.float32)
        to_embed: list[int] = []
        for i, (ev, (chunk_id, _, text)) in enumerate(chunks):
            # A row's text changes without its object's content when the chunking does (a new release): re-embedded.
            prior = existing.get(chunk_id)
            if prior and prior[:2] == (ev.content_hash, text):
                vectors[i] = prior[2]
            else:
                to_embed.append(i)
        long_run = len(to_embed) > 500 and not quiet
        if long_run:
            print(f"indexing: {len(to_embed)} chunks to embed ({encoder.precision}), {len(chunks) - len(to_embed)} "
                  "reused", file=sys.stderr)
        # Each distinct text is encoded once (sources and policies of one system often read alike).
        heads = [embedded_text(columns["text"][i], columns["kind"][i], columns["part"][i]) for i in to_embed]
        texts = list(dict.fromkeys(heads))
    encoded = encoder.encode(texts, progress=_progress if long_run else None)
    position = {text: n for n, text in enumerate(texts)}
    for i, head in zip(to_embed, heads):
        vectors[i] = encoded[position[head]]
    report = IndexReport(chunks=len(chunks), embedded=len(to_embed), reused=len(chunks) - len(to_embed),
                         deleted=len(set(existing) - set(columns["chunk_id"])))
    fields = schema(encoder.dim)
    arrays = [pa.FixedSizeListArray.from_arrays(pa.array(vectors.reshape(-1), pa.float32()), encoder.dim)
              if f.name == "vector" else pa.array(columns[f.name], f.type) for f in fields]
    return PreparedIndex(path=path, data=pa.Table.from_arrays(arrays, schema=fields), report=report,
                         revision=catalog.revision(), broken=broken)


# A row changed when its object's content (everything but the ACL), its ACL or its chunk's text did (none is ever
# null: Lance's update condition has no IS DISTINCT FROM).
_CHANGED = " OR ".join(f"target.{c} <> source.{c}" for c in ("content_hash", "acl_revision", "text"))


def commit_index(prepared: PreparedIndex, revision: str | None = None, ann_min_rows: int = ann.ANN_MIN_ROWS) -> IndexReport:
    """Upsert by chunk_id and delete what the catalog no longer has, then tag the version with the
    catalog revision it serves (`revision`, default the prepared catalog's). Each LanceDB step is its own
    atomic, versioned commit, and readers check out the tag named by the catalog they opened, so a crash
    part-way leaves them on the version they had."""
    import lancedb
    from lancedb.index import Bitmap, LabelList

    aside = None
    if prepared.broken and prepared.path.is_dir():
        # Unreadable: set it aside (one atomic rename) and build a new one; removed once that succeeded.
        aside = prepared.path.with_name(f".{prepared.path.name}.broken-{os.getpid()}")
        shutil.rmtree(aside, ignore_errors=True)
        os.replace(prepared.path, aside)
    db = lancedb.connect(str(prepared.path))
    table = db.open_table(TABLE) if TABLE in db.list_tables().tables else None
    if table is not None and (table.schema.names != prepared.data.schema.names
                              or index_precision(table) != _precision(prepared)):
        # Written before rows recorded their precision, or at another one: every row was re-embedded. A new
        # version of the same table, so readers pinned to an older tag keep reading it.
        table = db.create_table(TABLE, data=prepared.data, mode="overwrite")
    elif table is not None:
        # Only rows that changed are rewritten: an update moves a row out of the vector index's coverage, so
        # rewriting all of them made every re-ingest retrain the index (ann.build), changed or not.
        (table.merge_insert("chunk_id").when_matched_update_all(where=_CHANGED).when_not_matched_insert_all()
         .when_not_matched_by_source_delete().execute(prepared.data))
    else:
        table = db.create_table(TABLE, data=prepared.data)
    table.create_index("acl", config=LabelList(), replace=True)
    # Every search's filter names these few-valued columns beside the ACL: with their bitmaps Lance computes the
    # whole pre-filter from indexes instead of reading three columns of every row (at 178k rows a role-filtered
    # vector search went from 24 to 10 ms: docs/scale.md; a full-text search's mask is one such filter, Searcher.within).
    for column in FILTER_COLUMNS:
        table.create_index(column, config=Bitmap(), replace=True)
    prepared.report.ann = ann.build(table, ann_min_rows)
    revision = revision or prepared.revision
    if revision:
        tag = revision_tag(revision)
        if tag in table.tags.list():
            table.tags.update(tag, table.version)
        else:
            table.tags.create(tag, table.version)
    prepared.report.version = table.version
    if aside is not None:
        shutil.rmtree(aside, ignore_errors=True)
    return prepared.report


FILTER_COLUMNS = ("part", "authority", "lifecycle")


def _precision(prepared: PreparedIndex) -> str:
    column = prepared.data["precision"]
    return column[0].as_py() if len(column) else "fp32"


def build_index(catalog: Catalog, db_path: str | Path, embedder: Embedder, quiet: bool = False,
                ann_min_rows: int = ann.ANN_MIN_ROWS) -> IndexReport:
    return commit_index(prepare_index(catalog, db_path, embedder, quiet), catalog.revision(), ann_min_rows)
