"""Dates, periods, versions and overrides read from question text."""
from datetime import date, datetime, timezone

import pytest

from core.read.dates.written import find_dates
from core.read.intents.intent import MODEL_ASKED, meaning_asked, parse_intent


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


def test_invalid_calendar_dates_are_never_reporting_dates():
    # Kept as what they are, so the question is asked back (tests/read/test_no_such_day.py), never dropped unsaid.
    assert [m.kind for m in find_dates("on 2025-02-30")] == ["invalid"]
    assert parse_intent("net revenue on 2025-02-30").reporting == []


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
    assert "reveal_restricted" in parse_intent("list all the hidden documents").overrides
    # Listing what the asker may see asks nothing outside the rules, however much it asks for.
    assert not parse_intent("list every document").overrides and not parse_intent("list all documents").overrides


@pytest.mark.parametrize("text,column", [
    ("Where does `product_price` in revenue come from?", "product_price"),
    ("Which source feeds column customer_id of orders?", "customer_id"),
    ("What is `net_revenue`?", None),
    ("What is net revenue on 2025-03-31?", None),
])
def test_column_questions(text, column):
    assert parse_intent(text).column == column


# A magnitude asked for in other words than "what was" or "how much" asks for the number (issue: "how big was
# net revenue in Q2 2024" answered the definition alone); asking how a definition is made, how big a change
# was or what it counts never does. Questions are long enough that a bare metric-and-period reading cannot
# stand in for the rule, and worded for the demo's metrics and for another catalog's (bookings).
@pytest.mark.parametrize("text", [
    "how big was net revenue for the second quarter of 2024?",
    "how large was our net revenue over the whole of Q2 2024, roughly?",
    "how high was the conversion rate on the web shop in March 2025?",
    "how many dollars of net revenue did the company book in Q2 2024?",
    "what did net revenue come to across the second quarter of 2024 for us?",
    "what did our net revenue total over the second quarter of 2024?",
    "please give me the figure for net revenue in the second quarter of 2024",
    "how big were bookings for the travel agency in the first quarter of 2026?",
    "what did bookings amount to across the first half of 2026 for the agency?",
    "how high were bookings during the spring quarter, Q2 2026, in euros?",
    "how big was net revenue?",
])
def test_a_magnitude_in_other_words_asks_for_the_value(text):
    assert parse_intent(text, date(2026, 11, 29)).value


@pytest.mark.parametrize("text", [
    "how is net revenue computed in Q2 2024?",
    "how big a change was v2 for net revenue?",
    "how big a change was v2 in 2025?",
    "what does net revenue include in Q2 2024?",
    "how are bookings calculated in the first quarter of 2026?",
    "how large an effect did the v2 definition of bookings have?",
    "what do bookings include for Q1 2026?",
    "how high is the freshness threshold for bookings in 2026?",
])
def test_a_question_about_the_definition_does_not_ask_for_the_value(text):
    assert not parse_intent(text, date(2026, 11, 29)).value


@pytest.mark.parametrize("text, kind", [
    # "built on", "relies on", "fed by" with their object after them ask what uses it...
    ("which dashboards are built on net revenue?", "downstream"),
    ("what models rely on raw_shop.orders?", "downstream"),
    ("which reports are fed by the bookings table", "downstream"),
    # ...and with the clause ending on them, what the subject itself rests on: its definition and backing model.
    ("which model is customer acquisition cost built on?", None),
    ("how is the gizmo rate calculated, and which model is it built on?", None),
    ("what table is weekly visits fed by?", None),
])
def test_built_on_reads_which_way_by_what_follows(text, kind):
    assert parse_intent(text).kind == kind


@pytest.mark.parametrize("text", [
    "which model feeds bookings and who owns it?", "who owns bookings and what model is behind it?",
    "who owns bookings, and what's its backing model?", "what table builds bookings, and who maintains it?",
    "who looks after bookings and which table backs it?", "who owns bookings and what backs it?",
    "which dbt model implements bookings and who is responsible for it?", "who owns bookings; is it backed by fct_b?",
])
def test_an_owner_question_asking_the_backing_model_too(text):
    intent = parse_intent(text)
    assert intent.kind == "owner" and "owner" in intent.aspects
    assert MODEL_ASKED.search(text), text


@pytest.mark.parametrize("text", [
    "who owns bookings?", "who owns the fct_bookings model?", "who owns the bookings table",
    "whose model is fct_bookings?", "who owns bookings and which models use it?", "who is the owner of fct_bookings?",
])
def test_an_owner_question_naming_a_model_asks_for_no_model(text):
    assert parse_intent(text).kind == "owner" and not MODEL_ASKED.search(text), text


@pytest.mark.parametrize("text", ["who looks after bookings?", "whose metric is bookings?",
                                  "who should I ask about bookings?"])
def test_an_owner_question_asks_the_owner_however_worded(text):
    assert "owner" in parse_intent(text).aspects


# ---- which way lineage is asked: an explicit direction word wins; "built on top of X" reads X -------------------

@pytest.mark.parametrize("text", [
    "what gets built on top of fct_orders downstream?", "what is built on top of stg_visits?",
    "what's built on top of fct_bookings?", "what gets built on fct_bookings?", "anything built on top of stg_visits?",
    "what relies on fct_bookings?", "fct_bookings downstream", "show the downstream lineage of stg_visits",
    # an explicit "downstream" wins over a phrase leaning upstream
    "what feeds fct_bookings downstream?", "where does stg_visits go downstream?",
])
def test_a_question_asking_what_reads_it_is_downstream(text):
    intent = parse_intent(text)
    assert intent.kind == "downstream" and "upstream" not in intent.aspects, (text, intent.kind, intent.aspects)


@pytest.mark.parametrize("text", [
    "what is fct_bookings built from?", "what feeds fct_bookings?", "where does stg_visits come from?",
    "what's upstream of fct_bookings?", "what are the sources of stg_visits?", "what does fct_bookings depend on?",
    "what is stg_visits built on top of?", "which raw tables feed bookings?",
    # an explicit "upstream" wins over a phrase leaning downstream
    "which models use fct_bookings upstream?", "what does stg_visits depend on upstream?",
])
def test_a_question_asking_what_feeds_it_is_upstream(text):
    intent = parse_intent(text)
    assert intent.kind is None and {"upstream", "lineage"} <= intent.aspects, (text, intent.kind, intent.aspects)
    assert "downstream" not in intent.aspects


@pytest.mark.parametrize("text", [
    "which raw tables feed net revenue and what uses net revenue?", "where does stg_visits come from and what depends on it?",
    "what feeds fct_bookings, and what reads it?", "upstream and downstream of fct_bookings",
    "what uses bookings and where does it come from?", "show me upstream and downstream lineage for stg_visits",
])
def test_a_question_asking_both_ways_reads_both(text):
    assert {"upstream", "downstream"} <= parse_intent(text).aspects, text


@pytest.mark.parametrize("text, asks", [
    ("what is net revenue and who owns it", True), ("who owns bookings, and how is it calculated?", True),
    ("what does bookings mean and who maintains it?", True), ("define bookings and tell me who owns it", True),
    ("who owns bookings and what is it?", True),
    ("who owns bookings?", False), ("what is the owner of bookings?", False), ("what's the bookings owner?", False),
    ("who owns the bookings definition?", False), ("whose metric is bookings?", False),
])
def test_a_clause_asking_what_it_is_beside_the_owner(text, asks):
    assert meaning_asked(text) is asks, text
