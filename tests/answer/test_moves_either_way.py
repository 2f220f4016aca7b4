"""A follow-up that moves the reporting date moves it forward as it moves it back: after finance's "what did churn
mean on 2024-12-31?", "and a year later?" was read as naming a subject "later" and answered not found, while "and
the year before?" answered for 31 Dec 2023 (core/read/reading.py names_no_subject sets the move's words aside). A
reporting date moved stays a reporting date (core/answer/conversation.py carried), and words the date reader also
read against the clock ("a year earlier", "the next quarter") do not turn a definition into a number. On the demo."""
from datetime import date

import pytest
from conftest import DEMO_AT

from core.answer.ask import Question, ask
from core.answer.conversation import follow
from core.catalog.envelope import Behavior
from core.explain.headline import date_source, headline

FIRST = "what did churn mean on 2024-12-31?"
NUMBER = "what was net revenue in Q1 2024?"


@pytest.fixture
def after_churn(demo):
    store, searcher = demo

    def _follow(text: str, role: str = "finance", first: str = FIRST):
        def answer(q):
            return ask(store, q, searcher=searcher)
        _, _, turn = follow(Question(role=role, text=first, at=DEMO_AT), None, "p", answer)
        return follow(Question(role=role, text=text, at=DEMO_AT), turn, "p", answer)[1]
    return _follow


@pytest.mark.parametrize("text, day, version", [
    ("and a year later?", date(2025, 12, 31), "2"), ("and the year after?", date(2025, 12, 31), "2"),
    ("what about one year later?", date(2025, 12, 31), "2"), ("and the next quarter?", date(2025, 3, 31), "1"),
    ("a month later?", date(2025, 1, 31), "1"), ("and the following month?", date(2025, 1, 31), "1"),
    ("and a week later?", date(2025, 1, 7), "1"), ("and the year before?", date(2023, 12, 31), "1"),
    ("and a year earlier?", date(2023, 12, 31), "1"), ("the previous quarter?", date(2024, 9, 30), "1"),
    # A count of units, and "on" for later (a stranger's "and one year on?" kept 31 Dec 2024; "and twelve months
    # later?" answered not found)
    ("and one year on?", date(2025, 12, 31), "2"), ("and twelve months later?", date(2025, 12, 31), "2"),
    ("and twelve months on?", date(2025, 12, 31), "2"), ("and 3 months earlier?", date(2024, 9, 30), "1"),
    ("and 18 months before?", date(2023, 6, 30), "1"),
])
def test_a_move_either_way_moves_the_reporting_date(after_churn, text, day, version):
    env = after_churn(text)
    assert env.behavior is Behavior.answer and env.entity_id == "metric.churn_rate", (text, env.verdict)
    assert env.reporting_date == day and env.period_start is None, (text, env.reporting_date, env.period_start)
    assert env.values is None, (text, headline(env))
    assert headline(env) == f"Churn rate v{version} applies on {day.day} {day:%b %Y}", (text, headline(env))
    # Under the headline the page says where the date came from: the carried note names the day moved to, and no
    # note calls it today's (a stranger saw "no reporting date given: answered as of today, 30 Sep 2025").
    assert day.isoformat() in env.notes[0], (text, env.notes)
    assert date_source(env, None, None, carried=True) is None, text


@pytest.mark.parametrize("text, start", [("and a year later?", date(2025, 1, 1)), ("and the next quarter?", date(2024, 4, 1)),
                                         ("and a year earlier?", date(2023, 1, 1))])
def test_after_a_number_a_move_either_way_asks_the_number_again(after_churn, text, start):
    env = after_churn(text, first=NUMBER)
    assert env.entity_id == "metric.net_revenue" and env.values is not None, (text, env.verdict)
    assert (env.values.start, env.period_start) == (start, start), (text, env.values.start, env.period_start)


def test_year_on_year_is_not_a_move():
    from core.read.dates.moves import period_move
    assert period_move("what is the year on year growth of net revenue?") is None
    assert period_move("and a year on?").steps == 1 and period_move("and 18 months earlier?").steps == -18
