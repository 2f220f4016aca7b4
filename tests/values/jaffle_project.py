"""The jaffle-shop MetricFlow project and its AsOf catalog, built once per worker for the tests in tests/values/
that import these fixtures (each dbt build or `mf query` costs seconds: MetricFlow loads dbt on every run).
Not a conftest.py: a second `conftest` module would shadow tests/conftest.py for every `from conftest import`."""
from __future__ import annotations

import os
from datetime import datetime, timezone
from pathlib import Path

import pytest

from core.catalog.store import Store
from core.ingest.ingest import read_inputs
from core.ingest.metricflow import DbtTools, run_dbt
from core.ingest.publish import publish
from scripts.jaffle_mf import build, copy_project

ROOT = Path(__file__).resolve().parents[2]
OVERLAY = ROOT / "tests" / "fixtures" / "metricflow" / "jaffle-shop.overlay.yml"


@pytest.fixture(scope="session")
def jaffle(tmp_path_factory) -> Path:
    """jaffle-shop seeded and built on DuckDB (dbt seed, dbt run), semantic manifest in target/. Skipped where the
    dbt toolchain's venv is missing (bash scripts/setup.sh makes it), except under CI=true, where a missing
    toolchain must fail rather than pass silently."""
    missing = DbtTools.from_settings().missing()
    if missing is not None and os.environ.get("CI", "").lower() != "true":
        pytest.skip(f"dbt toolchain not installed: {missing} (bash scripts/setup.sh)")
    return build(tmp_path_factory.mktemp("jaffle-mf"))


HUGE_ORDERS = """
  - name: huge_orders
    label: Huge Orders
    type: simple
    type_params:
      measure: order_count
    filter: |
      {{ Dimension('order_id__order_total_dim') }} >= 60
"""


@pytest.fixture(scope="session")
def catalog(jaffle, tmp_path_factory, embedder):
    """The project ingested twice into one AsOf catalog: as built (large_orders counts orders of 20 or more),
    then from a second copy of the project whose large_orders counts orders of 30 or more, over the same
    warehouse. Returns (store, the second project, the time between the two ingests)."""
    db = tmp_path_factory.mktemp("mf-catalog") / "jaffle.duckdb"
    cat, _ = read_inputs(db, dbt=jaffle / "target", overlay=OVERLAY)
    publish(cat, db, embedder, quiet=True, dbt_target=jaffle / "target")
    between = datetime.now(timezone.utc)
    v2 = copy_project(tmp_path_factory.mktemp("jaffle-mf-v2"), jaffle)
    (v2 / "profiles.yml").write_text((jaffle / "profiles.yml").read_text())  # the same warehouse
    yml = v2 / "models" / "marts" / "semantic_models.yml"
    text = yml.read_text()
    assert "order_total_dim') }} >= 20" in text
    yml.write_text(text.replace("order_total_dim') }} >= 20", "order_total_dim') }} >= 30")
                   .replace("order total over 20", "order total of 30 or more")
                   + HUGE_ORDERS)  # and a metric that did not exist at the first ingest
    run_dbt(v2, ["parse", "--quiet"])
    cat2, _ = read_inputs(db, dbt=v2 / "target", overlay=OVERLAY)
    publish(cat2, db, embedder, quiet=True, dbt_target=v2 / "target")
    store = Store(db)
    yield store, v2, between
    store.close()
