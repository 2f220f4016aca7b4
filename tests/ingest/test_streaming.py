"""An ingest streams its catalog: files parsed one at a time, objects kept on disk while the index and the database
are written, the cross-object checks run on compact facts. What a user sees must not change: the same objects,
revision and answers, and every problem named with its file, object and field, in the order of the objects."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.catalog import spilled as spilled_module
from core.catalog.evidence import evidence_ids
from core.catalog.spilled import SpilledEvidence
from core.ingest import ingest as ingest_module
from core.ingest.ingest import read_inputs
from core.ingest.load import CatalogError, load_catalog
from tests.conftest import DEMO

ROLES = ["keeper", "auditor"]


def _object(eid: str, entity: str, **extra) -> dict:
    return {"evidence_id": eid, "entity_id": entity, "kind": "documentation", "title": eid,
            "authority": "authoritative", "lifecycle": "current", "acl": ["keeper"], "text": f"{eid} notes.", **extra}


def _write(folder: Path, files: dict[str, dict]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, doc in files.items():
        (folder / name).write_text(json.dumps(doc))
    return folder


def test_objects_kept_on_disk_read_back_as_validated(tmp_path):
    """Every object of the demo catalog, kept on disk, comes back equal (same content hash, ACL revision), by
    position, slice and in order; the catalog revision is the one the in-memory catalog has."""
    catalog = load_catalog(DEMO)
    spilled = SpilledEvidence()
    for ev in catalog.evidence:
        spilled.append(ev)
    assert len(spilled) == len(catalog.evidence)
    assert list(spilled) == catalog.evidence
    assert spilled[-1] == catalog.evidence[-1] and spilled[3:9] == catalog.evidence[3:9]
    assert [e.content_hash for e in spilled] == [e.content_hash for e in catalog.evidence]
    with pytest.raises(IndexError):
        spilled[len(catalog.evidence)]
    again = catalog.model_copy(update={"evidence": spilled})
    assert again.revision() == catalog.revision()


def test_keys_held_in_columns_read_back_across_chunks(monkeypatch):
    """The keys an ingest keeps for every object (in Arrow columns, sealed a chunk at a time) read back as the
    objects' own, by position, slice and in order, across chunk boundaries and before the last chunk is sealed;
    the revision sorts them as tuples sort."""
    monkeypatch.setattr(spilled_module, "KEYS_CHUNK", 7)
    catalog = load_catalog(DEMO)
    # Ids that sort differently from their catalog order, some with capitals and non-ASCII letters.
    evidence = [ev.model_copy(update={"evidence_id": f"{'Zz' if i % 3 else 'a'}.{i % 5}.ü{i}"})
                for i, ev in enumerate(catalog.evidence)]
    spilled = SpilledEvidence()
    for ev in evidence:
        spilled.append(ev)
    want = [(e.evidence_id, e.content_hash, e.acl_revision) for e in evidence]
    assert len(spilled.keys) == len(want) and len(want) % 7  # an unsealed tail remains
    assert list(spilled.keys) == want
    assert spilled.keys[5:16] == want[5:16] and spilled.keys[-1] == want[-1] and spilled.keys[::3] == want[::3]
    assert list(spilled.keys.by_id()) == sorted(want)
    assert evidence_ids(spilled.keys).to_pylist() == [w[0] for w in want]
    again = catalog.model_copy(update={"evidence": spilled})
    assert again.revision() == catalog.model_copy(update={"evidence": evidence}).revision()


def test_an_ingest_of_a_folder_parses_one_file_at_a_time_and_keeps_no_object(tmp_path, monkeypatch):
    """A catalog of several files: each is parsed only when validation reaches it (so one parsed file is held at a
    time, not the whole catalog), and the validated objects are not kept in memory; the catalog is the same as
    load_catalog's, with the same revision and change summary."""
    files = {f"part-{n}.json": {"evidence": [_object(f"doc.p{n}.{i}", f"doc.p{n}.{i}") for i in range(3)]}
             for n in range(4)}
    files["part-0.json"]["roles"] = ROLES
    folder = _write(tmp_path / "catalog", files)
    parsed: list[str] = []
    validated_before: list[int] = []
    real_parse = ingest_module.parse_file

    def parse(path, follow=True):
        parsed.append(Path(path).name)
        validated_before.append(sum(1 for _ in seen))
        return real_parse(path, follow)
    seen: list[str] = []
    real_add = SpilledEvidence.append

    def add(self, ev):
        seen.append(ev.evidence_id)
        real_add(self, ev)
    monkeypatch.setattr(ingest_module, "parse_file", parse)
    monkeypatch.setattr(SpilledEvidence, "append", add)
    catalog, changes = read_inputs(tmp_path / "c.duckdb", folder)
    assert parsed == sorted(files)
    assert validated_before == [0, 3, 6, 9]  # a file is parsed after the one before it was validated
    assert not isinstance(catalog.evidence, list)
    reference = load_catalog(folder)
    assert list(catalog.evidence) == reference.evidence
    assert catalog.revision() == reference.revision()
    assert changes.summary() == "12 added, 0 changed, 0 with new permissions, 0 removed, 0 unchanged"


def test_checks_across_files_name_every_problem_in_object_order(tmp_path):
    """Roles declared in the last file, a link to an object of a later file, a missing link target, an unknown role,
    ids that differ only in case, an empty ACL and a lineage edge to an unknown node: each problem and warning is
    named with file, object and field, in the order of the objects, whichever file the facts they need came from."""
    first = {"evidence": [
        _object("doc.a", "doc.a", links={"documents": ["doc.later"]}),
        _object("doc.b", "doc.b", acl=["keeper", "nobody"]),
        _object("doc.c", "doc.c", links={"documents": ["doc.missing"]}),
    ]}
    second = {"evidence": [
        _object("doc.later", "doc.later"),
        _object("Doc.A", "doc.a2"),
    ], "roles": ROLES}
    folder = _write(tmp_path / "catalog", {"a.json": first, "b.json": second})
    with pytest.raises(CatalogError) as failed:
        read_inputs(tmp_path / "c.duckdb", folder)
    a, b = str(folder / "a.json"), str(folder / "b.json")
    assert [(p.file, p.evidence_id, p.field) for p in failed.value.problems] == [
        (a, "doc.b", "acl"), (a, "doc.c", "links.documents"), (b, "Doc.A", "evidence_id")]
    assert "unknown role 'nobody'" in failed.value.problems[0].message
    assert "'doc.missing'" in failed.value.problems[1].message
    assert "differs from 'doc.a'" in failed.value.problems[2].message

    fine = {"evidence": [
        _object("doc.quiet", "doc.quiet", acl=[]),
        {**_object("lineage.x", "lineage.x"), "kind": "lineage", "edges": [["doc.quiet", "table.nowhere"],
                                                                             ["doc.later", "doc.quiet"]]},
    ]}
    folder = _write(tmp_path / "fine", {"a.json": fine, "b.json": {"evidence": [_object("doc.later", "doc.later")],
                                                                   "roles": ROLES}})
    catalog, _ = read_inputs(tmp_path / "d.duckdb", folder)
    a = str(folder / "a.json")
    assert catalog.warnings == [f"{a}: evidence doc.quiet: field acl: empty ACL, nobody can see it",
                                f"{a}: evidence lineage.x: field edges[0]: lineage edge to unknown node "
                                "'table.nowhere'"]
