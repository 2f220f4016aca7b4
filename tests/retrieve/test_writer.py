"""The index is written a batch of objects at a time (core/retrieve/writer.py): the same rows as one pass, never
more than a batch in the chunker at once, and a failure part-way leaves the index as it was."""
from __future__ import annotations

import hashlib
import json

import lancedb
import numpy as np
import pytest
from conftest import cli

import core.retrieve.writer as writer
from core.ingest.load import build_catalog
from core.retrieve.index import index_path

ROLES = [{"name": "harbour_master"}, {"name": "purser"}]


class WordEmbedder:
    """Deterministic bag-of-words vectors: these tests are about what is written, not about the model."""
    dim, precision = 32, "fp32"

    def for_rows(self, rows):
        return self

    def encode(self, texts, progress=None):
        out = np.zeros((len(texts), self.dim), np.float32)
        for i, t in enumerate(texts):
            for w in t.lower().split():
                out[i, int(hashlib.md5(w.encode()).hexdigest(), 16) % self.dim] += 1
        return out / np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-9)


def _harbour(pages: int, edited: set[int] = frozenset(), dropped: set[int] = frozenset(),
             purser_sees: set[int] = frozenset()):
    """A harbour's berth pages (long ones split into several chunks) and a metric per tenth page."""
    evidence = []
    for n in range(pages):
        if n in dropped:
            continue
        acl = ["harbour_master", "purser"] if n in purser_sees else ["harbour_master"]
        body = " ".join(f"Berth {n} takes ferries of class {k} at tide {k + n}." for k in range(1 + n % 40))
        evidence.append({"evidence_id": f"doc.berth_{n}", "entity_id": f"doc.berth_{n}", "kind": "documentation",
                         "title": f"Berth {n} rules", "authority": "authoritative", "lifecycle": "current",
                         "acl": acl, "text": body + (" Rebuilt in spring." if n in edited else "")})
        if n % 10 == 0:
            evidence.append({"evidence_id": f"metric.berth_turns_{n}.v1", "entity_id": f"metric.berth_turns_{n}",
                             "kind": "metric_definition", "title": f"Berth {n} turnarounds", "version": "1",
                             "authority": "authoritative", "lifecycle": "current", "acl": acl,
                             "valid_from": "2025-01-01", "text": f"Ferries turned around at berth {n} per day.",
                             "metric": {"formula": "COUNT(turnarounds)", "grain": "one row per day"}})
    return build_catalog([("harbour.json", {"roles": ROLES, "evidence": evidence})], "harbour.json")


def _rows(db):
    table = lancedb.connect(str(index_path(db))).open_table("chunks")
    data = table.to_arrow().sort_by("chunk_id")
    return {c: data[c].to_pylist() for c in data.column_names}, table


def test_written_in_batches_the_index_holds_what_one_pass_writes(tmp_path, monkeypatch):
    first, edited = _harbour(60), _harbour(62, edited={3, 17}, dropped={5, 41}, purser_sees={8})
    whole = tmp_path / "whole.duckdb"
    writer.build_index(edited, whole, WordEmbedder(), quiet=True)

    seen: list[int] = []
    rows = writer.ChunkEncoder.rows
    monkeypatch.setattr(writer.ChunkEncoder, "rows", lambda self, objects: seen.append(len(objects)) or
                        rows(self, objects))
    monkeypatch.setattr(writer, "BATCH_OBJECTS", 7)
    monkeypatch.setattr(writer, "FLUSH_ROWS", 5)
    parts = tmp_path / "parts.duckdb"
    writer.build_index(first, parts, WordEmbedder(), quiet=True)
    assert seen and max(seen) <= 7, "the chunker never holds more than one batch"
    seen.clear()
    report = writer.build_index(edited, parts, WordEmbedder(), quiet=True)
    # Only the two edited pages and the two new ones (and the new metric) are chunked again.
    assert sum(seen) == 5 and report.embedded < report.chunks and report.deleted > 0
    got, table = _rows(parts)
    want, _ = _rows(whole)
    for column in ("chunk_id", "evidence_id", "text", "acl", "content_hash", "acl_revision"):
        assert got[column] == want[column], column
    assert np.allclose(np.array(got["vector"]), np.array(want["vector"]), atol=1e-6)
    assert len(table.list_versions()) > 8, "written in several commits, not one"


