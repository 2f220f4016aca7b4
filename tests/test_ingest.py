"""Bad catalogs: a clear error naming file, evidence and field, exit 2, and the old database untouched."""
import hashlib
import json
import shutil
from pathlib import Path

import pytest
from conftest import DEMO, cli

from core.load import CatalogError, load_catalog

GOOD = {"evidence_id": "metric.a.v1", "entity_id": "metric.a", "kind": "metric_definition", "title": "A v1",
        "authority": "authoritative", "lifecycle": "current", "acl": ["analyst"], "valid_from": "2025-01-01",
        "metric": {"formula": "SUM(x)"}}


def write(tmp_path, evidence, name="cat.json", roles=("analyst",)):
    path = tmp_path / name
    path.write_text(json.dumps({"roles": list(roles), "evidence": evidence}))
    return path


@pytest.fixture(scope="module")
def ingested(tmp_path_factory):
    db = tmp_path_factory.mktemp("ingested") / "live.duckdb"
    assert cli("ingest", str(DEMO), "--db", str(db)).returncode == 0
    return db


@pytest.fixture
def existing_db(tmp_path, ingested):
    db = tmp_path / "live.duckdb"
    shutil.copy(ingested, db)
    shutil.copytree(ingested.with_suffix(".lance"), db.with_suffix(".lance"))
    return db


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


BAD = {
    "missing field": ([{k: v for k, v in GOOD.items() if k != "title"}], "metric.a.v1", "title"),
    "unknown kind": ([{**GOOD, "kind": "spreadsheet"}], "metric.a.v1", "kind"),
    "unknown authority": ([{**GOOD, "authority": "official"}], "metric.a.v1", "authority"),
    "unknown lifecycle": ([{**GOOD, "lifecycle": "live"}], "metric.a.v1", "lifecycle"),
    "valid_to before valid_from": ([{**GOOD, "valid_to": "2024-12-31"}], "metric.a.v1", "valid_to"),
    "valid_to equals valid_from": ([{**GOOD, "valid_to": "2025-01-01"}], "metric.a.v1", "valid_to"),
    "duplicate id": ([GOOD, {**GOOD, "title": "again"}], "metric.a.v1", "evidence_id"),
    "link to missing object": ([{**GOOD, "links": {"implemented_by": ["model.nowhere.v9"]}}], "metric.a.v1",
                               "links.implemented_by"),
    "unknown role in acl": ([{**GOOD, "acl": ["analsyt"]}], "metric.a.v1", "acl"),
    "bad date": ([{**GOOD, "valid_from": "2025-13-01"}], "metric.a.v1", "valid_from"),
}


@pytest.mark.parametrize("case", list(BAD), ids=list(BAD))
def test_bad_input_is_rejected_and_leaves_db_untouched(tmp_path, existing_db, case):
    evidence, eid, field = BAD[case]
    path = write(tmp_path, evidence)
    before = digest(existing_db)
    result = cli("ingest", str(path), "--db", str(existing_db))
    assert result.returncode == 2
    assert str(path) in result.stderr and eid in result.stderr and field in result.stderr, result.stderr
    assert digest(existing_db) == before


def test_malformed_json_names_file_and_line(tmp_path, existing_db):
    path = tmp_path / "broken.json"
    path.write_text('{"roles": ["analyst"],\n "evidence": [\n  {"evidence_id": "x",, }]}')
    before = digest(existing_db)
    result = cli("ingest", str(path), "--db", str(existing_db))
    assert result.returncode == 2 and "broken.json" in result.stderr and "line 3" in result.stderr
    assert digest(existing_db) == before


def test_malformed_yaml_in_a_folder(tmp_path, existing_db):
    folder = tmp_path / "catalog"
    folder.mkdir()
    (folder / "good.yaml").write_text("roles: [analyst]\nevidence: []\n")
    (folder / "bad.yaml").write_text("evidence:\n  - evidence_id: x\n    title: [unclosed\n")
    result = cli("ingest", str(folder), "--db", str(existing_db))
    assert result.returncode == 2 and "bad.yaml" in result.stderr and "malformed YAML" in result.stderr


def test_all_problems_are_reported_at_once(tmp_path):
    path = write(tmp_path, [{**GOOD, "kind": "spreadsheet"}, {**GOOD, "evidence_id": "b", "lifecycle": "live"}])
    with pytest.raises(CatalogError) as exc:
        load_catalog(path)
    assert {p.evidence_id for p in exc.value.problems} == {"metric.a.v1", "b"}


def test_warnings_do_not_block(tmp_path):
    path = write(tmp_path, [{**GOOD, "acl": []},
                            {**GOOD, "evidence_id": "lin", "kind": "lineage", "edges": [["raw.x", "metric.a.v1"]]}])
    db = tmp_path / "w.duckdb"
    result = cli("ingest", str(path), "--db", str(db))
    assert result.returncode == 0
    assert "empty ACL" in result.stderr and "metric.a.v1" in result.stderr
    assert "unknown node 'raw.x'" in result.stderr


def test_valid_through_and_valid_to_together_is_an_error(tmp_path):
    path = write(tmp_path, [{**GOOD, "valid_to": "2025-06-01", "valid_through": "2025-05-31"}])
    with pytest.raises(CatalogError, match="not both"):
        load_catalog(path)


def test_ingest_writes_every_table(tmp_path):
    db = tmp_path / "demo.duckdb"
    assert cli("ingest", str(DEMO), "--db", str(db)).returncode == 0
    import duckdb
    con = duckdb.connect(str(db), read_only=True)
    counts = {t: con.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
              for t in ("evidence", "entities", "aliases", "lineage_edges", "freshness", "acl", "links", "roles")}
    assert all(counts.values()), counts
    assert counts["evidence"] == len(load_catalog(DEMO).evidence)
    con.close()
    assert not list(tmp_path.glob(".*tmp*")), "no temporary files left behind"


def test_no_roles_is_an_error(tmp_path):
    path = tmp_path / "c.json"
    path.write_text(json.dumps({"evidence": [GOOD]}))
    with pytest.raises(CatalogError, match="no roles"):
        load_catalog(path)
