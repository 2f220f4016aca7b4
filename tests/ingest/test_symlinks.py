"""A symbolic link inside a folder AsOf reads is refused by name, never followed: not to an account file, not to a
token file, not even to a file inside the same folder (it can be repointed later). Only regular files inside the
given folder are read, for hand-written catalogs, Markdown documents, dbt target folders and OpenLineage events.
The path the person names on the command line may itself be a link: they chose it."""
import json
import pathlib
import shutil

import duckdb
from conftest import ROOT, cli

from core.ingest.openlineage import read_openlineage

SECRET = "hunter2-token-7f3a9c"
REAL = ROOT / "tests" / "fixtures" / "realworld"


def _secret(tmp_path):
    """A token file outside every folder given to the ingest."""
    token = tmp_path / "outside" / "token.yaml"
    token.parent.mkdir()
    # Written as a valid catalog page, so a followed link would load and publish it.
    token.write_text(json.dumps({"roles": ["clinician"], "evidence": [{
        "evidence_id": "doc.leak", "entity_id": "doc.leak", "kind": "document", "title": "Leak",
        "text": SECRET, "authority": "authoritative", "lifecycle": "current", "acl": ["clinician"],
        "valid_from": "2024-01-01"}]}))
    return token


def _ward_catalog(folder):
    folder.mkdir(parents=True)
    (folder / "beds.json").write_text(json.dumps({"roles": ["clinician"], "evidence": [{
        "evidence_id": "metric.bed_occupancy.v1", "entity_id": "metric.bed_occupancy", "kind": "metric_definition",
        "title": "Bed occupancy v1", "text": "Occupied beds over staffed beds at midnight.",
        "authority": "authoritative", "lifecycle": "current", "acl": ["clinician"], "valid_from": "2024-01-01",
        "metric": {"formula": "SUM(occupied) / SUM(staffed)"}}]}))
    return folder


def _refused(result, db, *needles):
    assert result.returncode == 2, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    for needle in needles:
        assert needle in result.stderr, result.stderr
    assert SECRET not in result.stdout + result.stderr
    assert not db.exists(), "nothing is written when a link is refused"


def test_a_linked_file_in_a_catalog_folder_is_refused_by_name(tmp_path):
    token = _secret(tmp_path)
    folder = _ward_catalog(tmp_path / "wards")
    (folder / "notes.yaml").symlink_to(token)
    db = tmp_path / "wards.duckdb"
    _refused(cli("ingest", str(folder), "--db", str(db)), db, str(folder / "notes.yaml"), "symbolic link",
             str(token), "only regular files inside")
    (folder / "notes.yaml").unlink()
    # A system account file, and a link that stays inside the folder: both refused, the rule has no exceptions.
    (folder / "passwd.json").symlink_to("/etc/passwd")
    _refused(cli("ingest", str(folder), "--db", str(db)), db, "passwd.json", "symbolic link")
    (folder / "passwd.json").unlink()
    (folder / "again.json").symlink_to(folder / "beds.json")
    _refused(cli("ingest", str(folder), "--db", str(db)), db, "again.json", "symbolic link")
    (folder / "again.json").unlink()
    # A linked folder is refused too: whatever lies below it is outside.
    (folder / "more").symlink_to(token.parent, target_is_directory=True)
    _refused(cli("ingest", str(folder), "--db", str(db)), db, str(folder / "more"), "symbolic link")
    (folder / "more").unlink()
    ok = cli("ingest", str(folder), "--db", str(db))
    assert ok.returncode == 0, ok.stderr


def test_the_named_path_may_be_a_link(tmp_path):
    folder = _ward_catalog(tmp_path / "real")
    named = tmp_path / "current"
    named.symlink_to(folder, target_is_directory=True)
    db = tmp_path / "c.duckdb"
    ok = cli("ingest", str(named), "--db", str(db))
    assert ok.returncode == 0, ok.stderr


def test_a_linked_markdown_page_in_a_documents_folder_is_refused(tmp_path):
    token = tmp_path / "outside" / "credentials.md"
    token.parent.mkdir()
    token.write_text(f"---\ntitle: Credentials\n---\n{SECRET}\n")
    folder = _ward_catalog(tmp_path / "wards")
    docs = tmp_path / "pages"
    docs.mkdir()
    (docs / "handover.md").write_text("---\ntitle: Handover notes\nacl: [clinician]\n---\nBeds are counted at midnight.\n")
    (docs / "creds.md").symlink_to(token)
    db = tmp_path / "wards.duckdb"
    _refused(cli("ingest", str(folder), "--docs", str(docs), "--db", str(db)), db, str(docs / "creds.md"),
             "symbolic link")
    (docs / "creds.md").unlink()
    ok = cli("ingest", str(folder), "--docs", str(docs), "--db", str(db))
    assert ok.returncode == 0, ok.stderr
    con = duckdb.connect(str(db), read_only=True)
    texts = " ".join(str(r[0]) for r in con.execute("SELECT text FROM evidence").fetchall())
    con.close()
    assert "counted at midnight" in texts and SECRET not in texts


