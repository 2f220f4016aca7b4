"""Bad catalogs: a clear error naming file, evidence and field, exit 2, and the old database untouched."""
import hashlib
import json
import shutil
from pathlib import Path

import pytest
from conftest import DEMO, ROOT, cli

from core.ingest.load import CatalogError, load_catalog

GOOD = {"evidence_id": "metric.a.v1", "entity_id": "metric.a", "kind": "metric_definition", "title": "A v1",
        "authority": "authoritative", "lifecycle": "current", "acl": ["analyst"], "valid_from": "2025-01-01",
        "metric": {"formula": "SUM(x)"}}


def write(tmp_path, evidence, name="cat.json", roles=("analyst",)):
    path = tmp_path / name
    path.write_text(json.dumps({"roles": list(roles), "evidence": evidence}))
    return path


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
def test_bad_input_is_rejected_and_leaves_db_untouched(tmp_path, demo_copy, case):
    evidence, eid, field = BAD[case]
    path = write(tmp_path, evidence)
    before = digest(demo_copy)
    result = cli("ingest", str(path), "--db", str(demo_copy))
    assert result.returncode == 2
    assert str(path) in result.stderr and eid in result.stderr and field in result.stderr, result.stderr
    assert digest(demo_copy) == before


def test_malformed_json_names_file_and_line(tmp_path, demo_copy):
    path = tmp_path / "broken.json"
    path.write_text('{"roles": ["analyst"],\n "evidence": [\n  {"evidence_id": "x",, }]}')
    before = digest(demo_copy)
    result = cli("ingest", str(path), "--db", str(demo_copy))
    assert result.returncode == 2 and "broken.json" in result.stderr and "line 3" in result.stderr
    assert digest(demo_copy) == before


def test_malformed_yaml_in_a_folder(tmp_path, demo_copy):
    folder = tmp_path / "catalog"
    folder.mkdir()
    (folder / "good.yaml").write_text("roles: [analyst]\nevidence: []\n")
    (folder / "bad.yaml").write_text("evidence:\n  - evidence_id: x\n    title: [unclosed\n")
    result = cli("ingest", str(folder), "--db", str(demo_copy))
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


# ---- hostile input: every named case gives a clear error or a normal answer, never a traceback or hang ----

import os  # noqa: E402

from core.ingest.ingest import read_inputs  # noqa: E402
from core.ingest.openlineage import read_openlineage  # noqa: E402


def refused(tmp_path, demo_copy, path, *needles, extra=()):
    """Ingest through the CLI: exit 2, every needle in the message, database and index byte-identical."""
    before = digest(demo_copy), sorted((p.name, p.stat().st_size) for p in
                                         demo_copy.with_suffix(".lance").rglob("*") if p.is_file())
    result = cli("ingest", *([str(path)] if path else []), *extra, "--db", str(demo_copy))
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    for needle in needles:
        assert needle in result.stderr, result.stderr
    assert before == (digest(demo_copy), sorted((p.name, p.stat().st_size) for p in
                                                  demo_copy.with_suffix(".lance").rglob("*") if p.is_file()))
    return result.stderr


def test_fifo_and_dev_zero_are_refused_without_hanging(tmp_path, demo_copy):
    fifo = tmp_path / "catalog.yaml"
    os.mkfifo(fifo)
    refused(tmp_path, demo_copy, fifo, "FIFO", "only regular files")
    zero = tmp_path / "zero.json"
    zero.symlink_to("/dev/zero")
    refused(tmp_path, demo_copy, zero, "zero.json", "device")
    folder = tmp_path / "folder"
    folder.mkdir()
    (folder / "cat.json").symlink_to("/dev/zero")
    refused(tmp_path, demo_copy, folder, "cat.json", "symbolic link")


def test_huge_file_is_refused_by_size(tmp_path, demo_copy, monkeypatch):
    import core.ingest.load
    monkeypatch.setattr(core.ingest.load, "MAX_FILE_BYTES", 1000)
    path = write(tmp_path, [{**GOOD, "text": "x" * 2000}])
    refused(tmp_path, demo_copy, path, "over the 1,000-byte limit")


