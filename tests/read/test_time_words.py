"""A time of day written in words in a freshness question sets when freshness is evaluated (issue 39 item 2), as an
ISO timestamp does: "at 6 pm UTC on 3 May", "as of 08:30 yesterday", "yesterday at 23:00 UTC". Before, the day alone
was read and the source was judged at the clock's time. On a water utility's catalog the test writes itself: its
meter reads landed at 10:00 UTC on 3 May 2027 and nothing since, so they were fresh that evening and fail at the
clock (10 May, 09:00 UTC)."""
from __future__ import annotations

from datetime import date, datetime, timezone

import pytest
from builders import watched_source
from conftest import asker

from core.catalog.envelope import Behavior
from core.read.dates.written import find_dates

AT = datetime(2027, 5, 10, 9, 0, tzinfo=timezone.utc)
ROLES = ["network_ops"]
EVIDENCE = [
    *watched_source("raw_ami.meter_reads", ROLES, "2027-05-03T10:00:00Z", owner="Metering (Oskar Vidal)",
                    since="2026-01-01", text="Smart water meter reads, one row per meter per hour.", warn=12, error=48),
    *watched_source("raw_scada.pump_events", ROLES, "2027-05-09T08:45:00Z", owner="Metering (Oskar Vidal)",
                    since="2026-01-01", text="Pump starts and stops from the SCADA historian.", warn=2, error=6),
]


@pytest.fixture(scope="module")
def ask_water(tmp_path_factory, embedder):
    return asker(tmp_path_factory, embedder, "water", ROLES, EVIDENCE, AT)


def _status(env) -> str:
    return next(f.status for f in env.freshness if "meter_reads" in f.source)


@pytest.mark.parametrize("question, at, status", [
    ("is raw_ami.meter_reads late at 6 pm UTC on 3 May?", datetime(2027, 5, 3, 18, tzinfo=timezone.utc), "pass"),
    ("were the meter reads fresh at 7:15 pm on May 4th 2027?", datetime(2027, 5, 4, 19, 15, tzinfo=timezone.utc),
     "warn"),
    ("raw_ami.meter_reads freshness yesterday at 23:00 UTC", datetime(2027, 5, 9, 23, tzinfo=timezone.utc), "error"),
    ("was raw_ami.meter_reads stale as of 08:30 on 4 May 2027?", datetime(2027, 5, 4, 8, 30, tzinfo=timezone.utc),
     "warn"),
    ("is raw_ami.meter_reads fresh at noon CEST on 3 May 2027?", datetime(2027, 5, 3, 10, tzinfo=timezone.utc), "pass"),
])
def test_a_time_in_words_is_when_freshness_is_evaluated(ask_water, question, at, status):
    env = ask_water(question, "network_ops")
    assert env.behavior in (Behavior.answer, Behavior.abstain), (env.behavior, env.verdict)
    assert env.entity_id == "source.raw_ami.meter_reads"
    assert env.evaluated_at == at, env.dates_read
    assert _status(env) == status
    assert at.strftime("%Y-%m-%dT%H:%M") in env.verdict
    assert env.reporting_date is None and env.period_start is None  # the day is the clock's, not a reporting date


def test_a_time_as_of_with_no_day_is_on_the_clocks_day(ask_water):
    env = ask_water("was raw_scada.pump_events fresh as of 08:30?", "network_ops")
    assert env.evaluated_at == datetime(2027, 5, 10, 8, 30, tzinfo=timezone.utc)


def test_without_a_time_the_clock_still_decides(ask_water):
    env = ask_water("is raw_ami.meter_reads late?", "network_ops")
    assert env.evaluated_at == AT and _status(env) == "error"


@pytest.mark.parametrize("text", ["the 9 am batch of meter reads", "pumps ran 3:1 against plan in 2026",
                                  "the top 3 may change"])
def test_numbers_that_are_no_moment_are_not_times(text):
    assert not [m for m in find_dates(text, AT.date()) if m.kind == "timestamp"]


def test_outside_a_freshness_question_the_day_is_the_reporting_date(ask_water):
    env = ask_water("what did raw_ami.meter_reads hold on 3 May 2027 at 9am?", "network_ops")
    assert env.reporting_date == date(2027, 5, 3)
