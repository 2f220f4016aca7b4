"""The semantic manifest each dbt ingest read, kept so a metric can be computed as it was defined then.

The catalog's history (core/catalog/history.py) keeps every revision of every metric's description, but
MetricFlow needs the whole semantic manifest (semantic models, measures, filters) to compute a value. Each
ingest of a dbt target with a `semantic_manifest.json` stores that file's text, whole, in a sidecar DuckDB file
beside the catalog (`<db>.semantic.duckdb`), keyed by the ingest's number and time. It is never shown to
anyone: it holds every metric, whatever its ACL, and is only handed to MetricFlow after the permission check
(core/answer/dbt_values.py). A sidecar, not a catalog table, so the catalog's schema and its
swap-by-rename publication are untouched; rows whose ingest time no longer matches the catalog's (a catalog
deleted and ingested anew) are ignored.
"""
from __future__ import annotations

import json
import os
from datetime import datetime
from pathlib import Path

import duckdb
from pydantic import BaseModel, ConfigDict

from core.catalog.store import open_data_file
from core.ingest.dbt import _artifact, _gunzip
from core.ingest.load import read_text
from core.ingest.metricflow import MetricFlowError, manifest_metrics, sha256

SCHEMA = """CREATE TABLE IF NOT EXISTS semantic_manifests (
  ingest INTEGER NOT NULL, ingested_at TIMESTAMPTZ NOT NULL, project VARCHAR, target VARCHAR NOT NULL,
  sha256 VARCHAR NOT NULL, manifest VARCHAR NOT NULL, PRIMARY KEY (ingest, ingested_at))"""


class RecordedManifest(BaseModel):
    """Which semantic manifest (by sha256) one ingest read, from which target folder."""
    model_config = ConfigDict(frozen=True)
    ingest: int
    ingested_at: datetime
    project: str | None
    target: str
    sha256: str


def sidecar_path(db_path: str | Path) -> Path:
    db_path = Path(db_path)
    return db_path.with_name(db_path.name + ".semantic.duckdb")


def read_semantic_manifest(target: str | Path) -> str | None:
    """A dbt target folder's semantic_manifest.json text (or .json.gz); None if absent or not one MetricFlow could
    read (no metrics list): the catalog ingest does not depend on it, so it is then simply not kept."""
    path = _artifact(Path(target), "semantic_manifest")
    if path is None:
        return None
    text = _gunzip(path) if path.suffix == ".gz" else read_text(path, follow=False)
    try:
        manifest_metrics(text, str(path))
    except MetricFlowError:
        return None
    return text


def _project_name(target: Path) -> str | None:
    path = _artifact(target, "manifest")
    try:
        doc = json.loads(_gunzip(path) if path.suffix == ".gz" else read_text(path, follow=False)) if path else None
    except ValueError:
        return None
    meta = doc.get("metadata") if isinstance(doc, dict) else None
    name = meta.get("project_name") if isinstance(meta, dict) else None
    return name if isinstance(name, str) else None


def _last_ingest(db_path: Path) -> tuple[int, datetime]:
    con = open_data_file(db_path)
    try:
        row = con.execute("SELECT ingest, ingested_at FROM ingests ORDER BY ingest DESC LIMIT 1").fetchone()
    finally:
        con.close()
    if row is None:
        raise ValueError(f"{db_path}: the catalog records no ingest yet")
    return row[0], row[1]


def record_semantic_manifest(db_path: str | Path, target: str | Path) -> RecordedManifest | None:
    """Keep the semantic manifest of `target` as read by the catalog's latest ingest (call after publishing)."""
    text = read_semantic_manifest(target)
    if text is None:
        return None
    db_path = Path(db_path)
    ingest, at = _last_ingest(db_path)
    rec = RecordedManifest(ingest=ingest, ingested_at=at, project=_project_name(Path(target)),
                           target=str(Path(target).resolve()),
                           sha256=sha256(text))
    path = sidecar_path(db_path)
    con = duckdb.connect(str(path))
    try:
        con.execute(SCHEMA)
        con.execute("INSERT OR REPLACE INTO semantic_manifests VALUES (?, ?, ?, ?, ?, ?)",
                    [rec.ingest, rec.ingested_at, rec.project, rec.target, rec.sha256, text])
    finally:
        con.close()
    os.chmod(path, 0o600)  # every metric of the project, whatever its ACL: owner only, like the catalog
    return rec


def _rows(db_path: Path, with_text: bool) -> list[tuple]:
    path = sidecar_path(db_path)
    if not path.is_file():
        return []
    con = open_data_file(path)
    try:
        cols = "ingest, ingested_at, project, target, sha256" + (", manifest" if with_text else "")
        return con.execute(f"SELECT {cols} FROM semantic_manifests ORDER BY ingest").fetchall()
    finally:
        con.close()


def recorded_manifests(db_path: str | Path, catalog_ingests: dict[int, datetime]) -> list[RecordedManifest]:
    """The manifests recorded for this catalog's ingests (number -> time, core/catalog/history.ingests), oldest
    first; rows left by an earlier catalog at the same path are ignored."""
    out = []
    for ingest, at, project, target, digest in _rows(Path(db_path), False):
        if catalog_ingests.get(ingest) == at:
            out.append(RecordedManifest(ingest=ingest, ingested_at=at, project=project, target=target, sha256=digest))
    return out


def manifest_at(db_path: str | Path, ingest: int, catalog_ingests: dict[int, datetime]) -> tuple[RecordedManifest, str]:
    """The semantic manifest in force at catalog ingest `ingest`: the one recorded by it or the last dbt ingest
    before it."""
    found = None
    for row in _rows(Path(db_path), True):
        if row[0] <= ingest and catalog_ingests.get(row[0]) == row[1]:
            found = row
    if found is None:
        raise LookupError(f"{sidecar_path(db_path)}: no semantic manifest was recorded by ingest {ingest} or "
                          "before it (ingest a dbt target with semantic_manifest.json)")
    ing, at, project, target, digest, text = found
    return RecordedManifest(ingest=ing, ingested_at=at, project=project, target=target, sha256=digest), text
