"""A follow-up that moves the date after an answer given with no date: "how do we define bruise rate?" (one version,
so the headline names no date) then "and the year before?" kept the undated answer and dropped the move, where a
metric of several versions moved from today. An undated answer is read as of today (its note says so), so the move
is made from today: core/answer/conversation.py `carried`. On the orchard catalog (its clock: 4 Oct 2028)."""
from __future__ import annotations

from datetime import date

import pytest
from conftest import build
from orchard_catalog import AT, EVIDENCE, ROLES
from visits_catalog import write_yaml_catalog

from core.answer.ask import Question, ask
from core.answer.conversation import follow
from core.catalog.envelope import Behavior
from core.explain.headline import headline


@pytest.fixture(scope="module")
def after(tmp_path_factory, embedder):
    root = tmp_path_factory.mktemp("orchard_moves")
    store, searcher = build(root, "orchard_moves", write_yaml_catalog(root / "catalog", ROLES, EVIDENCE, AT), embedder)

    def _follow(first: str, text: str, role: str = "packer"):
        def answer(q):
            return ask(store, q, searcher=searcher)
        _, _, turn = follow(Question(role=role, text=first, at=AT), None, "p", answer)
        return follow(Question(role=role, text=text, at=AT), turn, "p", answer)[1]
    yield _follow
    store.close()


@pytest.mark.parametrize("text, day", [("and the year before?", date(2027, 10, 4)),
                                       ("and a year earlier?", date(2027, 10, 4)),
                                       ("what about two years before?", date(2026, 10, 4)),
                                       ("and the previous quarter?", date(2028, 7, 4))])
def test_a_move_after_an_undated_answer_moves_from_today(after, text, day):
    first = "how do we define bruise rate?"
    env = after(first, text)
    assert env.behavior is Behavior.answer and env.entity_id == "metric.bruise_rate", (text, env.verdict)
    assert env.reporting_date == day, (text, env.reporting_date)
    assert headline(env) == f"Bruise rate v1 applies on {day.day} {day:%b %Y}", (text, headline(env))
    assert any("today, 2028-10-04" in n for n in env.notes), env.notes


def test_a_move_after_a_dated_answer_still_moves_from_its_date(after):
    env = after("what did bruise rate mean on 2027-03-31?", "and the year before?")
    assert env.reporting_date == date(2026, 3, 31), env.reporting_date
