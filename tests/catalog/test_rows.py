"""The rows answers read by key come out the same from memory (an opened file), from a large file's documents read
through SQL beside the rest held (LargeRows), and through SQL (a past state's views), and each is exactly what the
role, widened by a steward's grants, may see: every key, every role."""
import pytest

from core.catalog.facts import CatalogFacts
from core.catalog.rows import LargeRows, MemoryRows, SqlRows


@pytest.fixture(scope="module", params=["demo", "suite_a", "suite_b"])
def store(request, demo_store, suites):
    return demo_store if request.param == "demo" else suites[request.param[-1]][0]


def _views(store):
    """Every role alone, and every role with a steward's grants: three objects outside its ACL."""
    rows = store.con.execute("SELECT evidence_id, acl FROM evidence ORDER BY evidence_id").fetchall()
    out = []
    for role in [r.name for r in store.roles()]:
        hidden = [e for e, acl in rows if role not in acl]
        out += [(role, frozenset()), (role, frozenset(hidden[:3]))]
    assert any(g for _, g in out), "the catalog hides something from some role"
    return out


def _keys(store):
    con = store.con
    ids = [i for (i,) in con.execute("SELECT evidence_id FROM evidence").fetchall()]
    entities = sorted({i for (i,) in con.execute("SELECT entity_id FROM evidence").fetchall()})
    nodes = sorted({n for row in con.execute("SELECT upstream, downstream FROM lineage_edges").fetchall() for n in row})
    sources = sorted({s for (s,) in con.execute("SELECT source FROM freshness").fetchall()})
    assert ids and entities and nodes and sources
    return ids, entities, nodes, sources


def _large(store) -> LargeRows:
    facts = CatalogFacts(store.con)
    return LargeRows(lambda: store.con, lambda: facts)


@pytest.mark.parametrize("other", ["sql", "large"])
def test_every_reader_gives_the_same_rows(store, other):
    memory = MemoryRows(store.con)
    sql = SqlRows(lambda: store.con) if other == "sql" else _large(store)
    ids, entities, nodes, sources = _keys(store)
    made_up = ["metric.no_such_thing", "x' OR 'a'='a"]
    for role, grants in _views(store):
        for column, keys in (("evidence_id", ids), ("entity_id", entities)):
            assert memory.docs(column, keys + made_up, role, grants) == sql.docs(column, keys + made_up, role, grants)
            for key in keys:
                assert memory.docs(column, [key], role, grants) == sql.docs(column, [key], role, grants)
        # An id is carried as stored: written in other capitals it is carried by nothing.
        asked = ids + entities + nodes + made_up + [i.upper() for i in ids[:20] + entities[:20]]
        assert memory.carriers(asked, role, grants) == sql.carriers(asked, role, grants)
        for end in ("upstream", "downstream"):
            assert memory.edges(end, nodes, role, grants) == sql.edges(end, nodes, role, grants)
            for node in nodes:
                assert memory.edges(end, [node], role, grants) == sql.edges(end, [node], role, grants)
    for name in sources + entities + ids + made_up:
        assert memory.freshness_ids(name) == sql.freshness_ids(name)
    assert memory.freshness_ids_of(sources + entities + made_up) == sql.freshness_ids_of(sources + entities + made_up)


def test_each_reader_returns_only_what_the_view_may_see(store):
    ids, entities, nodes, _ = _keys(store)
    acl = dict(store.con.execute("SELECT evidence_id, acl FROM evidence").fetchall())
    edges = store.con.execute("SELECT evidence_id, acl FROM lineage_edges").fetchall()
    for reader in (MemoryRows(store.con), SqlRows(lambda: store.con), _large(store)):
        for role, grants in _views(store):
            allowed = {e for e, a in acl.items() if role in a or e in grants}
            docs = reader.docs("evidence_id", ids, role, grants) + reader.docs("entity_id", entities, role, grants)
            assert {d for d in docs} == {d for (e, d) in store.con.execute(
                "SELECT evidence_id, doc FROM evidence").fetchall() if e in allowed}
            carried = reader.carriers(ids, role, grants)
            assert {i for i, seen in carried.items() if seen} == allowed
            shown = {e.evidence_id for end in ("upstream", "downstream") for e in reader.edges(end, nodes, role, grants)}
            assert shown == {e for e, a in edges if role in (a or ()) or e in grants}


def test_an_edge_is_in_effect_on_its_own_days(demo_store):
    from datetime import date, datetime
    dated = [e for e in MemoryRows(demo_store.con).edges("downstream", [n for (n,) in demo_store.con.execute(
        "SELECT downstream FROM lineage_edges").fetchall()], "finance", frozenset()) if e.valid_from and e.valid_to]
    assert dated
    for e in dated:
        assert e.in_effect(e.valid_from) == e.governs and not e.in_effect(e.valid_to)
        assert e.in_effect(datetime.combine(e.valid_from, datetime.min.time())) == e.governs
        assert not e.in_effect(date(e.valid_from.year - 50, 1, 1))
        assert e.in_effect(None) == e.governs
