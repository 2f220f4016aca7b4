"""Metric values (issue 21): every demo metric version computed by DuckDB with its own SQL on the generated warehouse
equals SQL written here, independently, over the raw tables; a role gets a value only when it may see the version,
its model and every source upstream (otherwise the not-found answer, and no SQL runs); a period crossing a definition
change gives one value per sub-period under its own version; a restatement computes both and states the difference;
the audit log records the SQL and result hashes and a replay reproduces them."""
from __future__ import annotations

import shutil
from datetime import date, timedelta

import duckdb
import pytest
import yaml
from conftest import DEMO, DEMO_AT, cli

from core.answer.ask import Question, ask
from core.answer.values import metric_values
from core.catalog.access import visible
from core.catalog.envelope import NOT_FOUND, Behavior
from core.catalog.store import Store, write_catalog
from core.compute import warehouse
from core.compute.engine import CONNECT, DuckDBEngine, EngineError
from core.ingest.load import CatalogError, load_catalog
from core.read.intents.intent import parse_intent
from core.resolve.values import buckets, value_periods
from core.resolve.versions import backing_model
from core.serve import audit
from core.serve.replay import replay

ROLES = ["analyst", "finance", "marketing", "governance"]


@pytest.fixture(scope="module")
def wh(tmp_path_factory):
    return warehouse.build(tmp_path_factory.mktemp("warehouse") / "warehouse.duckdb")


@pytest.fixture(scope="module")
def engine(wh):
    return DuckDBEngine(wh)


@pytest.fixture(scope="module")
def raw(wh):
    con = duckdb.connect(str(wh), **CONNECT)
    yield lambda sql: con.execute(sql).fetchone()[0]
    con.close()


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    db = tmp_path_factory.mktemp("values") / "demo.duckdb"
    write_catalog(load_catalog(DEMO), db)
    return Store(db)


def _ask(store, engine, text, role="analyst", period=None):
    return ask(store, Question(role=role, text=text, period=period, at=DEMO_AT), engine=engine)


# ---- independent SQL, over the raw tables only ----------------------------------------------------------------

def _orders(start, end, col="ordered_at"):
    return f"status = 'completed' AND {col} >= DATE '{start}' AND {col} < DATE '{end}'"


def net_revenue_v1(start, end):
    return f"""SELECT sum(merchandise_usd - discount_usd - refund_amount_usd) FROM raw_shop.orders
               WHERE {_orders(start, end)}"""


def net_revenue_v2(start, end):
    # by first capture: the merchandise share of what was captured, less the processor's refunds and chargebacks
    return f"""WITH e AS (
                 SELECT order_id, min(occurred_at) FILTER (WHERE event_type = 'capture') AS first_capture,
                        sum(CASE WHEN event_type = 'capture' THEN amount_usd ELSE 0 END) AS captured,
                        sum(CASE WHEN event_type <> 'capture' THEN amount_usd ELSE 0 END) AS reversed
                 FROM raw_payments.payment_events GROUP BY order_id)
               SELECT sum(e.captured * (o.merchandise_usd - o.discount_usd) / o.order_total_usd - e.reversed)
               FROM e JOIN raw_shop.orders o USING (order_id)
               WHERE e.first_capture >= DATE '{start}' AND e.first_capture < DATE '{end}'"""


def gmv(start, end):
    return f"""SELECT sum(l.item_price_usd * l.quantity) FROM raw_shop.order_lines l JOIN raw_shop.orders o
               USING (order_id) WHERE NOT l.is_gift_card AND o.{_orders(start, end)}"""


def aov(start, end):
    return f"""SELECT sum(merchandise_usd - discount_usd - refund_amount_usd) / count(*) FROM raw_shop.orders
               WHERE {_orders(start, end)}"""


def refund_rate(start, end):
    return f"""SELECT 100 * sum(refund_amount_usd) / sum(merchandise_usd - discount_usd) FROM raw_shop.orders
               WHERE {_orders(start, end)}"""


def _days(d, n):
    return d + timedelta(days=n)


def _customers_ordering(lo, hi, extra="TRUE"):
    """Customers with a completed order on a day in (lo, hi]."""
    return f"""SELECT DISTINCT customer_id FROM raw_shop.orders WHERE status = 'completed' AND {extra}
               AND CAST(ordered_at AS DATE) > DATE '{lo}' AND CAST(ordered_at AS DATE) <= DATE '{hi}'"""


