"""Which value engine answers for a catalog: MetricFlow when the catalog was ingested from a dbt project with a
semantic manifest and a DuckDB target, the DuckDB warehouse engine for the catalog's own SQL metrics.

The dbt project is the one the ingest read: the parent of the `target/` folder each dbt ingest records beside the
catalog (core/ingest/semantic_history.py), so `python -m core ingest --dbt PROJECT/target` is all a user does.
ASOF_DBT_PROJECT names it instead when the target folder was copied away from its project. When the project is
gone or not on DuckDB, values of its metrics say why (the engine carries the problem) rather than nothing.
"""
from __future__ import annotations

from pathlib import Path

import yaml

from core.catalog import history
from core.catalog.store import Store
from core.compute.engine import ValueEngine, open_engine
from core.compute.metricflow_engine import MetricFlowEngine
from core.ingest.metricflow import DbtTools, profiles_dir
from core.ingest.semantic_history import recorded_manifests
from core.settings.config import Settings


def _yaml(path: Path) -> dict:
    try:
        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError):
        return {}
    return doc if isinstance(doc, dict) else {}


def target_type(project: Path) -> str | None:
    """The adapter type of the project's default target (profiles.yml), or None when it cannot be read here
    (a profile that only Jinja resolves): MetricFlow then reports its own error."""
    profile = _yaml(project / "dbt_project.yml").get("profile")
    entry = _yaml(profiles_dir(project) / "profiles.yml").get(profile) if isinstance(profile, str) else None
    if not isinstance(entry, dict) or not isinstance(entry.get("outputs"), dict):
        return None
    output = entry["outputs"].get(entry.get("target", "dev"))
    kind = output.get("type") if isinstance(output, dict) else None
    return kind if isinstance(kind, str) and "{{" not in kind else None


def dbt_project(store: Store, settings: Settings) -> Path | None:
    """The dbt project whose metrics this catalog holds: ASOF_DBT_PROJECT, else the project of the latest dbt
    ingest that kept a semantic manifest; None when no ingest kept one (no dbt metrics to compute)."""
    times = {i.number: i.ingested_at for i in history.ingests(store)}
    kept = recorded_manifests(store.path, times)
    if not kept:
        return None
    return settings.dbt_project or Path(kept[-1].target).parent


def value_engine(store: Store, settings: Settings | None = None) -> ValueEngine | None:
    """The engine for values on this catalog (see the module's docstring); None when there is nothing to compute
    with (no dbt project and no warehouse), which answers say."""
    settings = settings or Settings.from_env()
    warehouse = open_engine(settings.warehouse_path, settings.value_timeout_s)
    project = dbt_project(store, settings)
    if project is None:
        return warehouse
    tools = DbtTools.from_settings(settings)
    problem = None
    if not (project / "dbt_project.yml").is_file():
        problem = (f"the dbt project {project} (the parent of the ingested target/ folder) is not there; set "
                   "ASOF_DBT_PROJECT to the project folder")
    elif (kind := target_type(project)) not in (None, "duckdb"):
        problem = (f"{project}: the dbt target is {kind}; AsOf computes dbt metric values with MetricFlow on a "
                   "DuckDB target only")
    else:
        problem = tools.missing()
    return MetricFlowEngine(project, tools, fallback=warehouse, problem=problem).bind(store)