def test_truncated_non_utf8_and_deep_files(tmp_path, demo_copy):
    path = tmp_path / "trunc.json"
    path.write_text(json.dumps({"roles": ["analyst"], "evidence": [GOOD]})[:57])
    refused(tmp_path, demo_copy, path, "trunc.json", "malformed JSON")
    path = tmp_path / "latin.yaml"
    path.write_bytes("roles: [analyst]\nevidence:\n  - title: Umsatz für März\n".encode("latin-1"))
    refused(tmp_path, demo_copy, path, "latin.yaml", "not UTF-8", "line 3")
    path = tmp_path / "deep.json"
    path.write_text('{"roles": ["analyst"], "evidence": ' + "[" * 10_000 + "]" * 10_000 + "}")
    refused(tmp_path, demo_copy, path, "deep.json", "nested deeper")
    path = tmp_path / "deep.yaml"
    path.write_text("roles: [analyst]\nevidence: " + "[" * 10_000 + "]" * 10_000 + "\n")
    refused(tmp_path, demo_copy, path, "deep.yaml", "nested deeper")


def test_wrong_types_inside_a_valid_catalog_file(tmp_path, demo_copy):
    path = tmp_path / "c.json"
    path.write_text(json.dumps({"roles": 5, "evidence": [GOOD]}))
    refused(tmp_path, demo_copy, path, "field roles", "must be a list")
    path.write_text(json.dumps({"roles": ["analyst"], "evidence": ["just a string", {**GOOD, "acl": "analyst"}]}))
    refused(tmp_path, demo_copy, path, "evidence #0", "must be a mapping", "evidence metric.a.v1: field acl")


def test_duplicate_yaml_key_is_refused_with_its_line(tmp_path, demo_copy):
    path = tmp_path / "dup.yaml"
    path.write_text("roles: [analyst]\nevidence:\n  - evidence_id: a\nevidence: []\n")
    refused(tmp_path, demo_copy, path, "dup.yaml", "duplicate key 'evidence'", "line 4", "first at line 2")


# ---- issue 23, item 5: input that cannot hang or be misread ----------------------------------------------------

def _bomb(levels: int = 9) -> str:
    """About 1 KB of YAML whose aliases expand to 9^levels strings (a "billion laughs")."""
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    names = "abcdefghijklmnop"[:levels]
    for prev, name in zip(names, names[1:]):
        lines.append(f"{name}: &{name} [" + ",".join([f"*{prev}"] * 9) + "]")
    return "roles: [analyst]\nsettings:\n" + "\n".join("  " + line for line in lines) + "\nevidence: []\n"


def test_a_yaml_alias_bomb_is_refused_before_it_is_built(tmp_path, demo_copy):
    path = tmp_path / "bomb.yaml"
    path.write_text(_bomb())
    assert path.stat().st_size < 1200
    refused(tmp_path, demo_copy, path, "bomb.yaml", "alias bomb", "written values")
    path.write_text("roles: &r [analyst, *r]\nevidence: []\n")  # an alias inside its own anchor
    refused(tmp_path, demo_copy, path, "bomb.yaml", "refers to itself")


def test_yaml_anchors_that_share_a_value_still_load(tmp_path):
    path = tmp_path / "shared.yaml"
    objs = "".join(f"  - {{evidence_id: m.{i}.v1, entity_id: m.{i}, kind: note, title: N{i}, authority: untrusted, "
                   f"lifecycle: current, acl: *everyone}}\n" for i in range(200))
    path.write_text("roles: &everyone [analyst, finance]\nevidence:\n" + objs)
    catalog = load_catalog(path)
    assert len(catalog.evidence) == 200 and catalog.evidence[-1].acl == ["analyst", "finance"]


def test_a_json_catalog_with_a_duplicate_key_is_refused_not_half_read(tmp_path, demo_copy):
    path = tmp_path / "dup.json"
    # JSON readers keep the last "evidence": the objects above it would be dropped without a word.
    path.write_text('{"roles": ["analyst"], "evidence": [' + json.dumps(GOOD) + '], "evidence": []}')
    refused(tmp_path, demo_copy, path, "dup.json", "field evidence", "duplicate key 'evidence'")
    path.write_text('{"roles": ["analyst"], "evidence": [' + json.dumps(GOOD)[:-1] + ', "acl": ["finance"]}]}')
    refused(tmp_path, demo_copy, path, "dup.json", "evidence metric.a.v1", "field acl", "duplicate key 'acl'")