def _renewing(lo, hi):
    return f"""SELECT DISTINCT customer_id FROM raw_crm.subscription_renewals
               WHERE CAST(renewed_at AS DATE) > DATE '{lo}' AND CAST(renewed_at AS DATE) <= DATE '{hi}'"""


def active_v1(snap):
    return f"SELECT count(*) FROM ({_customers_ordering(_days(snap, -90), snap)})"


def active_v2(snap):
    return f"SELECT count(*) FROM ({_customers_ordering(_days(snap, -90), snap)} UNION {_renewing(_days(snap, -90), snap)})"


def active_v3(snap):
    return f"""SELECT count(*) FROM ({_customers_ordering(_days(snap, -60), snap, 'merchandise_usd > discount_usd')}) a
               JOIN raw_crm.customers c USING (customer_id) WHERE NOT c.is_employee AND NOT c.is_test"""


def churn(snap, ahead, subscribers_stay):
    base = _customers_ordering(_days(snap, -90), snap)
    lapsed = f"customer_id NOT IN ({_customers_ordering(snap, _days(snap, ahead))})"
    if subscribers_stay:
        lapsed += f" AND customer_id NOT IN ({_renewing(_days(snap, -90), snap)})"
    return f"SELECT 100.0 * count(*) FILTER (WHERE {lapsed}) / count(*) FROM ({base})"


def repeat(snap, days):
    return f"""SELECT 100.0 * count(*) FILTER (WHERE n >= 2) / count(*) FROM (
                 SELECT customer_id, count(*) AS n FROM raw_shop.orders WHERE status = 'completed'
                 AND CAST(ordered_at AS DATE) > DATE '{snap}' - {days} AND CAST(ordered_at AS DATE) <= DATE '{snap}'
                 GROUP BY 1)"""


def conversion(start, end):
    return f"""SELECT 100.0 * count(*) FILTER (WHERE o.status = 'completed') / count(*)
               FROM raw_web.sessions s LEFT JOIN raw_shop.orders o USING (order_id)
               WHERE s.user_agent_class <> 'bot' AND s.ip_class <> 'internal'
               AND s.started_at >= DATE '{start}' AND s.started_at < DATE '{end}'"""


def cac(start, end):
    return f"""SELECT (SELECT sum(spend_usd) FROM raw_ads.spend WHERE booked_by <> 'Kestrel Partners'
                       AND spend_date >= DATE '{start}' AND spend_date < DATE '{end}')
                    / (SELECT count(*) FROM (SELECT customer_id, min(ordered_at) AS first FROM raw_shop.orders
                       WHERE status = 'completed' GROUP BY 1)
                       WHERE CAST(first AS DATE) >= DATE '{start}' AND CAST(first AS DATE) < DATE '{end}')"""


def margin(start, end, fees):
    return f"""SELECT sum(o.merchandise_usd - o.discount_usd - o.refund_amount_usd - c.cogs_usd - c.fulfilment_cost_usd
                      {'- c.payment_fees_usd' if fees else ''})
               FROM raw_shop.orders o JOIN raw_finance.cogs c USING (order_id) WHERE o.{_orders(start, end)}"""