@pytest.mark.parametrize("existing", [True, False])
def test_a_failure_part_way_leaves_the_index_as_it_was(tmp_path, monkeypatch, existing):
    db = tmp_path / "c.duckdb"
    before = None
    if existing:
        writer.build_index(_harbour(30), db, WordEmbedder(), quiet=True)
        before, table = _rows(db)
        tags = dict(table.tags.list())
    calls = []
    rows = writer.ChunkEncoder.rows

    def fail_third(self, objects):
        calls.append(1)
        if len(calls) == 3:
            raise OSError(28, "No space left on device")
        return rows(self, objects)
    monkeypatch.setattr(writer.ChunkEncoder, "rows", fail_third)
    monkeypatch.setattr(writer, "BATCH_OBJECTS", 4)
    monkeypatch.setattr(writer, "FLUSH_ROWS", 1)  # every batch is committed before the failure
    with pytest.raises(OSError, match="No space"):
        writer.build_index(_harbour(40, edited=set(range(40))), db, WordEmbedder(), quiet=True)
    assert len(calls) == 3
    if not existing:
        assert "chunks" not in lancedb.connect(str(index_path(db))).list_tables().tables
        return
    after, table = _rows(db)
    assert after == before, "the latest version is the previous revision's rows"
    assert dict(table.tags.list()) == tags


def test_a_new_index_is_written_in_files_of_file_rows(tmp_path, monkeypatch):
    """A first ingest writes its rows as they are embedded, a file of FILE_ROWS rows to a commit: the same rows as any
    other way of writing them, in few large fragments rather than one per batch (searches above ann.RQ_MIN_ROWS read
    rows by place, a cost per fragment)."""
    import lance

    from core.retrieve.reader import dataset_uri
    catalog = _harbour(60)
    whole = tmp_path / "whole.duckdb"
    writer.build_index(catalog, whole, WordEmbedder(), quiet=True)
    monkeypatch.setattr(writer, "BATCH_OBJECTS", 7)
    monkeypatch.setattr(writer, "FILE_ROWS", 25)
    db = tmp_path / "c.duckdb"
    writer.build_index(catalog, db, WordEmbedder(), quiet=True)
    got, table = _rows(db)
    want, _ = _rows(whole)
    assert got == want
    ds = lance.dataset(dataset_uri(index_path(db))[0])
    sizes = [f.count_rows() for f in ds.get_fragments()]
    assert sum(sizes) > 100 and set(sizes[:-1]) == {25} and 0 < sizes[-1] <= 25, sizes
    first = lance.dataset(ds.uri, version=min(v["version"] for v in ds.versions()))
    assert first.count_rows() == 25, "a file to a commit, not a batch"


def test_a_first_ingest_killed_part_way_leaves_its_rows_for_the_next(tmp_path, monkeypatch):
    """What a first ingest committed (a file of FILE_ROWS rows at a time) stays when it is killed before its end, with
    no clean-up run: the next ingest reuses those rows' vectors and embeds the rest."""
    import lance

    from core.retrieve.reader import dataset_uri
    catalog = _harbour(60)
    calls = []
    rows = writer.ChunkEncoder.rows

    def killed(self, objects):
        calls.append(1)
        if len(calls) == 9:
            raise KeyboardInterrupt
        return rows(self, objects)
    db = tmp_path / "c.duckdb"
    with monkeypatch.context() as m:
        m.setattr(writer.ChunkEncoder, "rows", killed)
        m.setattr(writer, "BATCH_OBJECTS", 4)
        m.setattr(writer, "FILE_ROWS", 25)
        m.setattr(writer.IndexWriter, "abort", lambda self: self.stream and self.stream.abort())  # as if killed
        with pytest.raises(KeyboardInterrupt):
            writer.build_index(catalog, db, WordEmbedder(), quiet=True)
    committed = lance.dataset(dataset_uri(index_path(db))[0]).count_rows()
    assert committed >= 50 and committed % 25 == 0
    report = writer.build_index(catalog, db, WordEmbedder(), quiet=True)
    assert report.reused == committed and report.embedded == report.chunks - committed
    whole = tmp_path / "whole.duckdb"
    writer.build_index(catalog, whole, WordEmbedder(), quiet=True)
    assert _rows(db)[0] == _rows(whole)[0]


