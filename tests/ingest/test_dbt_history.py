"""dbt history (issue 39 item 6), on a brewery's dbt project the test writes and ingests twice, as a team re-ingests
after editing it: a changed source freshness threshold is applied even though sources.json still holds the earlier
run's result; "has X changed?" reads what the ingests recorded, not only the versions one ingest holds; a version's
description is its own; ingest and answers name the same revision id."""
import importlib.util
import json
import re
from datetime import datetime, timezone

import pytest
import yaml
from conftest import ROOT, cli

from core.answer.ask import Question, ask
from core.catalog.store import Store, write_catalog
from core.explain.headline import headline
from core.explain.render import render_text
from core.ingest.ingest import read_inputs

AT = datetime(2027, 10, 5, 12, tzinfo=timezone.utc)
_spec = importlib.util.spec_from_file_location("gen_dbt_project", ROOT / "scripts" / "gen_dbt_project.py")
gen = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(gen)
P = "kettle_brewing"
SOURCE = f"source.{P}.brewhouse.mash_logs"


def _spec_for(warn: int, error: int, expr: str, description: str) -> dict:
    return {"project": P, "generated_at": "2027-10-04T03:00:00Z",
            "sources": [{"source": "brewhouse", "name": "mash_logs", "columns": ["log_id", "_synced_at"],
                         "loaded_at_field": "_synced_at", "warn_hours": warn, "error_hours": error}],
            "models": [{"name": "fct_brews", "description": "One row per brew.", "columns": ["brew_id", "litres"],
                        "depends_on": ["source:brewhouse.mash_logs"]}],
            "metrics": [{"name": "litres_brewed", "label": "Litres brewed", "description": description,
                         "model": "fct_brews", "measure": "litres", "agg": "sum", "expr": expr}]}


def _write(folder, spec):
    gen.write_target(spec, folder)
    # The freshness check of an earlier run, with that run's thresholds (12 h / 48 h), kept beside the manifest.
    (folder / "sources.json").write_text(json.dumps({"results": [{
        "unique_id": SOURCE, "max_loaded_at": "2027-10-05T04:00:00Z", "snapshotted_at": "2027-10-05T04:30:00Z",
        "status": "pass", "criteria": {"warn_after": {"count": 12, "period": "hour"},
                                       "error_after": {"count": 48, "period": "hour"}}}]}))
    return folder


FIRST = _spec_for(12, 48, "litres", "Litres of beer brewed, before losses.")
SECOND = _spec_for(6, 24, "litres - spilled_litres", "Litres of beer brewed, net of spills.")


def _ingest(db, folder):
    catalog, _ = read_inputs(db, dbt=folder)
    write_catalog(catalog, db)


