"""Numbers that mean what they say (issue 45, item 5), on a lido's catalog and warehouse the test builds
(tests/lido_catalog.py): a stock is never totalled across months (its value at the period's end, or the average,
as the metric declares in `metric.time_aggregation`); "monthly" in a metric's name is its name, not a grain; a
future period has not happened; there is no Q5; a month still running is "so far", its days after the clock
never computed; "yesterday" gives that day's value. The field is validated at ingest, and dbt's
non_additive_dimension maps to it."""
from __future__ import annotations

import pytest
import yaml
from lido_catalog import AT, EVIDENCE, ROLES_FILE, build

from core.answer.ask import Question, ask
from core.catalog.envelope import Behavior
from core.compute.engine import DuckDBEngine
from core.explain.headline import headline
from core.ingest.load import CatalogError, load_catalog


@pytest.fixture(scope="module")
def ask_lido(tmp_path_factory):
    store, wh = build(tmp_path_factory.mktemp("lido"))
    engine = DuckDBEngine(wh)

    def _ask(text: str):
        return ask(store, Question(role="lifeguard", text=text, at=AT), engine=engine)
    return _ask


def test_a_stock_is_its_value_at_the_period_end_never_a_total_of_months(ask_lido):
    # 2027's December snapshot holds 220 passes, one a staff pass v2 leaves out; 12 month ends added up are 1,968
    env = ask_lido("pass holders in 2027 by month")
    assert len(env.values.values) == 12
    assert headline(env) == "Pass holders was 219 customers at the end of 2027 under v2; 12 months below"
    env = ask_lido("pass holders in Q2 2027")
    assert headline(env) == "Pass holders was 159 customers at the end of Q2 2027 under v2"
    # across the definition change, the end of the period is under the definition in effect then
    env = ask_lido("pass holders from November 2026 to February 2027 by month")
    assert headline(env) == "Pass holders was 119 customers on 28 Feb 2027 under v2; 4 months below"
    # two periods compared: each side's own end, not the sum of its pieces
    sides = ask_lido("pass holders 2026 vs 2027").values.compared.sides
    assert [s.value for s in sides] == [120.0, 219.0]
    # a year still running: its value as of the clock's day (the February 2028 snapshot)
    assert headline(ask_lido("pass holders this year")) == "Pass holders is 219 customers as of 8 Mar 2028 under v2"


def test_an_average_metric_is_averaged_and_a_flow_summed(ask_lido):
    env = ask_lido("pool temperature in 2027")
    assert env.values.grain == "month" and len(env.values.values) == 12
    assert headline(env).startswith("Pool temperature averaged 26.53 degrees in 2027 under v1")
    assert headline(ask_lido("ticket sales in Q2 2027")) == "Ticket sales was $150.00 in Q2 2027 under v1"


def test_monthly_in_a_metric_name_is_its_name_not_a_grain(ask_lido):
    env = ask_lido("monthly swim visits in Q2 2027")
    assert [v.value for v in env.values.values] == [30.0]  # 8 + 10 + 12, one value for the quarter
    assert headline(env) == "Monthly swim visits was 30 customers in Q2 2027 under v1"
    # the word asks for months when it is not the subject's name, and "by month" always does
    assert len(ask_lido("ticket sales monthly in Q2 2027").values.values) == 3
    assert len(ask_lido("monthly swim visits in Q2 2027 by month").values.values) == 3


def test_future_periods_quarters_that_do_not_exist_and_a_month_so_far(ask_lido):
    env = ask_lido("ticket sales in Q3 2029")
    assert not env.values.values and "has not happened yet" in headline(env)
    env = ask_lido("ticket sales in Q5 2027")
    assert env.behavior is Behavior.clarify and headline(env).startswith("There is no Q5 2027")
    env = ask_lido("ticket sales in 2028 by month")
    # April to December 2028 have not happened: not listed, not counted (the warehouse holds rows for them)
    assert [v.value for v in env.values.values] == [10.0, 20.0, 30.0]
    assert headline(env) == ("Ticket sales is $60.00 so far in 2028 under v1: $10.00 in Jan, $20.00 in Feb, "
                             "$30.00 in Mar so far")


def test_yesterday_gives_that_days_value(ask_lido):
    env = ask_lido("pass holders yesterday")
    assert env.reporting_date.isoformat() == "2028-03-07" and [v.value for v in env.values.values] == [219.0]
    assert headline(env) == "Pass holders was 219 customers on 7 Mar 2028 under v2"


def test_time_aggregation_is_validated_naming_file_object_and_field(tmp_path):
    bad = [dict(e) for e in EVIDENCE]
    bad[2] = {**bad[2], "metric": {**bad[2]["metric"], "time_aggregation": "total"}}
    (tmp_path / "00_roles.yaml").write_text(yaml.safe_dump(ROLES_FILE))
    (tmp_path / "10_evidence.yaml").write_text(yaml.safe_dump({"evidence": bad}))
    with pytest.raises(CatalogError) as err:
        load_catalog(tmp_path)
    assert "10_evidence.yaml: evidence metric.ticket_sales.v1: field metric.time_aggregation" in str(err.value)


def test_dbt_non_additive_dimension_reads_as_last():
    from core.ingest.dbt import _over_time
    home = {"subs": ("sm", {}, {"name": "subs", "agg": "sum",
                                "non_additive_dimension": {"name": "snapshot_on", "window_choice": "max"}}),
            "fees": ("sm", {}, {"name": "fees", "agg": "sum", "non_additive_dimension": None})}
    assert _over_time({"type": "simple", "type_params": {"measure": {"name": "subs"}}}, home) == "last"
    assert _over_time({"type": "simple", "type_params": {"measure": {"name": "fees"}}}, home) is None
