"""A dbt project a test describes (scripts/gen_dbt_project.py's `write_target`: models, sources, tags, meta, tests and
their results), ingested as `asof ingest --dbt TARGET [--overlay FILE]` does, into a catalog file of its own."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import yaml
from conftest import ROOT

from core.catalog.store import Store, write_catalog
from core.ingest.ingest import read_inputs

_spec = importlib.util.spec_from_file_location("gen_dbt_project", ROOT / "scripts" / "gen_dbt_project.py")
gen = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(gen)


def ingested(folder: Path, spec: dict, overlay: dict | None = None, name: str = "project", target: str = "target"):
    """(the catalog as read, its DuckDB file): `spec`'s target/ written under `folder`, with `overlay` (a governance
    overlay's YAML document) when given."""
    return ingest_target(folder, gen.write_target(spec, folder / target), overlay, name)


def ingest_target(folder: Path, target: Path, overlay: dict | None = None, name: str = "project"):
    """(the catalog as read, its DuckDB file) from a target/ folder a test wrote (and perhaps changed)."""
    overlay_file = None
    if overlay is not None:
        overlay_file = folder / f"{name}.overlay.yml"
        overlay_file.write_text(yaml.safe_dump(overlay))
    db = folder / f"{name}.duckdb"
    catalog, _ = read_inputs(db, dbt=target, overlay=overlay_file)
    write_catalog(catalog, db)
    return catalog, db


def project_store(folder: Path, spec: dict, overlay: dict | None = None, name: str = "project",
                  target: str = "target") -> Store:
    return Store(ingested(folder, spec, overlay, name, target)[1])