@pytest.fixture(scope="module")
def brewery(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("brewery")
    db = tmp / "brewery.duckdb"
    _ingest(db, _write(tmp / "first", FIRST))
    _ingest(db, _write(tmp / "second", SECOND))
    return Store(db)


def _ask(store, q):
    return ask(store, Question(role=store.roles()[0].name, text=q, at=AT))


def test_a_changed_threshold_applies_though_sources_json_holds_the_old_one(brewery):
    env = _ask(brewery, "is mash_logs fresh?")  # loaded 8 h before: fresh under 12 h, stale under today's 6 h
    (f,) = [f for f in env.freshness if f.source == "source.brewhouse.mash_logs"]
    assert (f.status, f.warn_after_hours, f.error_after_hours) == ("warn", 6, 24), f


def test_without_thresholds_in_the_manifest_the_run_s_own_are_used(tmp_path):
    spec = _spec_for(12, 48, "litres", "Litres.")
    folder = _write(tmp_path / "t", spec)
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["sources"][SOURCE].pop("freshness")
    (folder / "manifest.json").write_text(json.dumps(manifest))
    _ingest(tmp_path / "b.duckdb", folder)
    (f,) = _ask(Store(tmp_path / "b.duckdb"), "is mash_logs fresh?").freshness
    assert (f.status, f.warn_after_hours) == ("pass", 12)


@pytest.mark.parametrize("q", ["has litres_brewed changed?", "has the definition of litres brewed changed?",
                               "did litres_brewed change?", "were there any changes to litres_brewed?"])
def test_has_it_changed_reads_the_recorded_ingests(brewery, q):
    env = _ask(brewery, q)
    assert env.behavior.value == "answer" and env.intent == "compare", (env.behavior, env.verdict)
    assert env.verdict.startswith("Yes: Litres brewed was changed in the catalog at ingest 2"), env.verdict
    assert "sum(litres)" in env.verdict and "sum(litres - spilled_litres)" in env.verdict
    assert headline(env).startswith("Yes: Litres brewed changed at ingest 2"), headline(env)
    before, after = env.comparison.left, env.comparison.right
    assert before.description == "Litres of beer brewed, before losses."  # each revision's own description
    assert after.description == "Litres of beer brewed, net of spills."


def test_what_no_ingest_changed_is_still_no(brewery):
    env = _ask(brewery, "has fct_brews changed?")
    assert not env.verdict.startswith("Yes"), env.verdict


def test_a_single_ingest_has_no_recorded_change(tmp_path):
    db = tmp_path / "one.duckdb"
    _ingest(db, _write(tmp_path / "first", FIRST))
    env = _ask(Store(db), "has litres_brewed changed?")
    assert not env.verdict.startswith("Yes"), env.verdict


def test_ingest_and_answers_name_the_same_revision(tmp_path):
    folder = _write(tmp_path / "first", FIRST)
    overlay = tmp_path / "o.yml"
    overlay.write_text(yaml.safe_dump({"roles": ["brewer", "accounts"], "defaults": {"acl": ["brewer", "accounts"]},
                                       "objects": {"model:fct_brews": {"acl": ["accounts"]}}}))
    db = tmp_path / "c.duckdb"
    r = cli("ingest", "--dbt", str(folder), "--overlay", str(overlay), "--db", str(db))
    assert r.returncode == 0, r.stderr
    named = dict(re.findall(r"(\w+) ([0-9a-f]{16})", r.stdout.split("answers name it per role as:")[1]))
    for role in ("brewer", "accounts"):
        out = json.loads(cli("ask", "--db", str(db), "--role", role, "--json", "what is litres_brewed?").stdout)
        assert out["catalog_revision"] == named[role]
        assert f"catalog: {named[role]}" in render_text(_ask_role(db, role))
    assert named["brewer"] != named["accounts"]  # each role's own: an edit the brewer may not see leaves theirs


def _ask_role(db, role):
    return ask(Store(db), Question(role=role, text="what is litres_brewed?", at=AT))


def test_an_earlier_version_s_description_is_its_own(tmp_path):
    """The overlay's history of a dbt metric: v1 says what the overlay says of it, never dbt's description of v2."""
    overlay = tmp_path / "o.yml"
    overlay.write_text(yaml.safe_dump({"objects": {"metric:litres_brewed": {
        "version": "2", "valid_from": "2027-01-01",
        "history": [{"version": "1", "valid_from": "2025-01-01", "valid_through": "2026-12-31", "formula": "sum(wort_litres)",
                     "text": "Until 2026 litres were measured as wort, before fermentation."},
                    {"version": "0", "valid_from": "2024-01-01", "valid_through": "2024-12-31",
                     "description": "Litres from the old brewhouse log."}]}}}))
    db = tmp_path / "h.duckdb"
    catalog, _ = read_inputs(db, dbt=_write(tmp_path / "second", SECOND), overlay=overlay)
    write_catalog(catalog, db)
    store = Store(db)
    role = store.roles()[0].name
    old = ask(store, Question(role=role, text="what did litres_brewed mean in 2026?", at=AT))
    (v1,) = [s for s in old.selected if s.evidence_id.endswith(".v1")]
    assert v1.description is None and "net of spills" not in old.model_dump_json() + render_text(old)
    oldest = ask(store, Question(role=role, text="what did litres_brewed mean in 2024?", at=AT))
    assert [s.description for s in oldest.selected if s.evidence_id.endswith(".v0")] == ["Litres from the old brewhouse log."]