def test_a_text_field_over_the_limit_is_refused_naming_it(tmp_path, demo_copy):
    from core.catalog.evidence import MAX_TEXT_CHARS
    path = write(tmp_path, [{**GOOD, "text": "x" * (MAX_TEXT_CHARS + 1)}])
    refused(tmp_path, demo_copy, path, "cat.json", "evidence metric.a.v1", "field text",
            f"over the {MAX_TEXT_CHARS:,}-character limit")
    path = write(tmp_path, [{**GOOD, "metric": {"formula": "SUM(x)", "filters": ["ok", "y" * (MAX_TEXT_CHARS + 1)]}}],
                 name="nested.json")
    refused(tmp_path, demo_copy, path, "nested.json", "evidence metric.a.v1", "field metric.filters[1]")
    assert load_catalog(write(tmp_path, [{**GOOD, "text": "x" * MAX_TEXT_CHARS}], name="ok.json")).evidence


@pytest.mark.parametrize("quoted", ["[[[{{{ " * 100, 'a \\"quoted\\" [[[{{{ ' * 100])
def test_json_depth_is_counted_outside_strings_up_to_the_limit(tmp_path, quoted):
    """Brackets a text quotes (with escaped quotes or without) are no nesting; the file's own count up to MAX_DEPTH
    levels and one more is refused, naming the file."""
    from core.ingest.load import MAX_DEPTH

    def catalog(levels=None):  # the top-level mapping is level 1; "x" nests lists below it
        nested = f', "x": {"[" * (levels - 1)}{"]" * (levels - 1)}' if levels else ""
        return '{"roles": ["analyst"], "evidence": [' + json.dumps({**GOOD, "text": quoted}) + "]" + nested + "}"
    path = tmp_path / "c.json"
    path.write_text(catalog())
    assert load_catalog(path).evidence[0].text == quoted
    path.write_text(catalog(MAX_DEPTH))
    with pytest.raises(CatalogError) as kept:
        load_catalog(path)
    assert "unknown top-level key" in str(kept.value) and "nested" not in str(kept.value)
    path.write_text(catalog(MAX_DEPTH + 1))
    with pytest.raises(CatalogError, match=f"c.json: JSON nested deeper than {MAX_DEPTH} levels"):
        load_catalog(path)


def test_a_refused_catalog_leaves_garbage_collection_running(tmp_path):
    """Validation pauses Python's collector (core/catalog/bulk.py); a catalog refused part-way must not leave it
    off in a process that goes on serving (the app ingests uploads)."""
    import gc
    assert gc.isenabled()
    with pytest.raises(CatalogError, match="field kind"):
        load_catalog(write(tmp_path, [{**GOOD, "kind": "spreadsheet"}]))
    assert gc.isenabled()


@pytest.mark.parametrize("bad,needle", [
    ("metric.a\u200b.v1", "U+200B"),                     # zero-width space
    ("metric.a\x1b[2J.v1", "U+001B"),                    # a terminal escape (clears the screen)
    ("metric.a\u202e1v.v1", "U+202E"),                   # right-to-left override
    ("metric.\uff41.v1", "NFKC"),                        # fullwidth a: reads as metric.a.v1
    ("metric.\u212a.v1", "NFKC"),                        # Kelvin sign: reads as metric.K.v1
    ("metric.a.v1 ", "white space"),
    ("m" * 1_000_000, "1,000,000 characters long"),
])
def test_ids_that_are_not_printable_bounded_or_normalised_are_refused(tmp_path, demo_copy, bad, needle):
    err = refused(tmp_path, demo_copy, write(tmp_path, [{**GOOD, "evidence_id": bad}]),
                  "cat.json", "evidence #0", "field evidence_id", "not a valid id", needle)
    assert "\x1b" not in err and "\u200b" not in err and len(err) < 2000  # shown escaped and cut, never raw
    refused(tmp_path, demo_copy, write(tmp_path, [{**GOOD, "entity_id": bad}], name="ent.json"),
            "ent.json", "field entity_id", needle)


