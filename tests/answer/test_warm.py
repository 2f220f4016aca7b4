"""A process that opens a catalog builds every role's view ahead of time (core/answer/warm.py): no role's first
question then builds anything, so at 100,000 objects none waits seconds for it."""
from __future__ import annotations

import gc
import weakref

import pytest

from core.answer.ask import Question, ask
from core.answer.warm import warm, warm_quietly
from core.catalog import access, facts
from core.catalog import store as store_module
from core.catalog.store import Store
from core.read.names import named


def _nothing_may_be_built(monkeypatch):
    def refuse(*_a, **_k):
        raise AssertionError("built on a question after the warm-up")
    monkeypatch.setattr(access, "build_entity_index", refuse)
    monkeypatch.setattr(access.Visible, "object_words", refuse)
    monkeypatch.setattr(named, "_catalog_titles", refuse)
    monkeypatch.setattr(named, "_document_names", refuse)
    monkeypatch.setattr(facts, "CatalogFacts", refuse)
    monkeypatch.setattr(store_module, "MemoryRows", refuse)


def test_after_warming_no_roles_first_question_builds_anything(demo, monkeypatch):
    store = Store(demo[0].path)  # a fresh process's store: nothing built yet
    warm(store)
    _nothing_may_be_built(monkeypatch)
    for role in [r.name for r in store.roles()]:
        for text in ("What does net revenue mean on 2024-03-15?", "Which model backs churn rate?",
                     "What does the revenue handbook say about refunds?"):
            env = ask(store, Question(role=role, text=text))
            assert env.behavior.value in {"answer", "abstain", "clarify", "not_found_or_not_authorized"}


def test_without_warming_the_first_question_builds_the_view(demo, monkeypatch):
    store = Store(demo[0].path)
    _nothing_may_be_built(monkeypatch)
    with pytest.raises(AssertionError, match="after the warm-up"):
        ask(store, Question(role="analyst", text="What does net revenue mean on 2024-03-15?"))


def test_a_warm_up_that_fails_says_so_and_stops(demo, capsys):
    store = Store(demo[0].path)
    store.close()  # a newer revision replaced this one while it warmed
    warm_quietly(store)
    assert f"warming {store.path} stopped" in capsys.readouterr().err


def test_a_warm_up_sets_its_views_aside_and_a_later_one_frees_a_dropped_revisions(demo):
    """The views are taken out of the cyclic collector's walks once built (at a million objects each full collection
    walked them for 1.1 s); a revision no longer served is still freed, at the latest by the next warm-up."""
    first = Store(demo[0].path)
    warm(first)
    assert gc.get_freeze_count() > 0
    view = weakref.ref(access.visible(first, "analyst"))
    assert view() is not None and view().entities
    first.close()
    del first
    second = Store(demo[0].path)  # the next revision this process serves
    try:
        warm(second)
        gc.collect()
        assert view() is None, "a dropped revision's view outlived the next warm-up"
    finally:
        second.close()
        gc.unfreeze()
