"""dbt metric values through MetricFlow (core/ingest/metricflow.py, core/answer/dbt_values.py) on a jaffle-shop
project built with dbt-duckdb: AsOf's values equal `mf query`'s own CSV and independently written SQL over the
warehouse; a role sees a value only for a metric it may see; a definition changed between two ingests is
computed as recorded then and as it is now.

Every `mf query` costs seconds (MetricFlow loads dbt each time), so the project is built once per session and
the number of queries is kept small."""
from __future__ import annotations

import csv
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from datetime import date, datetime, timedelta
from pathlib import Path

import duckdb
import pytest
from jaffle_project import catalog, jaffle  # noqa: F401  (fixtures, named as arguments)

from core.answer.dbt_values import (
    MetricNotVisible,
    NotRecordedThen,
    dbt_metric_values,
    definition,
    kept_manifests,
    restatement,
)
from core.catalog import history
from core.ingest.metricflow import DbtTools, MetricFlowError, metric_values, project_manifest, tool_env
from core.ingest.semantic_history import sidecar_path

ROOT = Path(__file__).resolve().parents[2]
TOOLS = DbtTools.from_settings()  # the fixtures (jaffle, catalog) are in jaffle_project.py, which also skips without it
H1 = (date(2024, 1, 1), date(2024, 6, 30))


def warehouse(project: Path, sql: str) -> dict[date, float]:
    """Independently written SQL over the built warehouse: month -> value."""
    con = duckdb.connect(str(project / "jaffle.duckdb"), read_only=True)
    try:
        return {m: float(v) for m, v in con.execute(sql).fetchall()}
    finally:
        con.close()


def by_month(rows) -> dict[date, float]:
    return {r.period_start: r.value for r in rows}


def close(a: dict, b: dict) -> bool:
    return a.keys() == b.keys() and all(abs(a[k] - b[k]) < 1e-6 for k in a)


MONTH = "date_trunc('month', ordered_at)::date"
SQL = {
    "revenue": f"SELECT {MONTH}, sum(product_price) FROM order_items "
               "WHERE ordered_at BETWEEN '2024-01-01' AND '2024-06-30' GROUP BY 1",
    "large_orders": f"SELECT {MONTH}, count(*) FROM orders WHERE order_total >= {{}} "
                    "AND ordered_at BETWEEN '2024-01-01' AND '2024-06-30' GROUP BY 1",
    "food_revenue_pct": f"SELECT {MONTH}, sum(CASE WHEN is_food_item THEN product_price ELSE 0 END) / sum(product_price) "
                        "FROM order_items WHERE ordered_at BETWEEN '2024-01-01' AND '2024-06-30' GROUP BY 1",
    "order_gross_profit": f"""SELECT r.m, r.v - c.v FROM
        (SELECT {MONTH} m, sum(product_price) v FROM order_items GROUP BY 1) r JOIN
        (SELECT {MONTH} m, sum(order_cost) v FROM orders GROUP BY 1) c USING (m)
        WHERE r.m BETWEEN '2024-01-01' AND '2024-06-30'""",
}


def test_values_equal_mf_query_output_and_independent_sql(jaffle, catalog):
    store, v2, _ = catalog
    metrics = ["revenue", "food_revenue_pct"]
    ours = {m: by_month(metric_values(jaffle, m, *H1, "month")) for m in metrics}
    # mf query run here directly, as a user would in the project, and its CSV read with the csv module.
    out = jaffle.parent / "direct.csv"
    subprocess.run([str(TOOLS.tool("mf")), "query", "--metrics", ",".join(metrics), "--group-by",
                    "metric_time__month", "--start-time", H1[0].isoformat(), "--end-time", H1[1].isoformat(),
                    "--csv", str(out), "--quiet"], cwd=jaffle, env=tool_env(jaffle), check=True, capture_output=True,
                   timeout=300)
    with open(out, newline="") as fh:
        direct = list(csv.DictReader(fh))
    assert len(direct) == 6
    for m in metrics:
        theirs = {datetime.fromisoformat(r["metric_time__month"]).date(): float(r[m]) for r in direct}
        assert close(ours[m], theirs), m
        assert close(ours[m], warehouse(jaffle, SQL[m])), m
    assert all(0.3 < v < 0.9 for v in ours["food_revenue_pct"].values())  # a ratio, not a sum


def test_a_role_gets_a_value_only_for_a_metric_it_may_see(jaffle, catalog, tmp_path):
    store, v2, _ = catalog
    got = dbt_metric_values(store, "finance", v2, "order_gross_profit", *H1)
    assert got.evidence_id == "metric.jaffle_shop.order_gross_profit"
    assert close(by_month(got.query.rows), warehouse(jaffle, SQL["order_gross_profit"]))
    assert got.manifest is not None and got.manifest.ingest == 2
    # Refused before MetricFlow runs: a toolchain that does not exist is never reached.
    nowhere = DbtTools(venv=tmp_path / "no-venv")
    with pytest.raises(MetricNotVisible) as hidden:
        dbt_metric_values(store, "analyst", v2, "order_gross_profit", *H1, tools=nowhere)
    with pytest.raises(MetricNotVisible) as absent:
        dbt_metric_values(store, "analyst", v2, "order_gross_profitx", *H1, tools=nowhere)
    # Restricted and absent read the same.
    assert str(hidden.value).replace("order_gross_profit", "X") == str(absent.value).replace("order_gross_profitx", "X")
    with pytest.raises(MetricNotVisible):
        dbt_metric_values(store, "intern", v2, "revenue", *H1, tools=nowhere)


