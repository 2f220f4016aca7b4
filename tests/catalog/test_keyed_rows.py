"""A catalog too large to hold its documents (core/catalog/store.py MEMORY_ROWS_UP_TO) reads them by key through SQL, and
every answer, for every role, is the one a Store holding its rows gives: definitions, lineage both ways, freshness,
owners, listings, a past date, whole-catalog freshness, a misspelt name."""
from conftest import DEMO_AT

from core.answer.ask import Question, ask
from core.catalog import store as store_module
from core.catalog.rows import LargeRows, MemoryRows
from core.catalog.store import Store
from core.retrieve.search import Searcher

QUESTIONS = ["What does net revenue mean?", "What was net revenue on 2023-06-30?", "who owns contribution margin?",
             "what depends on fct_orders?", "Which raw sources feed the refund rate, and are they fresh?",
             "Is the payments source fresh?", "which documents are drafts?", "list the models",
             "What is the lineage of active customers?", "compare the versions of net revenue",
             "which sources are stale?", "what does net reveune mean?", "what uses net revenue?"]


def _answers(db, embedder, at) -> dict:
    store = Store(db)
    searcher = Searcher(store, embedder)
    out = {}
    for role in [r.name for r in store.roles()]:
        for q in QUESTIONS:
            env = ask(store, Question(role=role, text=q, at=at), searcher=searcher)
            out[(role, q)] = env.model_dump_json(exclude={"evaluated_at", "trace"})
    kind = type(store.rows)
    store.close()
    return kind, out


def test_a_catalog_read_by_key_answers_as_one_held_in_memory(demo_copy, embedder, monkeypatch):
    held_kind, held = _answers(demo_copy, embedder, DEMO_AT)
    monkeypatch.setattr(store_module, "MEMORY_ROWS_UP_TO", 10)  # the demo's objects are "too many" to hold
    keyed_kind, keyed = _answers(demo_copy, embedder, DEMO_AT)
    assert (held_kind, keyed_kind) == (MemoryRows, LargeRows)
    assert len({a for a in held.values()}) > len(QUESTIONS), "the roles see different answers"
    for key in held:
        assert keyed[key] == held[key], key


def test_the_limit_reads_the_catalogs_own_count(demo_copy, monkeypatch):
    store = Store(demo_copy)
    count = int(store.meta()["object_count"])
    store.close()
    for limit, kind in ((count, MemoryRows), (count - 1, LargeRows)):
        monkeypatch.setattr(store_module, "MEMORY_ROWS_UP_TO", limit)
        store = Store(demo_copy)
        assert isinstance(store.rows, kind)
        store.close()
