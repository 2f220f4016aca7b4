"""Relative, numeric and fiscal dates, read against the evaluation date; how each was read is in the envelope."""
from datetime import date, datetime, timezone

import pytest
from conftest import DEMO

from core.catalog.store import Store, write_catalog
from core.ingest.load import load_catalog
from core.read.dates.when import AskBack, decide
from core.read.dates.written import find_dates

TODAY = date(2026, 11, 29)  # a Sunday


def one(text, fy=1, today=TODAY):
    (m,) = [m for m in find_dates(text, today, fy) if not m.qualifier]
    return (m.start, m.end) if m.kind == "period" else m.start


@pytest.mark.parametrize("text,expected", [
    ("net revenue today", date(2026, 11, 29)),
    ("what was churn yesterday?", date(2026, 11, 28)),
    ("net rev this week", (date(2026, 11, 23), date(2026, 11, 30))),
    ("aov last week", (date(2026, 11, 16), date(2026, 11, 23))),
    ("gmv next week", (date(2026, 11, 30), date(2026, 12, 7))),
    ("churn this month", (date(2026, 11, 1), date(2026, 12, 1))),
    ("churn last month", (date(2026, 10, 1), date(2026, 11, 1))),
    ("churn next month", (date(2026, 12, 1), date(2027, 1, 1))),
    ("net revenue this quarter", (date(2026, 10, 1), date(2027, 1, 1))),
    ("net revenue last quarter", (date(2026, 7, 1), date(2026, 10, 1))),
    ("net revenue next quarter", (date(2027, 1, 1), date(2027, 4, 1))),
    ("refund rate this half", (date(2026, 7, 1), date(2027, 1, 1))),
    ("refund rate last half", (date(2026, 1, 1), date(2026, 7, 1))),
    ("churn this year", (date(2026, 1, 1), date(2027, 1, 1))),
    ("churn last year", (date(2025, 1, 1), date(2026, 1, 1))),
    ("churn next year", (date(2027, 1, 1), date(2028, 1, 1))),
    ("net revenue MTD", (date(2026, 11, 1), date(2026, 11, 30))),
    ("net revenue QTD", (date(2026, 10, 1), date(2026, 11, 30))),
    ("net revenue ytd", (date(2026, 1, 1), date(2026, 11, 30))),
    ("net revenue year-to-date", (date(2026, 1, 1), date(2026, 11, 30))),
    ("net revenue at the end of last quarter", date(2026, 9, 30)),
    ("net revenue as of last month-end", date(2026, 10, 31)),
    ("net revenue at end of last month", date(2026, 10, 31)),
    ("net revenue at the start of this year", date(2026, 1, 1)),
    ("net revenue for 2025-03", (date(2025, 3, 1), date(2025, 4, 1))),
    ("net revenue on 30/09/2025", date(2025, 9, 30)),
    ("net revenue on 09/30/2025", date(2025, 9, 30)),
    ("net revenue on 30.09.2025", date(2025, 9, 30)),
    ("net revenue on 05/05/2025", date(2025, 5, 5)),
])
def test_relative_and_numeric(text, expected):
    assert one(text) == expected


@pytest.mark.parametrize("text,fy,expected", [
    ("net revenue FY2025", 1, (date(2025, 1, 1), date(2026, 1, 1))),
    ("net revenue FY2025", 7, (date(2024, 7, 1), date(2025, 7, 1))),
    ("net revenue fy25", 7, (date(2024, 7, 1), date(2025, 7, 1))),
    ("net revenue Q1 FY2026", 7, (date(2025, 7, 1), date(2025, 10, 1))),
    ("net revenue FY2026 Q3", 7, (date(2026, 1, 1), date(2026, 4, 1))),
    ("net revenue H2 FY2026", 4, (date(2025, 10, 1), date(2026, 4, 1))),
    ("net revenue at the end of FY2025", 7, date(2025, 6, 30)),
    ("net revenue last fiscal year", 7, (date(2025, 7, 1), date(2026, 7, 1))),
    ("net revenue YTD", 7, (date(2026, 7, 1), date(2026, 11, 30))),
    ("net revenue Q1 2026", 7, (date(2026, 1, 1), date(2026, 4, 1))),  # no FY: a calendar quarter
])
def test_fiscal_year_follows_the_setting(text, fy, expected):
    assert one(text, fy) == expected


def test_without_an_evaluation_date_relative_words_are_not_dates():
    assert find_dates("net revenue last quarter") == []


@pytest.mark.parametrize("text", ["net revenue on 03/04/2025", "churn 1/7/2025"])
def test_numeric_date_with_two_readings_is_asked_back(text):
    a = decide(None, None, datetime(2026, 11, 29, tzinfo=timezone.utc), False, find_dates(text, TODAY))
    assert isinstance(a, AskBack) and len(a.options) == 2 and a.options[0].date != a.options[1].date