def test_a_definition_changed_between_ingests_is_computed_as_recorded_then_and_now(jaffle, catalog):
    store, v2, between = catalog
    kept = kept_manifests(store)
    assert [k.ingest for k in kept] == [1, 2] and kept[0].sha256 != kept[1].sha256
    r = restatement(store, "analyst", v2, "large_orders", *H1, recorded_at=between)
    assert r.definition_changed
    assert (r.then.manifest.ingest, r.now.manifest.ingest) == (1, 2)
    then, now = by_month(r.then.query.rows), by_month(r.now.query.rows)
    assert close(then, warehouse(jaffle, SQL["large_orders"].format(20)))
    assert close(now, warehouse(jaffle, SQL["large_orders"].format(30)))
    assert len(r.periods) == 6
    for p in r.periods:
        assert p.difference == p.now - p.then < 0  # a higher threshold counts fewer orders
        assert p.percent == pytest.approx(p.difference / p.then * 100)
    # A metric whose definition did not change: one MetricFlow run serves both, and nothing moved.
    same = restatement(store, "analyst", v2, "revenue", *H1, recorded_at=between)
    assert not same.definition_changed and all(p.difference == 0 for p in same.periods)
    assert same.then.query.seconds == same.now.query.seconds
    # Permissions are today's in the past state too: still refused, before anything runs.
    with pytest.raises(MetricNotVisible):
        restatement(store, "analyst", v2, "order_gross_profit", *H1, recorded_at=between,
                    tools=DbtTools(venv=Path("/nonexistent")))
    with pytest.raises(NotRecordedThen, match=r"'huge_orders' was not in the catalog as recorded at .*\(ingest 1\)"):
        restatement(store, "analyst", v2, "huge_orders", *H1, recorded_at=between,
                    tools=DbtTools(venv=Path("/nonexistent")))
    with pytest.raises(history.NothingRecorded):
        restatement(store, "analyst", v2, "large_orders", *H1, recorded_at=between - timedelta(days=400))


def test_definitions_compare_per_metric(jaffle, catalog):
    store, v2, _ = catalog
    old, new = project_manifest(jaffle), project_manifest(v2)
    assert definition(old, "large_orders") != definition(new, "large_orders")
    assert definition(old, "revenue") == definition(new, "revenue")
    assert definition(old, "order_gross_profit") == definition(new, "order_gross_profit")
    assert "measure:order_cost" in definition(old, "order_gross_profit")  # inputs are followed


def test_two_queries_at_once_both_answer(jaffle):
    # DuckDB gives the warehouse file to one writer process at a time; two mf queries at once used to fail
    # with "Could not set lock on file" (core/ingest/metricflow.py serializes them per project).
    with ThreadPoolExecutor(2) as pool:
        got = list(pool.map(lambda m: metric_values(jaffle, m, *H1, "quarter"), ["orders", "order_total"]))
    assert [len(g) for g in got] == [2, 2]
    assert got[0][0].value == warehouse(jaffle, "SELECT 1, count(*) FROM orders WHERE ordered_at < '2024-04-01'")[1]


def test_bad_requests_are_refused_with_what_was_wrong(jaffle, tmp_path):
    with pytest.raises(MetricFlowError, match="no metric 'refunds'"):
        metric_values(jaffle, "refunds", *H1)
    with pytest.raises(MetricFlowError, match="not a dbt metric name"):
        metric_values(jaffle, "--help", *H1)
    with pytest.raises(MetricFlowError, match="grain 'fortnight'"):
        metric_values(jaffle, "revenue", *H1, grain="fortnight")
    with pytest.raises(MetricFlowError, match="start is after the end"):
        metric_values(jaffle, "revenue", H1[1], H1[0])
    with pytest.raises(MetricFlowError, match="not a dbt project"):
        metric_values(tmp_path, "revenue", *H1)
    broken = tmp_path / "broken"
    shutil.copytree(jaffle, broken, ignore=shutil.ignore_patterns("*.duckdb", "logs"))
    (broken / "target" / "semantic_manifest.json").write_text("{not json")
    with pytest.raises(MetricFlowError, match="semantic_manifest|not JSON"):
        metric_values(broken, "revenue", *H1)


def test_the_kept_manifest_is_private_to_the_owner(catalog):
    store, _, _ = catalog
    assert sidecar_path(store.path).stat().st_mode & 0o077 == 0


def test_a_catalog_metric_with_no_warehouse_names_no_setting_to_the_person_asking(tmp_path):
    """A dbt project's engine asked for a metric of the catalog's own (not a dbt metric) with no warehouse behind it:
    the reason reaches an analyst's answer, so it says what is missing, never a setting's name."""
    from conftest import DEMO

    from core.compute.engine import EngineError
    from core.compute.metricflow_engine import MetricFlowEngine
    from core.ingest.load import load_catalog

    version = next(e for e in load_catalog(DEMO).evidence if e.evidence_id == "metric.net_revenue.v2")
    engine = MetricFlowEngine(tmp_path, DbtTools(venv=tmp_path / ".venv-dbt"), fallback=None)
    with pytest.raises(EngineError) as raised:
        engine.compute(version, None, date(2025, 1, 1), date(2025, 3, 31))
    assert "no warehouse is connected" in str(raised.value) and "ASOF_" not in str(raised.value)
