"""The number first, and a past period judged on its own loads (issue 38, items 2 and 3), on a tram operator's
catalog and warehouse the test builds (tests/tram_catalog.py): a question asking for a value is headed by the value
and then the version; a restatement by the restated figure and the difference; "X in 2026 vs 2027" by both values
and how the definitions differ. A month whose loads were all taken is not put under today's failing banner: the
status line says quietly that today's load is late, and that the month was loaded in full."""
from __future__ import annotations

import pytest
from tram_catalog import AT, build

from core.answer.ask import Question, ask
from core.compute.engine import DuckDBEngine
from core.explain.headline import headline, status_line
from core.explain.prose import explain_deterministic


@pytest.fixture(scope="module")
def ask_tram(tmp_path_factory):
    store, wh = build(tmp_path_factory.mktemp("tram"))
    engine = DuckDBEngine(wh)

    def _ask(text: str, role: str = "controller"):
        return ask(store, Question(role=role, text=text, at=AT), engine=engine)
    return _ask


def test_a_value_question_is_headed_by_the_value_then_the_version(ask_tram):
    env = ask_tram("what were fare takings in March 2027?")
    assert env.values.values[0].value == 290.0  # 3 taps of 100 euros, one refunded 10 (v2 nets refunds)
    assert headline(env) == "Fare takings was $290.00 in Mar 2027 under v2"
    env = ask_tram("late tram share in June 2027")
    assert headline(env) == "Late tram share was 16.67% in Jun 2027 under v1"


def test_sub_periods_lead_with_their_values_across_a_definition_change(ask_tram):
    env = ask_tram("fare takings from December 2026 to January 2027 by month")
    assert [v.value for v in env.values.values] == [1200.0, 90.0]
    # each value with the version that computed it, never one total adding up two definitions
    assert headline(env) == "Fare takings from 1 Dec 2026 to 31 Jan 2027: $1,200.00 in Dec 2026 under v1; $90.00 in Jan 2027 under v2"
    env = ask_tram("fare takings by month in 2026")
    assert headline(env) == "Fare takings was $7,800.00 in 2026 under v1; 12 months below"
    env = ask_tram("late tram share in 2027 by quarter")
    assert headline(env) == "Late tram share in 2027: 50.00% in Q1, 20.00% in Q2, 12.50% in Q3, 9.09% in Q4 under v1"


def test_a_period_still_running_is_said_so_far(ask_tram):
    assert headline(ask_tram("fare takings in March 2028")) == "Fare takings is $290.00 so far in Mar 2028 under v2"


def test_a_restatement_leads_with_the_restated_figure_and_the_difference(ask_tram):
    env = ask_tram("fare takings in Q4 2026 under today's definition")
    r = env.values.restatement
    assert (r.governing_total, r.other_total) == (3300.0, 3270.0)
    assert headline(env) == ("Under v2 (today's definition), Fare takings in Q4 2026 would be $3,270.00: "
                             "-$30.00, -0.91% against $3,300.00 under v1")


def test_two_periods_compared_by_their_values_and_definitions(ask_tram):
    env = ask_tram("fare takings in 2026 vs 2027")
    sides = env.values.compared.sides
    assert [s.value for s in sides] == [7800.0, 7680.0]
    assert headline(env) == ("Fare takings was $7,800.00 in 2026 and $7,680.00 in 2027 (-$120.00, -1.54%), "
                             "under v1 and v2, which differ in formula")
    env = ask_tram("late tram share in 2026 vs 2027")
    assert headline(env).endswith("both under v1") and "pp" in headline(env)


def test_a_fully_loaded_past_month_is_not_under_todays_failing_banner(ask_tram):
    env = ask_tram("what were fare takings in March 2027?")
    assert env.freshness[0].status == "error"  # today the taps load is failing
    said = status_line(env)
    assert not [s for s in said if s.level == "error"]
    late = next(s for s in said if "Today's loads are failing" in s.text)
    assert late.level == "info" and "raw_fares.taps" in late.text
    assert any(s.level == "ok" and s.text.startswith("Loaded in full in Mar 2027") for s in said)
    # the explanation says the same: today's load is late, the month holds every row it needed
    why = " ".join(c.text for c in explain_deterministic(env))
    assert "likely incomplete" not in why and "hold every row it needed" in why
    # a restatement over a past quarter is judged the same way
    said = status_line(ask_tram("fare takings in Q4 2026 under today's definition"))
    assert not [s for s in said if s.level == "error"]
    assert any(s.text.startswith("Loaded in full in Q4 2026") for s in said)


def test_the_running_month_and_an_unloaded_source_keep_their_warnings(ask_tram):
    env = ask_tram("fare takings in March 2028")  # the month is not over: today's loads are its loads
    said = status_line(env)
    assert "likely incomplete" in " ".join(c.text for c in explain_deterministic(env))
    assert said[0].level == "error" and said[0].text.startswith("Failing data: raw_fares.taps")
    said = status_line(ask_tram("late tram share in June 2027"))  # nothing was ever loaded: never "in full"
    assert not any("Loaded in full" in s.text for s in said)
    assert any(s.level == "warning" and s.text.startswith("Not loaded in full in Jun 2027") for s in said)


def test_a_definition_question_keeps_its_definition_headline(ask_tram):
    env = ask_tram("what does fare takings mean on 2027-03-31?")
    assert env.values is None and headline(env) == "Fare takings v2 applies on 31 Mar 2027"
