"""The index's state against the live catalog (core/retrieve/delta.py), computed in SQL and held for changed objects
only, says for every role and a steward's grants exactly what a comparison of every object says: which objects are
stale, missing or gone, how many are indexed, and which rows the role's pre-filter keeps."""
import pytest
from conftest import DEMO, build

from core.catalog.store import Store, write_catalog
from core.ingest.load import load_catalog
from core.retrieve.index import UNINDEXED_CLASSES
from core.retrieve.search import Searcher


@pytest.fixture
def drifted(tmp_path, embedder):
    """The demo indexed, then changed in the catalog only: an edit, a revoked and a granted role, an object removed
    and one added (the index keeps what it had: a stale index)."""
    store, _ = build(tmp_path, "demo", DEMO, embedder)
    path = store.path
    store.close()
    catalog = load_catalog(DEMO)
    by_id = {ev.evidence_id: ev for ev in catalog.evidence}
    by_id["metric.gross_merchandise_value.v1"].text = "Gross merchandise value now counts marketplace orders too."
    by_id["metric.net_revenue.v2"].acl = [r for r in by_id["metric.net_revenue.v2"].acl if r != "analyst"]
    by_id["metric.customer_acquisition_cost.v1"].acl = [*by_id["metric.customer_acquisition_cost.v1"].acl, "analyst"]
    removed = "finance.board_memo.margin_2026"
    added = by_id["metric.gross_merchandise_value.v1"].model_copy(update={"evidence_id": "metric.gross_merchandise_value.v9"})
    catalog.evidence = [ev for ev in catalog.evidence if ev.evidence_id != removed] + [added]
    for ev in catalog.evidence:
        ev.content_hash = ev.compute_hash()
    write_catalog(catalog, path)
    store = Store(path)
    yield store, Searcher(store, embedder)
    store.close()


def _compared_one_by_one(store, searcher, role, grants):
    """The status and the visible evidence ids, from every object of both sides (the comparison the delta replaces)."""
    indexed = {r["evidence_id"]: (r["content_hash"], r["acl_revision"], set(r["acl"])) for r in searcher.dataset.to_table(
        columns=["evidence_id", "content_hash", "acl_revision", "acl"],
        filter="part = 'body' AND chunk_id LIKE '%#0'").to_pylist()}
    live = {e: (h, rev, set(acl)) for e, h, rev, acl, cls in store.con.execute(
        "SELECT evidence_id, content_hash, acl_revision, acl, authority_class FROM evidence").fetchall()
        if cls not in UNINDEXED_CLASSES}
    mine = {e for e, (_, _, acl) in live.items() if role in acl or e in grants}
    status = (sorted(e for e in mine if e in indexed and indexed[e][0] != live[e][0]),
              sorted(e for e in mine if e in indexed and indexed[e][1] != live[e][1]),
              sorted(e for e in mine if e not in indexed), len(mine & set(indexed)))
    sees = {e for e, (_, _, acl) in indexed.items() if (role in acl and role in live.get(e, ("", "", set()))[2])}
    sees |= {e for e in indexed if e in live and (role in live[e][2] or e in grants)}
    return status, sees


def test_status_and_filter_match_a_comparison_of_every_object(drifted):
    store, searcher = drifted
    everything = [e for (e,) in store.con.execute("SELECT evidence_id FROM evidence ORDER BY evidence_id").fetchall()]
    checked = set()
    for role in [r.name for r in store.roles()]:
        hidden = [e for e in everything if role not in store.con.execute(
            "SELECT acl FROM evidence WHERE evidence_id = ?", [e]).fetchall()[0][0]]
        for grants in (frozenset(), frozenset(hidden[:4] + ["metric.no_such_thing"])):
            (stale_content, stale_acl, missing, count), sees = _compared_one_by_one(store, searcher, role, grants)
            status = searcher.status_for(role, grants)
            assert (status.stale_content, status.stale_acl, status.missing, status.indexed_objects) == \
                (stale_content, stale_acl, missing, count), (role, grants)
            found = searcher.dataset.to_table(columns=["evidence_id"], filter=searcher.role_filter(role, grants))
            assert set(found.column("evidence_id").to_pylist()) == sees, (role, grants)
            checked |= set(stale_content) | set(stale_acl) | set(missing)
    # The drift the fixture made is seen by someone: an edit, an ACL change, an object not indexed yet.
    assert {"metric.gross_merchandise_value.v1", "metric.customer_acquisition_cost.v1",
            "metric.gross_merchandise_value.v9"} <= checked