D = date
# (version, start, end, independent SQL, tolerance): sums of amounts rounded per order in the models may differ
# from an unrounded sum by a few cents per thousand orders; counts and the ratios of counts must match exactly.
CASES = [
    ("metric.net_revenue.v1", D(2024, 4, 1), D(2024, 7, 1), net_revenue_v1(D(2024, 4, 1), D(2024, 7, 1)), 0.01),
    ("metric.net_revenue.v2", D(2025, 1, 1), D(2025, 4, 1), net_revenue_v2(D(2025, 1, 1), D(2025, 4, 1)), 1.0),
    ("metric.gross_merchandise_value.v1", D(2024, 1, 1), D(2025, 1, 1), gmv(D(2024, 1, 1), D(2025, 1, 1)), 0.01),
    ("metric.gross_merchandise_value.v1", D(2025, 7, 1), D(2025, 10, 1), gmv(D(2025, 7, 1), D(2025, 10, 1)), 0.01),
    ("metric.average_order_value.v1", D(2026, 10, 1), D(2026, 11, 1), aov(D(2026, 10, 1), D(2026, 11, 1)), 0.01),
    ("metric.refund_rate.v1", D(2024, 1, 1), D(2025, 1, 1), refund_rate(D(2024, 1, 1), D(2025, 1, 1)), 0.01),
    ("metric.active_customers.v1", D(2024, 1, 1), D(2024, 4, 1), active_v1(D(2024, 3, 31)), 0),
    ("metric.active_customers.v2", D(2025, 4, 1), D(2025, 7, 1), active_v2(D(2025, 6, 30)), 0),
    ("metric.active_customers.v3", D(2026, 6, 1), D(2026, 7, 1), active_v3(D(2026, 6, 30)), 0),
    ("metric.churn_rate.v1", D(2024, 4, 1), D(2024, 7, 1), churn(D(2024, 3, 31), 180, False), 0.005),
    ("metric.churn_rate.v2", D(2025, 10, 1), D(2026, 1, 1), churn(D(2025, 9, 30), 120, True), 0.005),
    ("metric.repeat_purchase_rate.v1", D(2025, 1, 1), D(2025, 4, 1), repeat(D(2025, 3, 31), 365), 0.005),
    ("metric.repeat_purchase_rate.v2", D(2025, 7, 1), D(2025, 10, 1), repeat(D(2025, 9, 30), 180), 0.005),
    ("metric.conversion_rate.v1", D(2025, 1, 1), D(2026, 1, 1), conversion(D(2025, 1, 1), D(2026, 1, 1)), 0.005),
    ("metric.customer_acquisition_cost.v1", D(2025, 1, 1), D(2026, 1, 1), cac(D(2025, 1, 1), D(2026, 1, 1)), 0.005),
    ("metric.contribution_margin.v1", D(2025, 1, 1), D(2025, 4, 1), margin(D(2025, 1, 1), D(2025, 4, 1), False), 0.01),
    ("metric.contribution_margin.v2", D(2025, 7, 1), D(2025, 10, 1), margin(D(2025, 7, 1), D(2025, 10, 1), True), 0.01),
]


def test_every_demo_metric_version_with_sql_is_covered(store):
    with_sql = {e.evidence_id for e in load_catalog(DEMO).evidence if e.metric and e.metric.sql}
    authoritative = {e.evidence_id for e in load_catalog(DEMO).evidence
                     if e.kind.value == "metric_definition" and e.governs}
    assert with_sql == authoritative == {c[0] for c in CASES}


@pytest.mark.parametrize("version_id,start,end,sql,tolerance", CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES])
def test_value_equals_independent_sql(store, engine, raw, version_id, start, end, sql, tolerance):
    view = visible(store, "finance" if "contribution" in version_id or "acquisition" in version_id else "analyst")
    if "conversion" in version_id:
        view = visible(store, "marketing")
    version = view.by_ids([version_id])[0]
    model, _ = backing_model(version, start, view)
    got = engine.compute(version, model, start, end)
    expected = raw(sql)
    assert expected is not None and expected != 0
    assert got.value == pytest.approx(float(expected), abs=tolerance), (got.sql, sql)
    assert got.evidence_id == version_id and got.model_evidence_id == model.evidence_id
    assert got.sql_hash.startswith("sha256:") and got.result_hash.startswith("sha256:")


def test_metric_linked_to_a_model_entity_reads_the_model_version_in_effect(store, engine):
    values = metric_values(visible(store, "analyst"), "metric.gross_merchandise_value", D(2024, 10, 1), D(2025, 4, 1),
                           engine, DEMO_AT, grain="quarter")
    assert [(v.start, v.model_evidence_id, v.relation) for v in values.values] == [
        (D(2024, 10, 1), "model.fct_orders.v1", "analytics.fct_orders_v1"),
        (D(2025, 1, 1), "model.fct_orders.v2", "analytics.fct_orders_v2")]


# ---- permissions ------------------------------------------------------------------------------------------------

ALLOWED = {
    "metric.net_revenue": {"analyst", "finance", "marketing"},
    "metric.gross_merchandise_value": {"analyst", "finance", "marketing"},
    "metric.average_order_value": {"analyst", "finance", "marketing"},
    "metric.refund_rate": {"analyst", "finance", "marketing"},
    "metric.active_customers": {"analyst", "finance", "marketing"},
    "metric.churn_rate": {"analyst", "finance", "marketing"},
    "metric.conversion_rate": {"analyst", "marketing"},
    "metric.customer_acquisition_cost": {"finance", "marketing"},
    "metric.contribution_margin": {"finance"},
}


