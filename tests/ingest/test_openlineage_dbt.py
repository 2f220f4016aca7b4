"""A real producer (issue 46 items 6 and 2): openlineage-dbt's `dbt-ol build --consume-structured-logs` over a small
dbt-duckdb project this test writes (a pottery studio's kilns), with openlineage-python's file transport in both
modes: `append: true` (every event, one per line, in one file) and the default (one file per event). Its events
and its target/ are then ingested as a user would.

What must hold: every event of the JSON Lines file is read, whatever the file is called; `.jsonl`/`.ndjson` in a
folder are read and any other file is named as not read; a dbt test's audit relation is never a model or a
downstream table; the ingest summary counts events, jobs, edges and what was skipped and why; and the tags, meta,
materialization, contract, access, disabled models and each test's recorded result come through from the
artifacts of the same run.

One module-scoped fixture runs dbt twice (one per transport mode); every test reads its output.
"""
import json
import os
import shutil
import subprocess
import textwrap

import pytest
from conftest import cli

from core.catalog.store import write_catalog
from core.ingest.ingest import read_inputs
from core.ingest.openlineage import read_openlineage
from core.settings.config import Settings

P = "kiln_studio"
MODELS = {
    "stg_firings.sql": "select firing_id, kiln, pieces from {{ ref('raw_firings') }}",
    "kiln_output.sql": "{{ config(materialized='table', tags=['daily', 'kilns']) }}\n"
                       "select kiln, sum(pieces) as pieces_fired from {{ ref('stg_firings') }} group by kiln",
    "glaze_batches.sql": "{{ config(materialized='incremental', unique_key='batch_id', on_schema_change='fail') }}\n"
                         "select cast(batch_id as integer) as batch_id, cast(glaze as varchar) as glaze, "
                         "cast(grams as integer) as grams from {{ ref('raw_glazes') }}",
    "retired_kilns.sql": "{{ config(enabled=false) }}\nselect 1 as kiln",
}
SCHEMA = """
version: 2
groups:
  - name: studio_ops
    owner: {name: Studio Ops, email: ops@kiln.test}
models:
  - name: stg_firings
    description: One row per firing of a kiln.
    config: {tags: [staging], meta: {owner: Mara Quist, contains_pii: false, update_frequency: hourly}}
    columns:
      - name: firing_id
        data_tests: [unique, not_null]
      - name: pieces
        data_tests: [not_null]
  - name: kiln_output
    description: Pieces fired per kiln.
    access: public
    group: studio_ops
    config: {meta: {update_frequency: daily}}
    columns:
      - name: kiln
        data_tests: [unique]
  - name: glaze_batches
    description: Glaze batches mixed, one row per batch.
    config:
      contract: {enforced: true}
      meta: {contains_pii: true}
    columns:
      - {name: batch_id, data_type: integer, data_tests: [unique]}
      - {name: glaze, data_type: varchar,
         data_tests: [{accepted_values: {arguments: {values: [celadon, tenmoku]}, config: {severity: warn}}}]}
      - {name: grams, data_type: integer}
"""
SEEDS = {"raw_firings.csv": "firing_id,kiln,pieces\n1,north,10\n2,south,12\n3,north,\n",
         "raw_glazes.csv": "batch_id,glaze,grams\n1,celadon,500\n2,shino,750\n"}


