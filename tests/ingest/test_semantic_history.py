"""Each dbt ingest keeps the semantic manifest it read (core/ingest/semantic_history.py), filed under its ingest,
so a metric can later be computed as it was recorded then. No dbt toolchain needed."""
from __future__ import annotations

from pathlib import Path

import pytest

from core.catalog import history
from core.catalog.store import Store, write_catalog
from core.ingest.ingest import read_inputs
from core.ingest.metricflow import sha256
from core.ingest.semantic_history import manifest_at, record_semantic_manifest, recorded_manifests, sidecar_path

ROOT = Path(__file__).resolve().parents[2]
REAL = ROOT / "tests" / "fixtures" / "realworld"


def _ingest(db: Path, project: str) -> None:
    catalog, _ = read_inputs(db, dbt=REAL / project)
    write_catalog(catalog, db)


def _times(db: Path) -> dict:
    store = Store(db)
    try:
        return {i.number: i.ingested_at for i in history.ingests(store)}
    finally:
        store.close()


def test_each_ingest_keeps_its_manifest_and_a_new_catalog_ignores_old_rows(tmp_path):
    db = tmp_path / "c.duckdb"
    _ingest(db, "jaffle-shop")
    first = record_semantic_manifest(db, REAL / "jaffle-shop")
    _ingest(db, "jaffle-sl-template")
    second = record_semantic_manifest(db, REAL / "jaffle-sl-template")
    assert (first.ingest, second.ingest) == (1, 2) and first.project == "jaffle_shop"
    assert first.sha256 == sha256((REAL / "jaffle-shop" / "semantic_manifest.json").read_text())
    assert [r.sha256 for r in recorded_manifests(db, _times(db))] == [first.sha256, second.sha256]
    assert manifest_at(db, 1, _times(db))[1] == (REAL / "jaffle-shop" / "semantic_manifest.json").read_text()
    assert manifest_at(db, 2, _times(db))[0] == second
    assert sidecar_path(db).stat().st_mode & 0o077 == 0
    # A catalog deleted and ingested anew starts its history again: the old rows no longer match any ingest.
    db.unlink()
    _ingest(db, "jaffle-shop")
    assert recorded_manifests(db, _times(db)) == []
    with pytest.raises(LookupError, match="no semantic manifest was recorded by ingest 1"):
        manifest_at(db, 1, _times(db))


def test_a_target_without_a_semantic_manifest_keeps_nothing(tmp_path):
    target = tmp_path / "target"
    target.mkdir()
    (target / "manifest.json").write_text((REAL / "jaffle-shop" / "manifest.json").read_text())
    db = tmp_path / "c.duckdb"
    _ingest(db, "jaffle-shop")
    assert record_semantic_manifest(db, target) is None
    (target / "semantic_manifest.json").write_text('{"semantic_models": []}')  # not one MetricFlow can read
    assert record_semantic_manifest(db, target) is None
    assert not sidecar_path(db).exists()