def test_role_principal_and_acl_names_are_ids_too(tmp_path, demo_copy):
    path = tmp_path / "roles.json"
    path.write_text(json.dumps({"roles": ["analyst", "fin\u200bance"],
                                "principals": [{"name": "al\x1bice", "roles": ["analyst"]}],
                                "evidence": [{**GOOD, "acl": ["analyst", "analyst\u00a0"]}]}))
    refused(tmp_path, demo_copy, path, "roles.json", "field roles[1].name", "field principals[0].name",
            "evidence metric.a.v1: field acl[1]", "U+00A0")


@pytest.mark.parametrize("fresh,needle", [
    ({"warn_after_hours": float("nan")}, "finite number"),
    ({"warn_after_hours": -1}, "greater than or equal to 0"),
    ({"error_after_hours": "Infinity"}, "finite number"),
])
def test_nan_negative_and_infinite_freshness_thresholds(tmp_path, demo_copy, fresh, needle):
    ev = {**GOOD, "evidence_id": "fresh.a", "kind": "freshness_policy", "freshness": fresh}
    path = write(tmp_path, [ev])
    refused(tmp_path, demo_copy, path, "evidence fresh.a", "field freshness.", needle)


def test_expires_before_valid_from_is_refused(tmp_path, demo_copy):
    refused(tmp_path, demo_copy, write(tmp_path, [{**GOOD, "expires_at": "2024-01-01"}]),
            "evidence metric.a.v1", "expires_at 2024-01-01 is before valid_from 2025-01-01")


def test_ids_differing_only_in_case_or_by_look_alikes_are_refused(tmp_path, demo_copy):
    case = write(tmp_path, [GOOD, {**GOOD, "evidence_id": "Metric.A.V1"}])
    refused(tmp_path, demo_copy, case, "Metric.A.V1", "only in letter case")
    cyrillic = write(tmp_path, [GOOD, {**GOOD, "evidence_id": "m\u0435tric.a.v1"}], name="c2.json")
    refused(tmp_path, demo_copy, cyrillic, "look-alike")
    catalog = load_catalog(write(tmp_path, [{**GOOD, "entity_id": "metric.\u0430"}], name="c3.json"))
    assert any("look like Latin" in w for w in catalog.warnings)


def test_the_calendar_ends_load(tmp_path):
    catalog = load_catalog(write(tmp_path, [{**GOOD, "valid_from": "0001-01-01", "valid_through": "9999-12-31",
                                             "expires_at": "9999-12-31"}]))
    assert catalog.evidence[0].valid_to is None  # through the last day there is = open-ended


def test_huge_numbers_and_strings(tmp_path, demo_copy):
    path = tmp_path / "big.json"
    path.write_text('{"roles": ["analyst"], "evidence": [{"evidence_id": "x", "version": ' + "9" * 5000 + "}]}")
    refused(tmp_path, demo_copy, path, "big.json", "4300 digits")
    catalog = load_catalog(write(tmp_path, [{**GOOD, "title": "T" * 200_000,
                                             "freshness": {"warn_after_hours": 1e300}}]))
    assert len(catalog.evidence[0].title) == 200_000


def test_catalog_that_removes_everything_is_refused_unless_allowed(tmp_path, demo_copy):
    path = tmp_path / "empty.yaml"
    path.write_text("roles: [analyst, finance, marketing, governance]\nevidence: []\n")
    stderr = refused(tmp_path, demo_copy, path, "would remove all 59 objects", "--allow-empty")
    assert "nothing was written" in stderr
    result = cli("ingest", str(path), "--db", str(demo_copy), "--allow-empty")
    assert result.returncode == 0, result.stderr
    assert "removing 59 object(s)" in result.stderr and "59 removed" in result.stdout


def test_ingest_says_how_many_objects_it_removes(tmp_path, demo_copy):
    folder = tmp_path / "demo"
    shutil.copytree(DEMO, folder)
    (folder / "50_documents.yaml").unlink()
    removed = len([e for e in load_catalog(DEMO).evidence]) - len(load_catalog(folder).evidence)
    result = cli("ingest", str(folder), "--db", str(demo_copy))
    assert result.returncode == 0, result.stderr
    assert f"removing {removed} object(s) no longer in the inputs" in result.stderr