def _dbt_ol(project, events_config: str, env: dict) -> subprocess.CompletedProcess:
    (project / "openlineage.yml").write_text(events_config)
    return subprocess.run(["dbt-ol", "build", "--consume-structured-logs"], cwd=project, capture_output=True,
                          text=True, timeout=300, env={**env, "OPENLINEAGE_CONFIG": str(project / "openlineage.yml")})


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    venv = Settings.from_env().dbt_venv
    if not os.access(venv / "bin" / "dbt-ol", os.X_OK):
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"{venv}/bin/dbt-ol missing under CI: scripts/setup.sh installs requirements-dbt.txt")
        pytest.skip(f"openlineage-dbt not installed in {venv} (bash scripts/setup.sh installs requirements-dbt.txt)")
    root = tmp_path_factory.mktemp("kiln")
    project = root / "project"
    (project / "models").mkdir(parents=True)
    (project / "seeds").mkdir()
    (project / "dbt_project.yml").write_text(f"name: {P}\nversion: '1.0'\nprofile: kiln\n")
    (project / "profiles.yml").write_text(textwrap.dedent(f"""
        kiln:
          target: dev
          outputs:
            dev: {{type: duckdb, path: {root / 'kiln.duckdb'}, threads: 1}}
        """))
    for name, sql in MODELS.items():
        (project / "models" / name).write_text(sql)
    (project / "models" / "schema.yml").write_text(SCHEMA)
    for name, rows in SEEDS.items():
        (project / "seeds" / name).write_text(rows)
    env = {**os.environ, "PATH": f"{venv / 'bin'}:{os.environ['PATH']}", "DBT_PROFILES_DIR": str(project),
           "DBT_SEND_ANONYMOUS_USAGE_STATS": "false", "OPENLINEAGE_NAMESPACE": "kiln"}
    # append: true, to a file named .json as a user may well name it: JSON Lines all the same.
    appended = root / "appended"
    appended.mkdir()
    first = _dbt_ol(project, f"transport: {{type: file, log_file_path: {appended / 'lineage.json'}, append: true}}\n",
                    env)
    assert first.returncode == 1, first.stdout[-3000:] + first.stderr[-3000:]  # one test fails, by design
    # the default: one file per event, `lineage.json-<timestamp>.json`
    separate = root / "separate"
    separate.mkdir()
    second = _dbt_ol(project, f"transport: {{type: file, log_file_path: {separate / 'lineage'}}}\n", env)
    assert second.returncode == 1, second.stdout[-3000:] + second.stderr[-3000:]
    return {"target": project / "target", "appended": appended, "separate": separate, "root": root}


def test_every_event_of_an_appended_file_is_read(run):
    file = run["appended"] / "lineage.json"
    lines = [ln for ln in file.read_text().splitlines() if ln.strip()]
    assert len(lines) > 20 and all(json.loads(ln)["eventType"] for ln in lines)
    read = read_openlineage(file)
    assert read.events == len(lines) and read.skipped == []
    one_per_file = read_openlineage(run["separate"])
    assert one_per_file.events == len(list(run["separate"].iterdir())) and one_per_file.skipped == []
    # Both modes report the same jobs and edges of the same build.
    assert {e["evidence_id"] for e in read.evidence} == {e["evidence_id"] for e in one_per_file.evidence}
    jobs = sorted(e["title"] for e in read.evidence if e["kind"] == "lineage")
    assert jobs == [f"OpenLineage job model.{P}.{m}" for m in ("glaze_batches", "kiln_output", "stg_firings")]


def test_jsonl_and_ndjson_in_a_folder_are_read_and_other_files_named(run, tmp_path):
    lines = (run["appended"] / "lineage.json").read_text().splitlines()
    half = len(lines) // 2
    (tmp_path / "morning.jsonl").write_text("\n".join(lines[:half]) + "\n")
    # a torn line, as a crashed writer leaves one: that line is skipped, named by its number; the rest load
    (tmp_path / "evening.ndjson").write_text("\n".join(lines[half:]) + '\n{"eventType": "COMPLETE", "job"\n')
    (tmp_path / "notes.txt").write_text("where the events came from")
    read = read_openlineage(tmp_path)
    assert read.events == len(lines)
    skipped = {s.file.rsplit("/", 1)[-1]: s.reason for s in read.skipped}
    assert list(skipped) == ["evening.ndjson line " + str(len(lines) - half + 1)]
    assert next(iter(skipped.values())).startswith("not JSON")
    assert [(s.file.rsplit("/", 1)[-1], s.reason.split(":")[0]) for s in read.not_read] == [("notes.txt", "not read")]
    summary = read.summary()
    assert f"{len(lines)} event(s) read from 2 file(s)" in summary
    assert "1 skipped (1 not JSON)" in summary and "1 other file(s) in the folder not read" in summary