def test_a_linked_artifact_in_a_dbt_target_folder_is_refused(tmp_path):
    target = tmp_path / "target"
    shutil.copytree(REAL / "jaffle-shop", target)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    db = tmp_path / "js.duckdb"
    for name in ("manifest.json", "sources.json"):
        if not (target / name).exists():
            continue
        shutil.move(target / name, elsewhere / name)
        (target / name).symlink_to(elsewhere / name)
        _refused(cli("ingest", "--dbt", str(target), "--db", str(db)), db, str(target / name), "symbolic link")
        (target / name).unlink()
        shutil.move(elsewhere / name, target / name)
    ok = cli("ingest", "--dbt", str(target), "--db", str(db))
    assert ok.returncode == 0, ok.stderr


def test_a_linked_openlineage_event_is_skipped_by_name(tmp_path):
    events = tmp_path / "events"
    events.mkdir()
    good = (REAL / "openlineage" / "compat__simple_run_event.json").read_text()
    (events / "a.json").write_text(good)
    outside = tmp_path / "outside.json"
    outside.write_text(good.replace("mock-bucket", "leaked-bucket"))
    (events / "b.json").symlink_to(outside)
    read = read_openlineage(events)
    assert read.events == 1
    skipped = {s.file: s.reason for s in read.skipped}
    assert "symbolic link" in skipped[str(events / "b.json")]
    assert "leaked-bucket" not in json.dumps(read.evidence, default=str)


def test_an_overlay_documents_setting_through_a_link_is_refused(tmp_path):
    from core.ingest.overlay import Overlay
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text(f"---\ntitle: Secret\n---\n{SECRET}\n")
    project = tmp_path / "project"
    project.mkdir()
    (project / "docs").symlink_to(outside, target_is_directory=True)
    overlay = project / "overlay.yml"
    overlay.write_text("roles: [clinician]\ndocuments: docs\n")
    read = Overlay.read(overlay)
    assert read.documents is None, "a refused folder is not read at all"
    assert any(p.field == "documents" and "symbolic link" in p.message for p in read.problems), read.problems
    (project / "docs").unlink()
    (project / "docs").mkdir()
    assert not Overlay.read(overlay).problems and Overlay.read(overlay).documents == str(project / "docs")


def test_a_file_swapped_for_a_link_after_the_listing_is_refused(tmp_path):
    """The folder is listed first and read after: a link put in a file's place meanwhile is not followed."""
    from core.ingest.load import CatalogError, folder_files, read_text
    folder = _ward_catalog(tmp_path / "wards")
    found, links = folder_files(folder, {".json"})
    assert found == [folder / "beds.json"] and not links
    token = _secret(tmp_path)
    (folder / "beds.json").unlink()
    (folder / "beds.json").symlink_to(token)
    try:
        read_text(found[0], follow=False)
    except CatalogError as exc:
        assert "symbolic link" in str(exc) and SECRET not in str(exc)
    else:
        raise AssertionError("a link swapped in after the listing was read")


def test_a_linked_target_folder_of_a_dbt_project_is_refused(tmp_path):
    from core.ingest.metricflow import MetricFlowError, project_manifest
    project = tmp_path / "project"
    project.mkdir()
    (project / "dbt_project.yml").write_text("name: wards\n")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "semantic_manifest.json").write_text(json.dumps({"secret": SECRET}))
    (project / "target").symlink_to(elsewhere, target_is_directory=True)
    try:
        project_manifest(project)
    except MetricFlowError as exc:
        assert "symbolic link" in str(exc) and SECRET not in str(exc)
    else:
        raise AssertionError("the linked target folder was read")


def _swap_for_link(folder, target):
    """`folder` replaced by a link to `target`, as someone racing the ingest would do between listing and reading."""
    folder.rename(folder.with_name(folder.name + ".moved"))
    folder.symlink_to(target, target_is_directory=True)


def _listing_then_swap(module, monkeypatch, folder, target, name="folder_files"):
    """`module.<name>` lists as before, then the sub-folder is swapped: deterministic, no thread racing a read."""
    real = getattr(module, name)

    def listed_then_swapped(*args, **kwargs):
        out = real(*args, **kwargs)
        if not folder.is_symlink():
            _swap_for_link(folder, target)
        return out

    monkeypatch.setattr(module, name, listed_then_swapped)


def _not_as_listed(problems_text):
    assert "is not the file that was listed" in problems_text or "was replaced" in problems_text, problems_text
    assert SECRET not in problems_text