def test_envelope_says_how_each_date_was_read(ask_demo):
    env = ask_demo("net revenue as of last month-end")
    assert env.reporting_date == date(2026, 10, 31)
    (r,) = env.dates_read
    assert r.text == "last month-end" and r.read_as == "2026-10-31" and "evaluation date 2026-11-29" in r.rule
    assert any("last month-end" in t.detail for t in env.trace if t.rule == "reporting date")
    env = ask_demo("net revenue on 03/04/2025")
    assert env.behavior.value == "clarify" and {o.date for o in env.clarify.options} == {date(2025, 4, 3), date(2025, 3, 4)}
    assert env.dates_read[0].read_as == "2025-04-03 or 2025-03-04"


def test_fiscal_setting_is_read_from_the_catalog(tmp_path):
    import shutil
    src = tmp_path / "cat"
    shutil.copytree(DEMO, src)
    (src / "01_settings.yaml").write_text("settings:\n  fiscal_year_start_month: 7\n")
    db = tmp_path / "fy.duckdb"
    write_catalog(load_catalog(src), db)
    from core.answer.ask import Question, ask
    store = Store(db)
    assert store.fiscal_year_start_month == 7
    env = ask(store, Question(role="analyst", text="how was churn defined in Q1 FY2026?",
                              at=datetime(2026, 11, 29, tzinfo=timezone.utc)))
    assert (env.period_start, env.period_end) == (date(2025, 7, 1), date(2025, 10, 1))
    assert env.dates_read[0].rule == "Q1 of fiscal year FY2026 (starting in July)"
    (src / "01_settings.yaml").write_text("settings:\n  fiscal_year_start_month: 13\n")
    from core.ingest.load import CatalogError
    with pytest.raises(CatalogError, match="01_settings.yaml.*fiscal_year_start_month"):
        load_catalog(src)


@pytest.mark.parametrize("text,expected", [
    # "since <month>" is the latest such month up to the evaluation date, never a future one
    ("net revenue since jan", (date(2026, 1, 1), date(2026, 11, 30))),
    ("refund rate since march", (date(2026, 3, 1), date(2026, 11, 30))),
    ("churn since december", (date(2025, 12, 1), date(2026, 11, 30))),
    ("churn since oct 2025", (date(2025, 10, 1), date(2026, 11, 30))),
    ("net rev since 2024-03-01", (date(2024, 3, 1), date(2026, 11, 30))),
    ("churn rate last FY", (date(2025, 1, 1), date(2026, 1, 1))),
    ("net revenue at the end of last FY", date(2025, 12, 31)),
    ("churn two quarters ago", (date(2026, 4, 1), date(2026, 7, 1))),
    ("net revenue 2 years ago", (date(2024, 1, 1), date(2025, 1, 1))),
    ("net revenue the year before last", (date(2024, 1, 1), date(2025, 1, 1))),
    ("churn 3 days ago", date(2026, 11, 26)),
    ("active customers this time last year", date(2025, 11, 29)),
    ("net revenue for the past 12 months", (date(2025, 11, 30), date(2026, 11, 30))),
    ("churn rate end of Q3 last year", date(2025, 9, 30)),
    ("churn rate in Q3 last year", (date(2025, 7, 1), date(2025, 10, 1))),
    ("net revenue in the first quarter of last year", (date(2025, 1, 1), date(2025, 4, 1))),
    ("net revenue second half of 2025", (date(2025, 7, 1), date(2026, 1, 1))),
    ("standard revenue between H1 and H2 2025", (date(2025, 1, 1), date(2026, 1, 1))),
    ("gmv Q3'25", (date(2025, 7, 1), date(2025, 10, 1))),
    ("active customers 2024/06/30", date(2024, 6, 30)),
    ("standard revenue 2025.06.30", date(2025, 6, 30)),
    ("churn rate 9/30/25", date(2025, 9, 30)),
])
def test_more_relative_and_numeric_phrasings(text, expected):
    assert one(text) == expected


def test_since_a_later_date_and_since_as_because_are_not_periods():
    assert one("churn since 2027-01-01") == date(2027, 1, 1)  # after the evaluation date: kept as written
    (m,) = find_dates("since the feed was late, what was net revenue yesterday?", TODAY, 1)
    assert m.kind == "date" and m.start == date(2026, 11, 28)


def test_last_fy_follows_the_fiscal_year():
    assert one("churn last FY", fy=7) == (date(2025, 7, 1), date(2026, 7, 1))
    assert one("active customers this FY", fy=7) == (date(2026, 7, 1), date(2027, 7, 1))
    assert one("churn rate first half of FY2026", fy=7) == (date(2025, 7, 1), date(2026, 1, 1))


