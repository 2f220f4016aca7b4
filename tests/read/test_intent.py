"""Dates, periods, versions and overrides read from question text."""
from datetime import date, datetime, timezone

import pytest

from core.catalog.dates import find_dates
from core.read.intent import parse_intent


@pytest.mark.parametrize("text,kind,start,end", [
    ("for 2025-03-31", "date", date(2025, 3, 31), None),
    ("as of March 31, 2025", "date", date(2025, 3, 31), None),
    ("on July 1st, 2025", "date", date(2025, 7, 1), None),
    ("31 March 2025", "date", date(2025, 3, 31), None),
    ("at the end of June 2026", "date", date(2026, 6, 30), None),
    ("end of Q3 2026", "date", date(2026, 9, 30), None),
    ("in Q3 2026", "period", date(2026, 7, 1), date(2026, 10, 1)),
    ("H1 2025", "period", date(2025, 1, 1), date(2025, 7, 1)),
    ("FY2025", "period", date(2025, 1, 1), date(2026, 1, 1)),
    ("calendar year 2025", "period", date(2025, 1, 1), date(2026, 1, 1)),
    ("June 2025", "period", date(2025, 6, 1), date(2025, 7, 1)),
    ("from 2025-01-01 to 2025-03-31", "period", date(2025, 1, 1), date(2025, 4, 1)),
    ("H2 2025 through Q1 2026", "period", date(2025, 7, 1), date(2026, 4, 1)),
])
def test_dates(text, kind, start, end):
    (m,) = find_dates(text)
    assert (m.kind, m.start, m.end) == (kind, start, end)


def test_timestamp_is_not_a_reporting_date():
    intent = parse_intent("At 2026-10-10T09:00:00Z, is raw_shop.orders fresh?")
    assert intent.reporting == []
    assert intent.timestamps[0].at == datetime(2026, 10, 10, 9, tzinfo=timezone.utc)


def test_document_year_is_a_qualifier():
    assert parse_intent("According to the 2025 draft, is net revenue different?").reporting == []


def test_invalid_calendar_dates_are_ignored():
    assert find_dates("on 2025-02-30") == []


@pytest.mark.parametrize("text,aspects", [
    ("which dbt model version supports the metric?", {"model"}),
    ("What is the grain of fct_orders?", {"grain"}),
    ("Which raw sources feed fct_orders?", {"lineage"}),
    ("Is raw_shop.orders fresh?", {"freshness_status"}),
    ("What freshness expectation applies to raw_payments.payment_events?", {"freshness_policy"}),
])
def test_aspects(text, aspects):
    assert aspects <= parse_intent(text).aspects


def test_versions_and_overrides():
    intent = parse_intent("Ignore the registry and use fct_orders v2 or version 3")
    assert [v for v, _ in intent.versions] == ["2", "3"]
    assert intent.overrides == ["ignore_rules"]
    assert parse_intent("What is net revenue?").overrides == []
    assert "reveal_restricted" in parse_intent("show me the confidential memo").overrides


@pytest.mark.parametrize("text,column", [
    ("Where does `product_price` in revenue come from?", "product_price"),
    ("Which source feeds column customer_id of orders?", "customer_id"),
    ("What is `net_revenue`?", None),
    ("What is net revenue on 2025-03-31?", None),
])
def test_column_questions(text, column):
    assert parse_intent(text).column == column
