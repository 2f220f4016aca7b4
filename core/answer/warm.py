"""A process warming up on a catalog: every role's view built before its first question.

At 100,000 objects a role's first answer took 4-10 s (its entity and name indexes, its vocabulary, the title
index, the search index's state, and on the first question of all the file's keyed rows, core/catalog/rows.py),
every later one ~50 ms
(docs/scale.md). The app and the MCP server start this on a background thread when they open a catalog
revision; a question that arrives first builds what it needs itself, as before (the views are shared and each
index is built once).
"""
from __future__ import annotations

import gc
import sys
import threading

from core.catalog.access import visible
from core.catalog.facts import catalog_facts
from core.catalog.store import Store
from core.read.names.named import build_view
from core.retrieve.search import Searcher


def warm(store: Store, searcher: Searcher | None = None, stop: threading.Event | None = None) -> None:
    """The file's keyed rows and its facts, then each role's view (without a steward's grants: those are per queue), and with a
    searcher its index state and each role's search filter, then the index's rows and their words counted. `stop`
    set (the process is exiting) ends it at the next step, so whoever joins this thread waits one step at most."""
    stop = stop or threading.Event()
    gc.unfreeze()  # what an earlier warm-up set aside (a revision no longer served) is collectable again
    _ = store.rows  # read on this thread, not the first question's
    catalog_facts(store)  # every role's facts and written ids, one copy for the catalog
    for role in store.roles():
        if stop.is_set():
            return
        view = visible(store, role.name)
        view.build()
        build_view(view)
        if searcher is not None and searcher.available:
            searcher.view_filter(view)
            searcher.status_for(role.name)
    if searcher is not None and searcher.available and not stop.is_set():
        # After the views, which matter more to a first answer: the index's rows and their words (~5 s at 100k).
        _ = searcher.terms
    if not stop.is_set():
        _set_aside()


def _set_aside() -> None:
    """Take what the warm-up built out of the cyclic collector's walks. The views live as long as their catalog
    revision is served, and at a million objects they are ~4 million objects: every full collection walked them
    all, a 1.1 s pause in whichever answer set it off (one in every few whole-catalog listings); set aside, a full
    collection took 11-112 ms (docs/scale.md). They are still freed when dropped; only garbage in reference cycles
    among them waits for the next warm-up's gc.unfreeze."""
    gc.collect()
    gc.freeze()


def warm_quietly(store: Store, searcher: Searcher | None = None, stop: threading.Event | None = None) -> None:
    """warm() on a background thread: a warm-up is only ahead of time, so a failure (the file closed under it by a
    newer revision) is said once on stderr and the questions build what they need."""
    try:
        warm(store, searcher, stop)
    except Exception as exc:  # noqa: BLE001 (DuckDB, Lance, pydantic, OS errors: none may kill the server)
        print(f"warming {store.path} stopped: {type(exc).__name__}: {str(exc)[:200]}", file=sys.stderr, flush=True)