def test_a_catalog_sub_folder_swapped_for_a_link_while_it_is_read_is_refused(tmp_path, monkeypatch):
    import core.ingest.load as load
    token = _secret(tmp_path)
    folder = _ward_catalog(tmp_path / "wards")
    (folder / "wing").mkdir()
    (folder / "wing" / "token.yaml").write_text((folder / "beds.json").read_text().replace("bed_occupancy", "wing_beds"))
    _listing_then_swap(load, monkeypatch, folder / "wing", token.parent)
    try:
        catalog = load.load_catalog(folder)
    except load.CatalogError as exc:
        _not_as_listed(str(exc))
        assert str(folder / "wing" / "token.yaml") in str(exc)
    else:
        raise AssertionError(f"read through the swapped link: {[e.text for e in catalog.evidence]}")


def test_a_documents_sub_folder_swapped_for_a_link_while_it_is_read_is_refused(tmp_path, monkeypatch):
    import core.ingest.overlay as overlay
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "handover.md").write_text(f"---\ntitle: Credentials\nacl: [clinician]\n---\n{SECRET}\n")
    docs = tmp_path / "pages"
    (docs / "ward").mkdir(parents=True)
    (docs / "ward" / "handover.md").write_text("---\ntitle: Handover\nacl: [clinician]\n---\nBeds at midnight.\n")
    _listing_then_swap(overlay, monkeypatch, docs / "ward", outside)
    pages, problems = overlay.read_documents(docs, {}, ["clinician"])
    assert SECRET not in json.dumps(pages, default=str)
    _not_as_listed(" ".join(f"{p.file}: {p.message}" for p in problems))


def test_an_openlineage_sub_folder_swapped_for_a_link_while_it_is_read_is_skipped(tmp_path, monkeypatch):
    import core.ingest.openlineage as openlineage
    good = (REAL / "openlineage" / "compat__simple_run_event.json").read_text()
    events = tmp_path / "events"
    (events / "day1").mkdir(parents=True)
    (events / "day1" / "a.json").write_text(good)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "a.json").write_text(good.replace("mock-bucket", "leaked-bucket"))
    _listing_then_swap(openlineage, monkeypatch, events / "day1", outside)
    read = openlineage.read_openlineage(events)
    assert read.events == 0 and "leaked-bucket" not in json.dumps(read.evidence, default=str)
    _not_as_listed({s.file: s.reason for s in read.skipped}[str(events / "day1" / "a.json")])


def test_a_dbt_target_folder_swapped_for_a_link_while_it_is_read_is_refused(tmp_path, monkeypatch):
    import core.ingest.dbt as dbt
    from core.ingest.load import CatalogError
    target = tmp_path / "project" / "target"
    shutil.copytree(REAL / "jaffle-shop", target)
    elsewhere = tmp_path / "elsewhere"
    shutil.copytree(REAL / "jaffle-shop", elsewhere)
    manifest = json.loads((elsewhere / "manifest.json").read_text())
    for node in manifest["nodes"].values():
        node["description"] = SECRET
    (elsewhere / "manifest.json").write_text(json.dumps(manifest))
    assert dbt.read_target(target)  # as listed, it reads
    _listing_then_swap(dbt, monkeypatch, target, elsewhere, name="_artifact")
    try:
        read = dbt.read_target(target)
    except CatalogError as exc:
        _not_as_listed(str(exc))
    else:
        raise AssertionError(f"read through the swapped link (secret shown: {SECRET in json.dumps(read, default=str)})")


def test_a_dbt_projects_target_folder_swapped_for_a_link_while_it_is_read_is_refused(tmp_path, monkeypatch):
    """MetricFlow's manifest (`target/semantic_manifest.json` of the configured project): found level by level
    without following a link, and read only if it is the file that was found."""
    import core.ingest.load as load
    import core.ingest.metricflow as metricflow
    project = tmp_path / "project"
    (project / "target").mkdir(parents=True)
    (project / "dbt_project.yml").write_text("name: wards\n")
    (project / "target" / "semantic_manifest.json").write_text(json.dumps({"semantic_models": []}))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "semantic_manifest.json").write_text(json.dumps({"secret": SECRET}))
    assert metricflow.project_manifest(project) == json.dumps({"semantic_models": []})
    # Swapped once the manifest was found: after file_below, or after the is_file look a reader by path makes.
    _listing_then_swap(load, monkeypatch, project / "target", elsewhere, name="file_below")
    monkeypatch.setattr(metricflow, "file_below", load.file_below, raising=False)
    looked = pathlib.Path.is_file

    def is_file_then_swap(self, *args, **kwargs):
        out = looked(self, *args, **kwargs)
        if self.name == "semantic_manifest.json" and not (project / "target").is_symlink():
            _swap_for_link(project / "target", elsewhere)
        return out

    monkeypatch.setattr(pathlib.Path, "is_file", is_file_then_swap)
    try:
        text = metricflow.project_manifest(project)
    except metricflow.MetricFlowError as exc:
        _not_as_listed(str(exc))
    else:
        raise AssertionError(f"read through the swapped link: {text}")
