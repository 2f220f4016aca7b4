"""A date written in the question that names no day ("feb 30 2024", "2024-02-30", "31 april 2025", "2025-13-01") is
asked back, with its month's last day to choose where it names a month. It was dropped unsaid, and the answer was as
of today's definition: the wrong version, with nothing to say why (core/read/dates/written.py keeps it as an "invalid"
mention, core/read/dates/when.py asks). On a catalog the test writes (a quarry), and the parser alone."""
from datetime import date, datetime, timezone

import pytest
from conftest import asker

from core.catalog.envelope import Behavior
from core.explain.headline import headline
from core.read.dates.written import find_dates

AT = datetime(2032, 8, 1, 9, 0, tzinfo=timezone.utc)
ROLES = ["blasters"]
BASE = {"entity_id": "metric.yield_per_blast", "kind": "metric_definition", "authority": "authoritative",
        "authority_class": "semantic_registry", "acl": ROLES, "owner": "Quarry Ops (Mo Vik)",
        "metric": {"formula": "SUM(tonnes) / COUNT(blasts)", "grain": "one row per blast", "unit": "tonnes"}}
V1 = {**BASE, "evidence_id": "metric.yield_per_blast.v1", "title": "Yield per blast v1", "version": "1",
      "lifecycle": "historical", "valid_from": "2030-01-01", "valid_to": "2031-12-31", "text": "Tonnes per blast."}
V2 = {**BASE, "evidence_id": "metric.yield_per_blast.v2", "title": "Yield per blast v2", "version": "2",
      "lifecycle": "current", "valid_from": "2032-01-01", "text": "Tonnes per blast, misfires excluded."}

NO_DAY = [("yield per blast on feb 30 2031", date(2031, 2, 28)), ("yield per blast on 2031-02-30", date(2031, 2, 28)),
          ("yield per blast for 31 april 2031", date(2031, 4, 30)), ("yield per blast on June 31, 2031", date(2031, 6, 30))]


@pytest.fixture(scope="module")
def quarry(tmp_path_factory, embedder):
    return asker(tmp_path_factory, embedder, "quarry", ROLES, [V1, V2], AT)


@pytest.mark.parametrize("text,month_end", NO_DAY)
def test_a_date_with_no_such_day_is_asked_back(quarry, text, month_end):
    env = quarry(text, "blasters")
    assert env.behavior is Behavior.clarify, (env.behavior, env.verdict)
    assert "not a date" in headline(env) and env.reporting_date is None and not env.selected
    assert [o.date for o in env.clarify.options] == [month_end]
    answered = quarry(text.split(" on ")[0].split(" for ")[0] + f" on {month_end}", "blasters")
    assert [s.evidence_id for s in answered.selected if s.role_in_answer == "definition"] == \
        ["metric.yield_per_blast.v1"]  # the version the user meant, which today's answer would not have given


def test_a_month_that_does_not_exist_is_asked_back_without_a_guess(quarry):
    env = quarry("yield per blast on 2031-13-01", "blasters")
    assert env.behavior is Behavior.clarify and env.clarify.options == [], env.verdict
    assert "Write the reporting date again" in env.verdict


@pytest.mark.parametrize("text", ["yield per blast on feb 29 2032", "yield per blast on 2032-02-29"])
def test_a_leap_day_is_a_day(quarry, text):
    env = quarry(text, "blasters")
    assert env.behavior is Behavior.answer and env.reporting_date == date(2032, 2, 29), env.verdict


def test_the_parser_keeps_what_it_cannot_read():
    [m] = find_dates("what applied on 2025-02-30?")
    assert m.kind == "invalid" and m.text == "2025-02-30" and m.start is None and m.readings == (date(2025, 2, 28),)
    assert m.qualifier  # never a reporting date: every reader of dates skips it


@pytest.mark.parametrize("text", ["compare yield per blast on 2031-02-30 and 2032-03-31",
                                  "how did yield per blast change between feb 30 2031 and 2032-03-31?"])
def test_a_comparison_with_no_such_day_is_asked_back_too(quarry, text):
    """A comparison reads its own dates before the reporting date is decided: it must not drop one unsaid either."""
    env = quarry(text, "blasters")
    assert env.behavior is Behavior.clarify and "not a date" in env.verdict, (env.behavior, env.verdict)


def test_the_last_day_the_calendar_holds_is_not_offered_back():
    [m] = find_dates("yield per blast on 9999-12-31")
    assert m.kind == "invalid" and m.readings == ()  # it offered 31 December 9999, the day it had just refused
