"""Many people asking at once through one app process: no answer differs from the same question asked
alone, and no answer carries an id outside its role, with and without a re-ingest replacing the files."""
import copy
import threading

import pytest
from concurrency import answer, foreign_ids, questions, run_threads
from conftest import DEMO

from core.catalog.access import visible
from core.catalog.store import Store
from core.ingest.load import load_catalog
from core.ingest.publish import publish
from core.retrieve.search import Searcher
from core.serve.live import Live

CATALOG = load_catalog(DEMO)
QS = questions(CATALOG)
FOREIGN = {role: foreign_ids(CATALOG, role) for role in CATALOG.role_names}


def _baseline(store, searcher) -> dict:
    return {q: answer(store, searcher, *q) for q in QS}


def test_question_mix_covers_every_role_and_hidden_objects():
    assert {r for r, _, _ in QS} == set(CATALOG.role_names)
    assert all(FOREIGN.values()) and len(QS) >= 80


def test_threads_sharing_one_store_and_searcher_answer_as_if_alone(demo, embedder):
    db = demo[0].path
    alone = _baseline(Store(db), Searcher(Store(db), embedder))
    # A fresh pair, so the per-role views and caches are first built under contention too.
    store = Store(db)
    shared = (store, Searcher(store, embedder))
    result = run_threads(lambda: shared, QS, {q: {a} for q, a in alone.items()}, FOREIGN,
                         threads=16, per_thread=40)
    assert result.errors == []
    assert result.answers == 16 * 40
    assert result.differing == [] and result.foreign == []


def _changed(catalog):
    """The demo with net revenue v2 reworded and the finance-only memo opened to marketing."""
    other = copy.deepcopy(catalog)
    for ev in other.evidence:
        if ev.evidence_id == "metric.net_revenue.v2":
            ev.text = ev.text + " Restated for the 2025 audit."
            ev.content_hash = ev.compute_hash()
        if "finance" in ev.acl and "marketing" not in ev.acl and ev.kind.value == "documentation":
            ev.acl = sorted(ev.acl + ["marketing"])
    return other


def test_answers_stay_consistent_while_a_reingest_replaces_the_files(tmp_path, embedder):
    db = tmp_path / "live.duckdb"
    a, b = CATALOG, _changed(CATALOG)
    assert a.revision() != b.revision()
    base = {}
    for cat in (a, b):
        publish(cat, db, embedder, quiet=True)
        store = Store(db)
        base[cat.revision()] = _baseline(store, Searcher(store, embedder))
    assert base[a.revision()] != base[b.revision()]
    acceptable = {q: {base[a.revision()][q], base[b.revision()][q]} for q in QS}
    live = Live(db, embedder)

    def resources():
        store = live.store()
        return store, live.searcher(store)

    stop = threading.Event()
    published = []

    def writer():
        for cat in (a, b, a, b):
            if stop.is_set():
                break
            publish(cat, db, embedder, quiet=True)
            published.append(cat.revision())

    w = threading.Thread(target=writer)
    w.start()
    # Foreign in both revisions: what B opens to marketing may appear in B's answers.
    foreign = {role: FOREIGN[role] & foreign_ids(b, role) for role in FOREIGN}
    result = run_threads(resources, QS, acceptable, foreign, threads=8, per_thread=30)
    stop.set()
    w.join()
    assert published, "the writer never published"
    assert result.errors == []
    assert result.differing == [] and result.foreign == []
    # After the last publish, new requests read the last revision.
    store, searcher = resources()
    q = next(q for q in QS if base[a.revision()][q] != base[b.revision()][q])
    assert answer(store, searcher, *q) == base[published[-1]][q]


@pytest.mark.parametrize("role", CATALOG.role_names)
def test_each_role_sees_its_own_revision_and_count(demo_store, role):
    view = visible(demo_store, role)
    assert view.count == sum(1 for ev in CATALOG.evidence if role in ev.acl)
    assert len(view.revision) == 16


def test_a_replaced_revision_searcher_is_freed(tmp_path, embedder):
    """One process follows many revisions: the searcher of a revision no question uses any more is freed with its
    index's rows (a searcher holds its Store; kept by a map keyed on that Store, none ever was)."""
    import gc
    import weakref
    db = tmp_path / "live.duckdb"
    live = Live(db, embedder)
    freed = []
    for cat in (CATALOG, _changed(CATALOG), CATALOG):
        publish(cat, db, embedder, quiet=True)
        store = live.store()
        searcher = live.searcher(store)
        assert searcher is live.searcher(store) and searcher.available
        searcher.vector("net revenue", searcher.role_filter("analyst"), k=3)  # its rows read
        freed.append(weakref.ref(searcher))
        del store, searcher
    gc.collect()
    assert [ref() is None for ref in freed] == [True, True, False]