class Counting:
    """The real engine, counting the SQL it is asked to run (so a refusal is shown to run none)."""

    def __init__(self, inner):
        self.inner, self.name, self.calls = inner, inner.name, 0

    def compute(self, *args):
        self.calls += 1
        return self.inner.compute(*args)


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("entity", sorted(ALLOWED))
def test_a_role_gets_a_value_only_when_it_may_see_everything_behind_it(store, engine, entity, role):
    counting = Counting(engine)
    got = metric_values(visible(store, role), entity, D(2025, 1, 1), D(2025, 4, 1), counting, DEMO_AT)
    if role in ALLOWED[entity]:
        assert got.status == "computed" and got.values and counting.calls == len(got.values)
    else:
        assert got.status == "not_found_or_not_authorized" and got.message == NOT_FOUND
        assert got.values == [] and counting.calls == 0


def test_a_refused_value_reads_as_a_metric_that_does_not_exist(store, engine):
    hidden = _ask(store, engine, "what was contribution margin in Q1 2025?", role="marketing")
    absent = _ask(store, engine, "what was flux capacitor yield in Q1 2025?", role="marketing")
    assert hidden.behavior is absent.behavior is Behavior.not_found_or_not_authorized
    assert hidden.verdict == absent.verdict == NOT_FOUND
    assert hidden.values is None and absent.values is None


@pytest.fixture(scope="module")
def payments_hidden(tmp_path_factory):
    """The demo with the payment processor's events shown to finance only: fct_orders v2 reads them."""
    folder = tmp_path_factory.mktemp("payments_hidden") / "catalog"
    shutil.copytree(DEMO, folder)
    path = folder / "30_sources.yaml"
    doc = yaml.safe_load(path.read_text())
    for ev in doc["evidence"]:
        if ev["entity_id"] == "source.raw_payments.payment_events":
            ev["acl"] = ["finance"]
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    db = folder.parent / "demo.duckdb"
    write_catalog(load_catalog(folder), db)
    return Store(db)


def test_a_source_the_role_may_not_see_withholds_the_value_but_not_the_definition(payments_hidden, engine):
    counting = Counting(engine)
    env = _ask(payments_hidden, counting, "what was net revenue in Q1 2025?")
    assert env.behavior is Behavior.answer  # the definition is still answered
    assert env.values.status == "not_found_or_not_authorized" and env.values.message == NOT_FOUND
    assert counting.calls == 0
    # 2024 is computed by v1 on fct_orders v1, which reads raw_shop.orders only.
    env = _ask(payments_hidden, counting, "what was net revenue in Q1 2024?")
    assert env.values.status == "computed" and counting.calls == 1
    assert _ask(payments_hidden, counting, "what was net revenue in Q1 2025?", role="finance").values.status == "computed"


# ---- periods, splits and restatements ---------------------------------------------------------------------------

def test_buckets_and_cuts_are_calendar_and_version_boundaries(store):
    assert buckets(D(2024, 11, 15), D(2025, 2, 1), "month") == [
        (D(2024, 11, 15), D(2024, 12, 1)), (D(2024, 12, 1), D(2025, 1, 1)), (D(2025, 1, 1), D(2025, 2, 1))]
    assert buckets(D(2025, 2, 1), D(2026, 1, 1), "quarter")[0] == (D(2025, 2, 1), D(2025, 4, 1))
    versions = visible(store, "analyst").entity_objects("metric.churn_rate")
    parts = value_periods(versions, D(2025, 9, 1), D(2025, 11, 1), None)
    assert [(p.start, p.end, p.version.evidence_id) for p in parts] == [
        (D(2025, 9, 1), D(2025, 10, 1), "metric.churn_rate.v1"), (D(2025, 10, 1), D(2025, 11, 1), "metric.churn_rate.v2")]