def test_a_failed_write_of_a_new_index_leaves_no_index(tmp_path, monkeypatch):
    """When Lance fails while it writes a new table's rows (the disk full after a batch) the ingest stops with an error
    naming the index and the cause, and no table is left behind for a reader to find half-written."""
    import lance

    def full(reader, *args, **kwargs):
        next(iter(reader))
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(lance, "write_dataset", full)
    db = tmp_path / "c.duckdb"
    with pytest.raises(OSError, match="writing the search index .*chunks.lance failed: .*No space"):
        writer.build_index(_harbour(30), db, WordEmbedder(), quiet=True)
    assert "chunks" not in lancedb.connect(str(index_path(db))).list_tables().tables


class Int8Words(WordEmbedder):
    precision = "int8"  # another precision: every row is embedded again, into a new version of the same table


@pytest.mark.parametrize("fails", [None, "while embedding", "after the rows are committed"])
def test_every_row_written_again_keeps_earlier_revisions_readable(tmp_path, monkeypatch, fails):
    """At another precision every row is written again as a new version of the same table: the earlier revision's tag
    still reads its rows, and an ingest that fails (before or after its rows are committed) leaves the latest
    version the earlier one's."""
    db = tmp_path / "c.duckdb"
    old = _harbour(30)
    writer.build_index(old, db, WordEmbedder(), quiet=True)
    before, table = _rows(db)
    tags = dict(table.tags.list())
    new = _harbour(31, edited={2})
    calls = []
    rows = writer.ChunkEncoder.rows

    def failing(self, objects):
        calls.append(1)
        if fails == "while embedding" and len(calls) == 3:
            raise OSError(28, "No space left on device")
        return rows(self, objects)
    monkeypatch.setattr(writer.ChunkEncoder, "rows", failing)
    monkeypatch.setattr(writer, "BATCH_OBJECTS", 4)
    if fails == "after the rows are committed":
        monkeypatch.setattr(writer.ann, "build", lambda *a, **k: (_ for _ in ()).throw(OSError(28, "No space left")))
    if fails:
        with pytest.raises(OSError, match="No space"):
            writer.build_index(new, db, Int8Words(), quiet=True, ann_min_rows=1)
        after, table = _rows(db)
        assert after == before and dict(table.tags.list()) == tags
        return
    writer.build_index(new, db, Int8Words(), quiet=True)
    after, table = _rows(db)
    assert set(after["precision"]) == {"int8"} and len(after["chunk_id"]) > len(before["chunk_id"])
    assert tags.items() <= dict(table.tags.list()).items()
    (tag,) = tags
    table.checkout(tag)
    data = table.to_arrow().sort_by("chunk_id")
    assert data["chunk_id"].to_pylist() == before["chunk_id"] and set(data["precision"].to_pylist()) == {"fp32"}


def test_a_failed_rebuild_of_a_broken_index_puts_it_back(tmp_path, monkeypatch):
    """An unreadable index is set aside while the next ingest builds a new one; if that ingest fails, the index is
    left as the ingest found it (still unreadable, so the next ingest tries again) and nothing is left beside it."""
    db = tmp_path / "c.duckdb"
    writer.build_index(_harbour(20), db, WordEmbedder(), quiet=True)
    for manifest in (index_path(db) / "chunks.lance" / "_versions").glob("*.manifest"):
        manifest.write_bytes(b"garbage" * 20)
    broken = sorted((p.relative_to(index_path(db)), p.read_bytes()) for p in index_path(db).rglob("*") if p.is_file())
    monkeypatch.setattr(writer.ChunkEncoder, "rows", lambda self, objects: (_ for _ in ()).throw(OSError(28, "full")))
    with pytest.raises(OSError, match="full"):
        writer.build_index(_harbour(20), db, WordEmbedder(), quiet=True)
    assert sorted((p.relative_to(index_path(db)), p.read_bytes())
                  for p in index_path(db).rglob("*") if p.is_file()) == broken
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_cli_ingest_shows_progress(tmp_path):
    catalog = _harbour(25).model_dump(mode="json")
    (tmp_path / "harbour.json").write_text(json.dumps({"roles": catalog["roles"], "evidence": catalog["evidence"]}))
    r = cli("ingest", str(tmp_path / "harbour.json"), "--db", str(tmp_path / "c.duckdb"))
    assert r.returncode == 0, r.stderr
    lines = [line for line in r.stderr.splitlines() if "objects," in line]
    assert lines, r.stderr
    objects = len(_harbour(25).evidence)
    assert f"indexed {objects}/{objects} objects" in lines[-1]
    assert "chunks embedded" in lines[-1] and "chunks/s" in lines[-1] and "left" in lines[-1]
