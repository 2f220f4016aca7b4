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
