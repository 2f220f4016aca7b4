"""Each role reads the catalog's one copy of the objects' facts (core/catalog/facts.py) through its ACL at lookup: the
same facts, freshness records and ids written in a question as the role's own scan of the table gives, for every role
of the demo and a steward's grants, and nothing of an object the view may not see."""
from __future__ import annotations

import pytest

from core.catalog.access import visible
from core.catalog.facts import catalog_facts
from core.catalog.rows import acl_sql


def _scanned(store, role, grants):
    """The role's objects as a scan of the table with acl_sql reads them: (evidence id, entity id, kind, version,
    valid_from, valid_to), and the ids each carries lower-cased."""
    rows = store.con.execute(
        f"SELECT evidence_id, entity_id, kind, version, valid_from, valid_to FROM evidence WHERE {acl_sql()} "
        "ORDER BY evidence_id", [role, sorted(grants)]).fetchall()
    return {r[0]: r for r in rows}


def _views(store):
    everyone = [e for (e,) in store.con.execute("SELECT evidence_id FROM evidence ORDER BY evidence_id").fetchall()]
    for role in [r.name for r in store.roles()] + ["nobody_at_all"]:
        mine = set(_scanned(store, role, frozenset()))
        hidden = [e for e in everyone if e not in mine]
        yield role, frozenset()
        if hidden:  # a steward's review queue: some objects beyond the role's ACL, and an id no object has
            yield role, frozenset(hidden[:3] + ["metric.no_such_thing"])


def test_every_view_reads_exactly_its_own_objects_facts(demo_store):
    checked = 0
    for role, grants in _views(demo_store):
        view = visible(demo_store, role, grants)
        scanned = _scanned(demo_store, role, grants)
        assert list(view.facts) == list(scanned), (role, grants)
        everyone = [e for (e,) in demo_store.con.execute("SELECT evidence_id FROM evidence").fetchall()]
        for evidence_id in everyone:
            fact = view.facts.get(evidence_id)
            if evidence_id not in scanned:
                assert fact is None and evidence_id not in view.facts, (role, evidence_id)
                with pytest.raises(KeyError):
                    view.facts[evidence_id]
                continue
            r = scanned[evidence_id]
            assert (fact.evidence_id, fact.entity_id, fact.kind.value, fact.version, fact.valid_from,
                    fact.valid_to) == r, (role, evidence_id)
            # A link to an object the view may not see is cut, as from the parsed object.
            assert set(fact.implemented_by) <= {i for e in scanned.values() for i in e[:2]}, (role, evidence_id)
            checked += 1
        entities = {r[1] for r in scanned.values()}
        for entity_id in entities:
            assert [f.evidence_id for f in view.facts.of_entity(entity_id)] == sorted(
                e for e, r in scanned.items() if r[1] == entity_id)
    assert checked > 100


def test_ids_written_in_a_question_and_freshness_are_read_through_the_view(demo_store):
    sources = [s for (s,) in demo_store.con.execute("SELECT DISTINCT source FROM freshness").fetchall()]
    assert sources
    for role, grants in _views(demo_store):
        view = visible(demo_store, role, grants)
        scanned = _scanned(demo_store, role, grants)
        for evidence_id, entity_id, *_ in demo_store.con.execute(
                "SELECT evidence_id, entity_id FROM evidence").fetchall():
            found = {e.evidence_id for e in view.by_written_ids({evidence_id.upper(), entity_id.title()})}
            assert found == {e for e, r in scanned.items() if e == evidence_id or r[1] in (entity_id, evidence_id)
                             or e == entity_id}, (role, evidence_id)
        for source in sources:
            records = view.freshness_objects(source)
            assert all(r.evidence_id in scanned for r in records), (role, source)
            assert [r.evidence_id for r in records] == [
                e for e in demo_store.rows.freshness_ids(source) if e in scanned], (role, source)


def test_roles_share_one_copy_of_the_facts(demo_store):
    """A role's view holds none of the facts it reads: an object two roles both see is one object in memory."""
    analyst, finance = visible(demo_store, "analyst"), visible(demo_store, "finance")
    both = [e for e in analyst.facts if e in finance.facts and not analyst.facts[e].implemented_by]
    assert both
    assert all(analyst.facts[e] is finance.facts[e] for e in both)
    assert analyst.facts._catalog is finance.facts._catalog is catalog_facts(demo_store)


def _obj(evidence_id, entity_id, acl):
    return {"evidence_id": evidence_id, "entity_id": entity_id, "kind": "model", "title": evidence_id, "version": "1",
            "authority": "authoritative", "lifecycle": "current", "valid_from": "2026-01-01", "acl": acl,
            "model": {"relation": "wh." + evidence_id.lower().replace(".", "_")}, "text": "Rows of a ledger."}


def test_ids_stored_in_mixed_case_are_found_as_a_question_writes_them(tmp_path):
    """A catalog whose ids keep their capitals (a warehouse's own names): written in any case, an id or its entity
    id finds the object for a role that sees it, and nothing for one that does not."""
    import yaml

    from core.catalog.store import Store, write_catalog
    from core.ingest.load import load_catalog
    (tmp_path / "catalog.yaml").write_text(yaml.safe_dump({"roles": ["clerk", "auditor"], "evidence": [
        _obj("Ledger.GL_Lines.v2", "Ledger.GL_Lines", ["clerk"]),
        _obj("ledger.gl_lines.v1", "Ledger.GL_Lines", ["clerk", "auditor"]),
        _obj("model.Trial_Balance", "model.Trial_Balance", ["auditor"])]}))
    write_catalog(load_catalog(tmp_path / "catalog.yaml"), tmp_path / "c.duckdb")
    store = Store(tmp_path / "c.duckdb")

    def found(role, *said):
        return {e.evidence_id for e in visible(store, role).by_written_ids(set(said))}

    assert found("clerk", "ledger.gl_lines") == {"Ledger.GL_Lines.v2", "ledger.gl_lines.v1"}
    assert found("auditor", "LEDGER.GL_LINES") == {"ledger.gl_lines.v1"}
    assert found("clerk", "ledger.gl_lines.V2") == {"Ledger.GL_Lines.v2"}
    assert found("auditor", "ledger.gl_lines.v2") == set()
    assert found("auditor", "model.trial_balance") == {"model.Trial_Balance"}
    assert found("clerk", "MODEL.TRIAL_BALANCE") == set()
    store.close()
