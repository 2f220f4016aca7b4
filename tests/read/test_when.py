"""Reporting date and evaluation time: form vs text, literal cases."""
from datetime import date, datetime, timezone

from core.read.dates.when import AskBack, When, decide
from core.read.dates.written import find_dates

NOW = datetime(2026, 11, 29, 12, tzinfo=timezone.utc)


def run(text, day=None, period=None, at=NOW, at_from_form=False, confirmed=False):
    return decide(day, period, at, at_from_form, find_dates(text), confirmed)


def test_form_only():
    w = run("what is net revenue?", day=date(2025, 3, 31))
    assert isinstance(w, When) and w.day == date(2025, 3, 31) and w.period is None


def test_text_only():
    assert run("net revenue on 2024-06-30").day == date(2024, 6, 30)
    assert run("net revenue in Q3 2025").period == (date(2025, 7, 1), date(2025, 10, 1))


def test_same_date_agrees():
    assert run("net revenue on 2025-03-31", day=date(2025, 3, 31)).day == date(2025, 3, 31)


def test_period_containing_the_form_date_agrees_and_wins():
    w = run("net revenue in Q1 2025", day=date(2025, 3, 31))
    assert isinstance(w, When) and w.period == (date(2025, 1, 1), date(2025, 4, 1))


def test_disagreement_asks_with_both_options():
    a = run("net revenue on 2024-06-30", day=date(2025, 3, 31))
    assert isinstance(a, AskBack) and [o.date for o in a.options] == [date(2025, 3, 31), date(2024, 6, 30)]


def test_confirmed_form_date_wins():
    assert run("net revenue on 2024-06-30", day=date(2025, 3, 31), confirmed=True).day == date(2025, 3, 31)


def test_two_dates_ask():
    assert isinstance(run("compare 2024-06-30 and 2025-03-31"), AskBack)


def test_timestamp_sets_evaluation_time_only():
    w = run("At 2026-10-10T09:00:00Z is raw_shop.orders fresh?", day=date(2025, 3, 31))
    assert w.at == datetime(2026, 10, 10, 9, tzinfo=timezone.utc) and w.day == date(2025, 3, 31)


def test_timestamp_in_the_text_sets_the_evaluation_time_over_the_forms():
    # Issue 18 item 3: the form's evaluation time (by default the moment it was opened) is not a second
    # reporting date; the question's own time is when freshness is evaluated, and the trace says so.
    w = run("At 2026-10-10T09:00:00Z is it fresh?", at_from_form=True)
    assert isinstance(w, When) and w.at == datetime(2026, 10, 10, 9, tzinfo=timezone.utc)
    assert any("form's evaluation time" in s.detail for s in w.steps)


def test_two_timestamps_in_the_text_still_ask():
    assert isinstance(run("fresh at 2026-10-10T09:00Z or at 2026-10-11T09:00Z?"), AskBack)


def test_document_year_is_ignored():
    assert run("the 2025 draft says so", day=date(2024, 6, 30)).day == date(2024, 6, 30)