def test_a_dbt_test_is_a_test_never_a_table(run, tmp_path):
    catalog, changes = read_inputs(tmp_path / "k.duckdb", dbt=run["target"], openlineage=run["appended"])
    text = json.dumps([e.model_dump(mode="json") for e in catalog.evidence])
    assert "dbt_test__audit" not in text and not any(e.evidence_id.startswith("dataset:") for e in catalog.evidence)
    # The jobs' edges join the manifest's nodes: seed -> staging -> mart, never a test's audit table.
    edges = {(d.upstream, d.downstream) for e in catalog.evidence if e.authority_class == "openlineage_job"
             for d in e.edges}
    assert edges == {(f"seed.{P}.raw_firings", f"model.{P}.stg_firings"),
                     (f"model.{P}.stg_firings", f"model.{P}.kiln_output"),
                     (f"seed.{P}.raw_glazes", f"model.{P}.glaze_batches")}
    ol = " ".join(changes.read)
    assert "3 job(s) with datasets and 6 dbt test job(s), whose audit tables are not models" in ol
    assert "3 table edge(s), 0 column edge(s)" in ol


def test_the_cli_says_what_it_read(run, tmp_path):
    out = cli("ingest", "--dbt", str(run["target"]), "--openlineage", str(run["separate"]),
              "--db", str(tmp_path / "k.duckdb"))
    assert out.returncode == 0, out.stderr
    n = len(list(run["separate"].iterdir()))
    assert f"OpenLineage: {n} event(s) read from {n} file(s): 3 job(s)" in out.stdout


def test_what_dbt_recorded_of_each_model_and_test(run, tmp_path):
    catalog, _ = read_inputs(tmp_path / "k.duckdb", dbt=run["target"])
    write_catalog(catalog, tmp_path / "k.duckdb")  # the facts survive the store
    by = {e.evidence_id: e.model for e in catalog.evidence if e.model}
    stg, out, glaze = (by[f"model.{P}.{m}"] for m in ("stg_firings", "kiln_output", "glaze_batches"))
    assert stg.tags == ["staging"] and stg.meta == {"owner": "Mara Quist", "contains_pii": False,
                                                    "update_frequency": "hourly"}
    assert stg.materialized == "view" and out.materialized == "table" and glaze.materialized == "incremental"
    assert out.tags == ["daily", "kilns"] and out.access == "public" and out.group == "studio_ops"
    assert glaze.contract is True and stg.contract is None and glaze.meta == {"contains_pii": True}
    retired = by[f"model.{P}.retired_kilns"]
    assert retired.enabled is False and retired.last_run is None
    # The run's own outcome: the staging model built, the mart after it was skipped (a test upstream failed).
    assert stg.last_run.status == "success" and stg.last_run.execution_time_s is not None
    assert out.last_run.status == "skipped"
    results = {(t.name, t.column): t.result.status for t in stg.tests}
    assert results == {("unique", "firing_id"): "pass", ("not_null", "firing_id"): "pass",
                       ("not_null", "pieces"): "fail"}
    failed = next(t for t in stg.tests if t.result.status == "fail")
    assert failed.result.failures == 1 and failed.result.completed_at is not None
    warned = next(t for t in glaze.tests if t.name == "accepted_values")
    assert (warned.severity, warned.result.status) == ("warn", "warn")
    # Without run_results nothing is recorded: no test has a result, no model a last run.
    bare = tmp_path / "bare"
    shutil.copytree(run["target"], bare)
    (bare / "run_results.json").unlink()
    bare_catalog, _ = read_inputs(tmp_path / "b.duckdb", dbt=bare)
    assert all(t.result is None for e in bare_catalog.evidence if e.model for t in e.model.tests)
    assert all(e.model.last_run is None for e in bare_catalog.evidence if e.model)
