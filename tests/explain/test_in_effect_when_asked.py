"""What is or is not in effect is said of the date the question is about, never of the clock's day: the analyst's
"what was net revenue in Q1 2024?" showed "A draft starts later: ... (not in effect on 29 Nov 2026)", the demo's
evaluation date, beside an answer for Q1 2024 (core/explain/headline.py status_line). On the demo."""
from datetime import date

import pytest

from core.explain.headline import status_line

CLOCK_DAY = "29 Nov 2026"


@pytest.mark.parametrize("text, day, period, said", [
    ("what was net revenue in Q1 2024?", None, None, "(not in effect in Q1 2024)"),
    ("what did net revenue mean in the first half of 2024?", None, None, "(not in effect from 1 Jan 2024 to 30 Jun 2024)"),
    ("net revenue for 2024", None, None, "(not in effect in 2024)"),
    ("what is net revenue?", None, (date(2024, 4, 1), date(2024, 7, 1)), "(not in effect in Q2 2024)"),
    ("what did net revenue mean on 2024-06-30?", None, None, "(not in effect on 30 Jun 2024)"),
    ("what is net revenue?", date(2024, 6, 30), None, "(not in effect on 30 Jun 2024)"),
])
def test_a_draft_to_come_is_said_not_in_effect_when_the_question_asks(ask_demo, text, day, period, said):
    env = ask_demo(text, "analyst", day=day, period=period)
    later = [s.text for s in status_line(env) if s.text.startswith("A draft starts later")]
    assert later and later[0].endswith(said), (text, later)
    assert not [s.text for s in status_line(env) if CLOCK_DAY in s.text], (text, status_line(env))