def test_a_period_crossing_a_change_gives_one_value_per_sub_period(store, engine, raw):
    env = _ask(store, engine, "churn for 2025 by quarter")
    assert env.behavior is Behavior.split
    got = [(v.start, v.evidence_id, v.value) for v in env.values.values]
    assert [g[:2] for g in got] == [(D(2025, 1, 1), "metric.churn_rate.v1"), (D(2025, 4, 1), "metric.churn_rate.v1"),
                                    (D(2025, 7, 1), "metric.churn_rate.v1"), (D(2025, 10, 1), "metric.churn_rate.v2")]
    expected = [raw(churn(D(2024, 12, 31), 180, False)), raw(churn(D(2025, 3, 31), 180, False)),
                raw(churn(D(2025, 6, 30), 180, False)), raw(churn(D(2025, 9, 30), 120, True))]
    assert [g[2] for g in got] == pytest.approx([float(e) for e in expected], abs=0.005)
    # a change inside a month cuts the month: net revenue over the turn of 2025, by month, from the form's period
    env = _ask(store, engine, "what was net revenue by month?", period=(D(2024, 12, 1), D(2025, 2, 1)))
    assert [(v.start, v.end, v.evidence_id) for v in env.values.values] == [
        (D(2024, 12, 1), D(2025, 1, 1), "metric.net_revenue.v1"), (D(2025, 1, 1), D(2025, 2, 1), "metric.net_revenue.v2")]
    assert env.values.values[1].value == pytest.approx(float(raw(net_revenue_v2(D(2025, 1, 1), D(2025, 2, 1)))), abs=1)


def test_restatement_under_todays_definition_month_by_month(store, engine, raw):
    env = _ask(store, engine, "what would Q2 2024 net revenue be under today's definition?")
    assert env.behavior is Behavior.answer and env.values.status == "computed"
    r = env.values.restatement
    assert r.other_evidence_id == "metric.net_revenue.v2" and "today" in r.why
    months = [(D(2024, 4, 1), D(2024, 5, 1)), (D(2024, 5, 1), D(2024, 6, 1)), (D(2024, 6, 1), D(2024, 7, 1))]
    assert [(row.start, row.end) for row in r.rows] == months
    for row, (a, b) in zip(r.rows, months):
        v1, v2 = float(raw(net_revenue_v1(a, b))), float(raw(net_revenue_v2(a, b)))
        assert row.governing.evidence_id == "metric.net_revenue.v1" and row.governing.value == pytest.approx(v1, abs=0.01)
        assert row.other.evidence_id == "metric.net_revenue.v2" and row.other.value == pytest.approx(v2, abs=1)
        assert row.difference == pytest.approx(row.other.value - row.governing.value, abs=1e-6)
        assert row.percent == pytest.approx(row.difference / row.governing.value * 100, abs=0.01)
    assert r.difference == pytest.approx(r.other_total - r.governing_total, abs=0.01)
    assert r.governing_total == pytest.approx(sum(row.governing.value for row in r.rows), abs=0.01)


def test_restatement_of_a_named_version_over_a_year(store, engine):
    env = _ask(store, engine, "how much did the net revenue v2 change move 2024?")
    r = env.values.restatement
    assert len(r.rows) == 12 and r.other_evidence_id == "metric.net_revenue.v2" and "named" in r.why
    assert all(row.governing.evidence_id == "metric.net_revenue.v1" for row in r.rows)
    assert r.percent is not None and r.difference != 0


def test_no_value_where_no_single_version_governs(store, engine):
    # refund rate starts in 2024; repeat purchase rate has two approved versions overlapping from 2025-06-01
    early = metric_values(visible(store, "analyst"), "metric.refund_rate", D(2023, 1, 1), D(2023, 4, 1), engine, DEMO_AT)
    assert early.status == "unavailable" and not early.values
    both = metric_values(visible(store, "analyst"), "metric.repeat_purchase_rate", D(2025, 4, 1), D(2025, 8, 1), engine,
                         DEMO_AT, grain="month")
    assert [v.start for v in both.values] == [D(2025, 4, 1), D(2025, 5, 1)] and "2025-06-01 to 2025-07-31" in both.message


