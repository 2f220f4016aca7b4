"""A role's first question in a process builds the role's view (its entity index, titles, vocabulary): at
100,000 objects that takes seconds, once. Like loading the embedding model, it is not that question's time
budget, so the first question is answered instead of stopping; a question's own work still is."""
from __future__ import annotations

import time

from core.answer.ask import Question, ask
from core.catalog import access
from core.catalog.store import Store
from core.settings import budget


def _spin(seconds: float) -> None:
    end = time.thread_time() + seconds
    while time.thread_time() < end:
        pass


def test_building_a_view_is_not_the_first_questions_budget(demo, monkeypatch):
    store = Store(demo[0].path)  # a fresh process's store: no view built yet
    slow = access.build_entity_index

    def slow_index(rows):
        _spin(1.5)  # a large catalog's entity index, over the whole budget below
        return slow(rows)

    monkeypatch.setattr(access, "build_entity_index", slow_index)
    monkeypatch.setattr(budget, "ANSWER_BUDGET_S", 1.0)
    env = ask(store, Question(role="analyst", text="What was net revenue in March 2024?"))
    assert env.behavior.value == "answer", env.verdict
    assert "net revenue" in env.verdict.lower()


def test_a_questions_own_work_still_counts(demo, monkeypatch):
    store = Store(demo[0].path)
    monkeypatch.setattr(budget, "ANSWER_BUDGET_S", 1.0)
    ask(store, Question(role="analyst", text="What was net revenue in March 2024?"))  # builds the view
    from core.answer import ask as ask_module
    resolve = ask_module._resolve

    def slow_resolve(*args, **kwargs):
        _spin(1.5)
        return resolve(*args, **kwargs)

    monkeypatch.setattr(ask_module, "_resolve", slow_resolve)
    env = ask(store, Question(role="analyst", text="What was net revenue in March 2024?"))
    assert env.behavior.value == "abstain"
    assert budget.over_budget_message() in env.verdict