def test_symlinks_and_folders_where_files_are_expected(tmp_path, demo_copy):
    dangling = tmp_path / "gone.json"
    dangling.symlink_to(tmp_path / "nowhere.json")
    refused(tmp_path, demo_copy, dangling, "gone.json", "symlink whose target is missing")
    overlay_dir = tmp_path / "overlay.yml"
    overlay_dir.mkdir()
    refused(tmp_path, demo_copy, None, "overlay.yml", "is a folder",
            extra=["--dbt", str(ROOT / "tests/fixtures/realworld/jaffle-shop"), "--overlay", str(overlay_dir)])


# --- dbt artifacts with wrong JSON types ---

def _target(tmp_path, **changes):
    src = ROOT / "tests/fixtures/realworld/jaffle-shop"
    folder = tmp_path / "target"
    shutil.copytree(src, folder)
    manifest = json.loads((folder / "manifest.json").read_text())
    for apply in changes.values():
        apply(manifest)
    (folder / "manifest.json").write_text(json.dumps(manifest))
    return folder


@pytest.mark.parametrize("name,change,needles", [
    ("metadata null", lambda m: m.update(metadata=None), ["field metadata", "must be an object, got null"]),
    ("node is a string", lambda m: m["nodes"].update({"model.jaffle_shop.orders": "orders"}),
     ["evidence model.jaffle_shop.orders", "must be an object, got a string"]),
    ("freshness count as a string", lambda m: next(s for s in m["sources"].values()).update(
        freshness={"warn_after": {"count": "12", "period": "hour"}}),
     ["field freshness.warn_after.count", "must be a number or null, got a string"]),
    ("unknown freshness period", lambda m: next(s for s in m["sources"].values()).update(
        freshness={"warn_after": {"count": 12, "period": "fortnight"}}), ["must be one of minute, hour, day"]),
    ("parent_map a list", lambda m: m.update(parent_map=[]), ["field parent_map", "must be an object keyed by id"]),
])
def test_dbt_artifact_wrong_types(tmp_path, name, change, needles):
    folder = _target(tmp_path, change=change)
    with pytest.raises(CatalogError) as exc:
        read_inputs(tmp_path / "none.duckdb", dbt=folder)
    text = str(exc.value)
    assert "manifest.json" in text and all(n in text for n in needles), text


# --- overlay and OpenLineage with wrong JSON/YAML types ---

@pytest.mark.parametrize("body,needles", [
    ("objects: [metric:revenue]\n", ["field objects", "must be a mapping, got a list"]),
    ("roles: 5\n", ["field roles", "must be a non-empty list of role names, got a number"]),
    ("defaults: {acl: analyst}\n", ["field defaults.acl", "must be a list of role names"]),
    ("objects:\n  metric:revenue: {versions: [1, 2]}\n", ["objects.metric:revenue.versions", "mapping"]),
    ("objects:\n  metric:revenue: {acl: analyst}\n", ["objects.metric:revenue.acl", "list of strings"]),
])
def test_overlay_wrong_types(tmp_path, body, needles):
    overlay = tmp_path / "overlay.yml"
    overlay.write_text(body)
    with pytest.raises(CatalogError) as exc:
        read_inputs(tmp_path / "none.duckdb", dbt=ROOT / "tests/fixtures/realworld/jaffle-shop", overlay=overlay)
    text = str(exc.value)
    assert "overlay.yml" in text and all(n in text for n in needles), text


