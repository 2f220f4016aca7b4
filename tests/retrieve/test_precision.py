"""Each index records the precision of its vectors, and questions are embedded with that precision.

Large indexes are int8-encoded by default (core/retrieve/embed.py: encoding is most of a 100k catalog's first
ingest); small ones keep full precision. A question embedded at the other precision would still return
results, only worse ones, so nothing but these tests would notice the mismatch. The catalog is the test's own.
"""
import pytest

from core.catalog.store import Store, write_catalog
from core.ingest.load import build_catalog
from core.retrieve.embed import LARGE_INDEX_ROWS, Embedder
from core.retrieve.index import index_path, index_precision
from core.retrieve.search import Searcher
from core.retrieve.writer import build_index

TOPICS = {
    "parcel_delays": "Parcels that left the depot after the promised dispatch day, by carrier and lane.",
    "courier_ratings": "Scores couriers get from recipients after each delivery, one to five stars.",
    "depot_throughput": "Parcels sorted per hour at each depot, measured on the conveyor scanners.",
    "returns_backlog": "Returned parcels waiting to be inspected at the returns desk, by age in days.",
    "fuel_surcharge": "The surcharge added to a shipment for diesel prices above the contract baseline.",
}


def _catalog():
    evidence = [{"evidence_id": f"model.depot.{name}", "entity_id": f"model.depot.{name}", "kind": "model",
                 "title": name, "authority": "authoritative", "lifecycle": "current", "acl": ["dispatcher"],
                 "model": {"relation": f"depot.main.{name}", "columns": ["parcel_id", "depot", "day"]},
                 "text": text} for name, text in TOPICS.items()]
    return build_catalog([("depot.json", {"roles": ["dispatcher"], "evidence": evidence})], "depot.json")


def _ingest(tmp_path, monkeypatch, backend: str | None):
    if backend:
        monkeypatch.setenv("ASOF_EMBED_BACKEND", backend)
    else:
        monkeypatch.delenv("ASOF_EMBED_BACKEND", raising=False)
    catalog, db = _catalog(), tmp_path / "depot.duckdb"
    report = build_index(catalog, db, Embedder(), quiet=True)
    write_catalog(catalog, db)
    return db, report


def test_the_encoder_is_chosen_by_index_size_unless_one_is_named(monkeypatch):
    monkeypatch.delenv("ASOF_EMBED_BACKEND", raising=False)
    auto = Embedder()
    assert auto.for_rows(LARGE_INDEX_ROWS - 1).precision == "fp32"
    assert auto.for_rows(LARGE_INDEX_ROWS).backend == "onnx-int8"
    assert auto.for_rows(LARGE_INDEX_ROWS) is auto.for_rows(2 * LARGE_INDEX_ROWS)  # loaded once per process
    named = Embedder(backend="onnx")
    assert named.for_rows(10 * LARGE_INDEX_ROWS) is named  # ASOF_EMBED_BACKEND / an explicit backend wins


def test_questions_are_embedded_at_the_precision_of_the_index(tmp_path, monkeypatch):
    db, _ = _ingest(tmp_path, monkeypatch, "onnx-int8")
    monkeypatch.delenv("ASOF_EMBED_BACKEND", raising=False)
    store = Store(db)
    searcher = Searcher(store, Embedder())  # the app's default embedder (full precision)
    assert index_precision(searcher.table) == "int8"
    assert searcher.encoder.backend == "onnx-int8"
    int8 = Embedder(backend="onnx-int8").encode(["late parcels"])[0]
    fp32 = Embedder(backend="onnx").encode(["late parcels"])[0]
    assert searcher.embed("late parcels") == pytest.approx(int8, abs=1e-6)
    assert searcher.embed("late parcels") != pytest.approx(fp32, abs=1e-3)
    hits = searcher.vector("which parcels missed their dispatch day", "array_has(acl, 'dispatcher')", k=1)
    assert hits[0].evidence_id == "model.depot.parcel_delays"
    store.close()


def test_a_change_of_precision_re_embeds_every_row(tmp_path, monkeypatch):
    db, first = _ingest(tmp_path, monkeypatch, "onnx")
    assert first.embedded == first.chunks
    _, same = _ingest(tmp_path, monkeypatch, "onnx")
    assert same.embedded == 0  # nothing changed: every vector reused
    _, other = _ingest(tmp_path, monkeypatch, "onnx-int8")
    assert other.embedded == other.chunks  # no fp32 vector is kept beside int8 ones
    import lancedb
    table = lancedb.connect(str(index_path(db))).open_table("chunks")
    assert set(table.to_arrow()["precision"].to_pylist()) == {"int8"}