def test_a_date_inside_a_quotation_is_what_the_page_claims_not_the_reporting_date(ask_demo):
    """Analysts paste a page's words in quotes; the date they ask about is outside the quotes."""
    env = ask_demo("The wiki says 'customers active in the trailing 90 days'. Is that right for 2025-06-30?")
    assert env.behavior.value == "answer" and env.reporting_date == date(2025, 6, 30)
    assert env.entity_id == "metric.active_customers"
    quoted, asked = env.dates_read
    assert quoted.text == "the trailing 90 days" and "(inside a quotation, not the reporting date)" in quoted.read_as
    assert asked.read_as == "2025-06-30"
    assert one('the old page says "churn since 2023 uses 180 days" - still true on 30/06/2024?') == date(2024, 6, 30)
    assert one("gmv Q3'25") == (date(2025, 7, 1), date(2025, 10, 1))  # an apostrophe in a date opens no quotation


@pytest.mark.parametrize("text,expected", [
    # dates people type without a year, or in shorthand
    ("net revenue as of eoy 2024", date(2024, 12, 31)),
    ("gmv year-end 2024", date(2024, 12, 31)),
    ("churn end of q2", date(2026, 6, 30)),
    ("churn q3", (date(2026, 7, 1), date(2026, 10, 1))),
    ("churn mid 2025", date(2025, 6, 30)),
    ("aov h1 25", (date(2025, 1, 1), date(2025, 7, 1))),
    ("churn Dec '24", (date(2024, 12, 1), date(2025, 1, 1))),
    ("net revenue last day of feb 2025", date(2025, 2, 28)),
    ("net revenue on march 15", date(2026, 3, 15)),
    ("refund rate 15 mar 25", date(2025, 3, 15)),
    ("as of Jan 1st", date(2026, 1, 1)),
    ("net rev as of month end", date(2026, 10, 31)),
    ("churn at EOQ", date(2026, 9, 30)),
    ("is the revenue handbook still right?", TODAY),
    ("what is churn currently", TODAY),
    ("churn last quater", (date(2026, 7, 1), date(2026, 10, 1))),
    ("what was AOV in march", (date(2026, 3, 1), date(2026, 4, 1))),
    ("net revenue in december", (date(2025, 12, 1), date(2026, 1, 1))),
    ("churn as of end of march", date(2026, 3, 31)),
    ("active customers, 30-06-2024", date(2024, 6, 30)),
])
def test_shorthand_and_yearless_dates(text, expected):
    assert one(text) == expected


@pytest.mark.parametrize("text", ["the month-end close draft", "how may 5 teams read it", "net revenue v2",
                                  "top 10 customers", "kpi glossary 2022", "the glossary (2022)"])
def test_words_that_are_not_dates(text):
    assert [m for m in find_dates(text, TODAY) if not m.qualifier] == []


def test_a_written_date_wins_over_still():
    assert one("is the handbook still right for 2025-03-31?") == date(2025, 3, 31)


def test_a_change_start_is_not_the_date_asked_about():
    text = ("per priya we're moving net revenue to captured payments from 1 feb 2025, can someone confirm what "
            "applies for the Feb 28 2025 close?")
    assert one(text) == date(2025, 2, 28)
    (start,) = [m for m in find_dates(text, TODAY) if m.qualifier]
    assert start.start == date(2025, 2, 1) and start.qualifier == "the date a change starts from"
    # Two dates compared are both read.
    assert len([m for m in find_dates("what changed in net revenue from 2024 vs 2025", TODAY) if not m.qualifier]) == 2


def test_a_relayed_question_in_quotes_keeps_its_date():
    assert one('pasted from #data-help: "can someone confirm what applies for the Feb 28 2025 close?"') == date(2025, 2, 28)
    # A page's claim in quotes is still not the reporting date.
    assert one("the wiki says 'active in the trailing 90 days' - right for 2025-06-30?") == date(2025, 6, 30)


@pytest.mark.parametrize("text,expected", [
    ("churn Q3 vs Q4 2025", [(date(2025, 7, 1), date(2025, 10, 1)), (date(2025, 10, 1), date(2026, 1, 1))]),
    ("active customers H1 vs H2 2024", [(date(2024, 1, 1), date(2024, 7, 1)), (date(2024, 7, 1), date(2025, 1, 1))]),
    ("q1 and q2 2023 bookings", [(date(2023, 1, 1), date(2023, 7, 1))]),  # read as one span, both of 2023
    ("fees Q2 compared with Q3 2024", [(date(2024, 4, 1), date(2024, 7, 1)), (date(2024, 7, 1), date(2024, 10, 1))]),
    # A bare part with nothing dated beside it stays the evaluation date's year.
    ("fees in Q2 vs last year", [(date(2026, 4, 1), date(2026, 7, 1)), (date(2025, 1, 1), date(2026, 1, 1))]),
])
def test_a_bare_quarter_or_half_takes_the_year_said_after_its_pair(text, expected):
    got = [(m.start, m.end) for m in find_dates(text, TODAY) if not m.qualifier]
    assert got == expected, text
