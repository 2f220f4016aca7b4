"""Python's cyclic garbage collector, paused while an ingest builds a catalog's objects.

Building a 100k-object catalog allocates millions of containers (parsed JSON, validated objects, rows for
DuckDB and the index), and each full collection walks every one of them that is still alive: ten full
collections during the 100k benchmark's validation alone, about a third of its CPU time (docs/scale.md).
Nothing these steps build is cyclic garbage, so the pause frees nothing late; what a step leaves is
collected as usual once the collector runs again. Long waits on other code (encoding) are not paused.
"""
from __future__ import annotations

import gc
from contextlib import contextmanager


@contextmanager
def collector_paused():
    """Run the block without cyclic garbage collection; nested blocks leave it to the outermost."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