def test_period_names():
    from core.explain.value_text import number, period_label
    assert [period_label(*p) for p in [(D(2024, 4, 1), D(2024, 5, 1)), (D(2024, 4, 1), D(2024, 7, 1)),
                                       (D(2024, 1, 1), D(2025, 1, 1)), (D(2024, 4, 3), D(2024, 5, 1))]] == [
        "Apr 2024", "Q2 2024", "2024", "2024-04-03 to 2024-04-30"]
    assert (number(1234.5, "USD"), number(3.25, "percent"), number(135.4, "USD per new customer"),
            number(1274.0, "customers")) == ("$1,234.50", "3.25%", "$135.40 per new customer", "1,274 customers")


def test_a_change_named_by_version_alone_is_asked_back_then_restated(store, engine):
    env = _ask(store, engine, "how much did the v2 change move 2024?")
    assert env.behavior is Behavior.clarify
    options = {o.entity_id for o in env.clarify.options}
    assert {"metric.net_revenue", "metric.churn_rate", "metric.active_customers"} <= options
    assert "metric.contribution_margin" not in options  # finance only: never offered to an analyst
    chosen = ask(store, Question(role="analyst", text="how much did the v2 change move 2024?", entity="metric.churn_rate",
                                 at=DEMO_AT), engine=engine)
    assert chosen.values.restatement.other_evidence_id == "metric.churn_rate.v2"
    assert {r.governing.evidence_id for r in chosen.values.restatement.rows} == {"metric.churn_rate.v1"}


def test_values_carry_the_freshness_of_their_inputs(store, engine):
    env = _ask(store, engine, "what was net revenue in Q1 2025?")
    sources = {i.source for i in env.values.inputs}
    assert sources == {"source.raw_shop.orders", "source.raw_payments.payment_events"}
    assert env.values.as_of.isoformat().startswith("2026-11-29T07:00")  # the older of the two loads


@pytest.mark.parametrize("text,value,grain,restate", [
    ("what was net revenue in Q2 2024?", True, None, False),
    ("AOV last month", True, None, False),
    ("churn for 2025 by quarter", True, "quarter", False),
    ("what would Q2 2024 net revenue be under today's definition?", True, "month", True),
    ("how much did the v2 change move 2024?", True, "month", True),
    ("What does net revenue mean?", False, None, False),
    ("What is net revenue on 2025-03-31?", False, None, False),
    ("which model backs net revenue in 2024?", False, None, False),
    ("net revenue 2025-03-31", False, None, False),
])
def test_reading_a_question_for_values(text, value, grain, restate):
    i = parse_intent(text, D(2026, 11, 29))
    assert (i.value, i.value_grain, i.restate) == (value, grain, restate)


def test_todays_definition_is_not_read_as_a_reporting_date():
    i = parse_intent("what would Q2 2024 net revenue be under today's definition?", D(2026, 11, 29))
    assert [(d.start, d.end) for d in i.reporting] == [(D(2024, 4, 1), D(2024, 7, 1))]


# ---- the engine's limits ----------------------------------------------------------------------------------------

def test_engine_is_read_only_bounded_and_cut_off(wh):
    eng = DuckDBEngine(wh, timeout_s=0.3, row_limit=100)
    with pytest.raises(EngineError, match="read-only|read only|Cannot execute"):
        eng.run("CREATE TABLE analytics.x AS SELECT 1", {})
    with pytest.raises(EngineError, match="row limit of 100"):
        eng.run("SELECT * FROM range(1000)", {})
    with pytest.raises(EngineError, match="stopped after 0.3 s"):
        eng.run("SELECT count(*) FROM range(100000000000) a", {})
    with pytest.raises(EngineError, match="DuckDB refused"):
        eng.run("SELECT * FROM read_csv('/etc/hostname')", {})


def test_generator_is_deterministic():
    a, b, c = warehouse._tables(21, 0.02), warehouse._tables(21, 0.02), warehouse._tables(22, 0.02)
    assert all(a[k].equals(b[k]) for k in a)
    assert not a["raw_shop.orders"].equals(c["raw_shop.orders"])


# ---- ingest refuses SQL that reads what its model does not name -------------------------------------------------

def _catalog_with_sql(tmp_path, sql):
    folder = tmp_path / "catalog"
    shutil.copytree(DEMO, folder)
    path = folder / "10_metrics.yaml"
    doc = yaml.safe_load(path.read_text())
    doc["evidence"][0]["metric"]["sql"] = sql
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    return folder