def test_openlineage_wrong_types_are_skipped_or_noted(tmp_path):
    good = json.loads((ROOT / "tests/fixtures/realworld/openlineage/compat__simple_run_event.json").read_text())
    column = {"eventTime": "2025-01-01T00:00:00Z", "run": {"runId": "3f5e83fa-3480-44ff-99c5-ff943904e5e8"},
              "job": {"namespace": "n", "name": "j"}, "inputs": [{"namespace": "pg", "name": "a"}],
              "outputs": [{"namespace": "pg", "name": "b", "facets": {"columnLineage": {
                  "fields": {"x": {"inputFields": "pg.a.x"}}}}}]}
    (tmp_path / "e.json").write_text(json.dumps([good, {**good, "run": "r-1"}, {**good, "job": "j"},
                                                  {**good, "inputs": "pg.a"}, column]))
    read = read_openlineage(tmp_path / "e.json")
    reasons = {s.file.rsplit("[", 1)[-1]: s.reason for s in read.skipped}
    assert reasons == {"event 1]": "run must be an object", "event 2]": "job must be an object",
                       "event 3]": "inputs must be a list"}
    assert any("inputFields must be a list" in w.reason for w in read.warnings)
    assert any(e["kind"] == "lineage" and ["dataset:pg/a", "dataset:pg/b"] in e["edges"] for e in read.evidence)


def test_cyclic_and_10000_deep_lineage_answers(tmp_path):
    """A 10,000-edge chain and a cycle load, and the lineage walk stops at its depth cap."""
    chain = [{"evidence_id": f"lin.{i}", "entity_id": f"lin.{i}", "kind": "lineage", "title": f"edge {i}",
              "authority": "authoritative", "lifecycle": "current", "acl": ["analyst"],
              "edges": [[f"t{i + 1}", f"t{i}"]]} for i in range(10_000)]
    chain.append({**chain[0], "evidence_id": "lin.cycle", "entity_id": "lin.cycle", "edges": [["t0", "t10000"]]})
    db = tmp_path / "deep.duckdb"
    from core.catalog.store import Store, write_catalog
    write_catalog(load_catalog(write(tmp_path, chain)), db)
    store = Store(db)
    rows = store.upstream_closure(["t0"], "analyst", None)
    assert rows and max(r[3] for r in rows) == 25
    store.close()


def test_ask_at_the_calendar_ends_and_bad_batch_lines(tmp_path, demo_copy):
    """`ask` with year-9999 dates, periods and question dates, and --batch lines of the wrong types or a
    folder as the batch file: an answer or exit 2 with a message, never a traceback."""
    db = str(demo_copy)
    for args, code, needle in [
        (["--date", "9999-12-31"], 2, "out of range"),
        (["--period", "9999-01-01..9999-12-31"], 2, "out of range"),
        # The days AsOf answers for (core/read/dates/day_range.py, issue 40): year 1 is refused as year 9999 is.
        (["--date", "0001-01-01"], 2, "out of range"),
        (["--period", "0001-01-01..9998-12-31"], 2, "out of range"),
        (["--period", "1000-01-01..9998-12-31"], 0, ""),
    ]:
        r = cli("ask", "--db", db, "--role", "analyst", *args, "What is net revenue?")
        assert r.returncode == code and needle in r.stderr, (args, r.stderr)
    for question in ("What was net revenue on 9999-12-31?", "net revenue at the end of 9999",
                     "net revenue from 9999-12-30 to 9999-12-31", "What is net revenue? " * 95):
        r = cli("ask", "--db", db, "--role", "analyst", "--json", question)
        assert r.returncode == 0 and json.loads(r.stdout)["role"] == "analyst"
    # Over the question-length cap (core/settings/budget.py): refused with a message, not read (issue 23).
    r = cli("ask", "--db", db, "--role", "analyst", "--json", "What is net revenue? " * 5000)
    assert r.returncode == 2 and "up to 2,000 characters" in r.stderr and r.stdout == ""
    batch = tmp_path / "q.jsonl"
    for line, needle in [({"question": 5, "role": "analyst"}, "'question' must be a string"),
                         ({"question": "q", "role": ["analyst"]}, "'role' must be a string"),
                         ({"question": "q", "role": "analyst", "date": "9999-12-31"}, "out of range"),
                         ({"question": "q", "role": "analyst", "period": "x"}, "START..END"),
                         (["q"], "must be a JSON object")]:
        batch.write_text(json.dumps(line) + "\n")
        r = cli("ask", "--db", db, "--batch", str(batch))
        assert r.returncode == 2 and "line 1" in r.stderr and needle in r.stderr, r.stderr
    r = cli("ask", "--db", db, "--batch", str(tmp_path))
    assert r.returncode == 2 and "is a folder" in r.stderr