@pytest.mark.parametrize("sql,message", [
    ("SELECT sum(captured_payment_usd) AS value FROM analytics.fct_orders_v2", "reads table analytics.fct_orders_v2"),
    ("SELECT count(*) AS value FROM analytics.fct_orders_v1 JOIN finance.fct_order_costs USING (order_id)",
     "reads table finance.fct_order_costs"),
    ("SELECT count(*) AS value FROM read_csv('/etc/passwd')", "table function read_csv"),
    ("DELETE FROM analytics.fct_orders_v1", "one SELECT"),
    ("SELEC value FROM", "DuckDB cannot read it"),
    ("SELECT sum(order_total_usd) AS value FROM analytics.fct_orders_v1 WHERE ordered_at > $since", "$since"),
])
def test_ingest_refuses_sql_outside_the_model(tmp_path, sql, message):
    folder = _catalog_with_sql(tmp_path, sql)
    with pytest.raises(CatalogError) as exc:
        load_catalog(folder)
    problem = next(p for p in exc.value.problems if p.field == "metric.sql")
    assert problem.evidence_id == "metric.net_revenue.v1" and problem.file.endswith("10_metrics.yaml")
    assert message in problem.message
    # through the CLI, nothing is written
    db = tmp_path / "out.duckdb"
    r = cli("ingest", str(folder), "--db", str(db))
    assert r.returncode != 0 and "metric.sql" in (r.stderr + r.stdout) and not db.exists()


# ---- surfaces: audit, replay, CLI -------------------------------------------------------------------------------

def test_values_are_audited_and_replayed(tmp_path, wh, demo_copy):
    db = demo_copy  # the demo ingested once per session by the CLI (conftest), copied
    r = cli("ask", "--db", str(db), "--role", "analyst", "--at", "2026-11-29T12:00:00Z", "--warehouse", str(wh),
            "--json", "what was net revenue in Q2 2024?")
    assert r.returncode == 0, r.stderr
    import json
    values = json.loads(r.stdout)["values"]
    assert values["status"] == "computed" and values["values"][0]["evidence_id"] == "metric.net_revenue.v1"
    rec = audit.read_all(db)[-1]
    assert rec.values == [{"evidence_id": "metric.net_revenue.v1", "model": "model.fct_orders.v1",
                           "start": "2024-04-01", "end": "2024-07-01", "engine": "duckdb",
                           "sql_hash": values["values"][0]["sql_hash"],
                           "result_hash": values["values"][0]["result_hash"]}]
    assert replay(db, rec.id, engine=DuckDBEngine(wh)).reproduced
    # a warehouse whose numbers changed does not reproduce the recorded answer
    changed = tmp_path / "changed.duckdb"
    shutil.copy(wh, changed)
    con = duckdb.connect(str(changed))
    con.execute("UPDATE analytics.fct_orders_v1 SET refund_amount_usd = refund_amount_usd + 1 "
                "WHERE order_id = (SELECT min(order_id) FROM analytics.fct_orders_v1 WHERE status = 'completed' "
                "AND ordered_at >= DATE '2024-04-01')")
    con.close()
    assert not replay(db, rec.id, engine=DuckDBEngine(changed)).reproduced
    text = cli("ask", "--db", str(db), "--role", "analyst", "--at", "2026-11-29T12:00:00Z", "--warehouse", str(wh),
               "what was net revenue in Q2 2024?").stdout
    assert "Net revenue v1 (metric.net_revenue.v1) on analytics.fct_orders_v1" in text
    assert "as of the last load at 2026-11-29 07:00 UTC" in text


@pytest.mark.parametrize("text", ["how large was net revenue for the second quarter of 2024, roughly?",
                                  "what did net revenue come to across the second quarter of 2024 for us?",
                                  "how big was net revenue in Q2 2024"])
def test_a_magnitude_in_other_words_gets_the_same_value(store, engine, text):
    env = _ask(store, engine, text)
    asked = _ask(store, engine, "what was net revenue in Q2 2024?")
    assert env.values is not None and env.values.status == "computed"
    assert [(v.start, v.end, v.value) for v in env.values.values] == \
        [(v.start, v.end, v.value) for v in asked.values.values]


@pytest.mark.parametrize("text", ["how is net revenue computed in Q2 2024?", "how big a change was v2 in 2025?"])
def test_a_question_about_how_it_is_defined_gets_no_value(store, engine, text):
    assert _ask(store, engine, text).values is None
