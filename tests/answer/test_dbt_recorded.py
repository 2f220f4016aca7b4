"""What dbt recorded of a model, asked in plain words (issue 46 item 2): its tags and meta, whether its tests passed in
the last run and which failed, when it last ran and how long it took. On a bike-rental company's project written by
scripts/gen_dbt_project.py's `write_target` (tags, meta, materializations, a disabled model, a contract, tests with
results in run_results.json), and the same project without run_results: then no answer ever says the tests pass.
A hidden model's results read as a model never written.
"""
from datetime import datetime, timezone

import pytest
from dbt_project import gen, ingest_target

from core.answer.ask import Question, ask
from core.catalog.store import Store
from core.explain.render import render_text

AT = datetime(2027, 5, 3, 9, tzinfo=timezone.utc)
P = "spoke_rentals"
RUN = "2027-05-02T04:10:00Z"
SPEC = {
    "project": P, "generated_at": "2027-05-02T04:00:00Z", "run_at": RUN,
    "sources": [{"source": "fleet_db", "name": "bike_docks", "columns": ["dock_id"], "loaded_at_field": "_synced"}],
    "models": [
        {"name": "ride_sessions", "description": "One row per bike ride.", "columns": ["ride_id", "rider_id", "minutes"],
         "depends_on": ["source:fleet_db.bike_docks"], "tags": ["core", "hourly"], "materialized": "incremental",
         "meta": {"owner": "Mobility Data", "contains_pii": True, "update_frequency": "hourly"},
         "run": {"status": "success", "seconds": 42.5},
         "tests": [{"name": "unique", "column": "ride_id", "status": "pass"},
                   {"name": "not_null", "column": "rider_id", "status": "fail", "failures": 17},
                   {"name": "accepted_range", "column": "minutes", "status": "warn", "severity": "warn",
                    "failures": 3}]},
        {"name": "dock_utilization", "description": "Share of the day each dock holds a bike.",
         "columns": ["dock_id", "utilization"], "depends_on": ["model:ride_sessions"], "materialized": "table",
         "tags": ["finance"], "access": "public", "contract": True, "meta": {"contains_pii": False},
         "run": {"status": "success", "seconds": 3.25},
         "tests": [{"name": "unique", "column": "dock_id", "status": "pass"},
                   {"name": "not_null", "column": "utilization", "status": "pass"}]},
        {"name": "legacy_tariffs", "description": "Tariffs before 2024.", "columns": ["tariff_id"],
         "depends_on": ["source:fleet_db.bike_docks"], "enabled": False},
        {"name": "rider_payments", "description": "Payments per rider.", "columns": ["rider_id", "paid"],
         "depends_on": ["model:ride_sessions"], "materialized": "view", "tags": ["finance"],
         "run": {"status": "error", "seconds": 0.4, "message": "Binder Error: column paid_eur not found"},
         "tests": [{"name": "not_null", "column": "rider_id", "status": "skipped"}]},
    ],
}


def _store(tmp, name, results=True):
    folder = gen.write_target(SPEC, tmp / name)
    if not results:
        (folder / "run_results.json").unlink()
    return Store(ingest_target(tmp, folder, {"roles": ["ops", "finance"], "defaults": {"acl": ["ops", "finance"]},
                                             "objects": {"model:rider_payments": {"acl": ["finance"]}}}, name)[1])


@pytest.fixture(scope="module")
def spoke(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("spoke")
    return _store(tmp, "run"), _store(tmp, "bare", results=False)


def _ask(store, text, role="ops"):
    return ask(store, Question(role=role, text=text, at=AT))


@pytest.mark.parametrize("q", ["did the tests on ride_sessions pass?", "are ride_sessions' tests passing?",
                               "which tests failed on ride_sessions?", "ride_sessions test results",
                               "did any data tests fail for ride sessions in the last run?"])
def test_whether_a_models_tests_passed_and_which_failed(spoke, q):
    env = _ask(spoke[0], q)
    assert env.intent == "test_results" and env.entity_id == "model.ride_sessions", (env.intent, env.verdict)
    assert "1 of 3 data tests on ride_sessions failed in the last recorded run (2027-05-02 04:10 UTC)" in env.verdict
    assert "not_null on rider_id (fail, 17 failing rows)" in env.verdict
    assert "Warned: accepted_range on minutes (warn, 3 failing rows)" in env.verdict
    assert "Passed: unique on ride_id" in env.verdict
    assert env.verdict.startswith("No: ") == q.startswith(("did", "are"))
    results = {t.name: t.result.status for t in env.table_facts.tests}
    assert _ask(spoke[0], "which tests run on ride_sessions?").intent == "tests"  # what runs, not how it went
    assert results == {"unique": "pass", "not_null": "fail", "accepted_range": "warn"}


def test_all_passed_is_yes_and_no_results_is_never_yes(spoke):
    env = _ask(spoke[0], "did dock_utilization's tests pass?")
    assert env.verdict.startswith("Yes: all 2 data tests on dock_utilization passed in the last recorded run"), env.verdict
    for q in ("did dock_utilization's tests pass?", "are the tests on ride_sessions green?"):
        bare = _ask(spoke[1], q)
        assert bare.intent == "test_results" and bare.verdict.startswith("Not known: no test results are recorded")
        assert "Yes" not in bare.verdict and "passed" not in render_text(bare).lower()


def test_when_a_model_last_ran_and_how_long_it_took(spoke):
    for q in ("when did ride_sessions last run?", "how long did ride_sessions take to build?",
              "ride_sessions last run"):
        env = _ask(spoke[0], q)
        assert env.intent == "last_run", (q, env.intent, env.verdict)
        assert env.verdict == ("ride_sessions last ran in the recorded dbt run at 2027-05-02 04:10 UTC: success, "
                               "taking 42.5 s."), env.verdict
    assert "is disabled in dbt" in _ask(spoke[0], "when did legacy_tariffs last run?").verdict
    failed = _ask(spoke[0], "when was rider_payments last built?", role="finance")
    assert "error, taking 0.4 s" in failed.verdict and "column paid_eur not found" in failed.verdict
    assert _ask(spoke[1], "when did ride_sessions last run?").verdict.startswith("No run of ride_sessions is recorded")


def test_tags_meta_and_configuration(spoke):
    env = _ask(spoke[0], "what are the tags on ride_sessions?")
    assert env.intent == "properties" and env.entity_id == "model.ride_sessions"
    assert "tags: core, hourly" in env.verdict and "contains_pii = true" in env.verdict
    assert "owner = Mobility Data" in env.verdict and "materialized as incremental" in env.verdict
    meta = _ask(spoke[0], "what meta does dock_utilization have?")
    assert "contains_pii = false" in meta.verdict and "contract enforced" in meta.verdict
    assert "access public" in meta.verdict
    assert _ask(spoke[0], "is ride_sessions incremental?").verdict.startswith("Yes: ride_sessions is materialized as "
                                                                              "incremental")
    assert _ask(spoke[0], "is dock_utilization incremental?").verdict.startswith("No: dock_utilization is "
                                                                                 "materialized as table")
    assert _ask(spoke[0], "does ride_sessions contain PII?").verdict.startswith("Yes: ride_sessions's meta says "
                                                                                "contains_pii = true")
    assert _ask(spoke[0], "is dock_utilization PII?").verdict.startswith("No:")
    assert _ask(spoke[0], "is legacy_tariffs disabled?").verdict.startswith("Yes: legacy_tariffs is disabled")


@pytest.mark.parametrize("q, starts", [
    ("does dock_utilization have a contract?", "Yes: dock_utilization's contract is enforced."),
    ("is dock_utilization contracted?", "Yes: dock_utilization's contract is enforced."),
    ("does ride_sessions have a contract?", "No: no contract is recorded for ride_sessions."),
    ("does ride_sessions have tags?", "Yes: ride_sessions has tags: core, hourly."),
    ("is legacy_tariffs tagged?", "No: no tags are recorded for legacy_tariffs.")])
def test_a_contract_or_tags_asked_yes_or_no_is_answered_yes_or_no(spoke, q, starts):
    assert _ask(spoke[0], q).verdict.startswith(starts), (q, _ask(spoke[0], q).verdict)


def test_every_property_named_is_answered_even_when_not_recorded(spoke):
    """A stranger asked "what tags and contract does X have?" and read tags and meta only: silence about the contract
    reads as if it had not been asked."""
    env = _ask(spoke[0], "what tags and contract does ride_sessions have?")
    assert "tags: core, hourly" in env.verdict and "no contract recorded" in env.verdict, env.verdict
    assert "no contract" not in _ask(spoke[0], "what tags and contract does dock_utilization have?").verdict
    grouped = _ask(spoke[0], "what group and access level is rider_payments in?", role="finance")
    assert "no group recorded" in grouped.verdict and "no access level recorded" in grouped.verdict, grouped.verdict
    both = _ask(spoke[0], "what are the tags and the tests on dock_utilization?")
    assert "tags: finance" in both.verdict
    assert "2 data tests run on dock_utilization: unique on dock_id; not_null on utilization" in both.verdict, \
        both.verdict


def test_a_hidden_models_results_read_as_a_model_never_written(spoke):
    for q in ("did the tests on rider_payments pass?", "when did rider_payments last run?",
              "what are rider_payments' tags?"):
        hidden = _ask(spoke[0], q)
        made_up = _ask(spoke[0], q.replace("rider_payments", "rider_refunds"))
        assert hidden.behavior.value == "not_found_or_not_authorized", hidden.verdict
        assert (made_up.behavior, made_up.verdict) == (hidden.behavior, hidden.verdict)
        assert "rider_payments" not in render_text(hidden)


def test_a_table_no_dbt_project_described_is_not_said_to_be_in_dbt(tmp_path_factory, embedder):
    """A model written by hand into the catalog (a warehouse registry's) has what the catalog records, not dbt's."""
    from conftest import asker
    model = {"evidence_id": "model.kiln_batches.v1", "entity_id": "model.kiln_batches", "kind": "model",
             "title": "kiln_batches", "version": "1", "authority": "authoritative", "lifecycle": "current",
             "authority_class": "warehouse_registry", "valid_from": "2026-01-01", "acl": ["potter"],
             "text": "kiln_batches: one row per firing.", "model": {"relation": "ceramics.kiln_batches",
                                                                    "tags": ["daily"], "columns": ["batch_id"]}}
    said = {**model, "evidence_id": "model.glaze_lots.v1", "entity_id": "model.glaze_lots", "title": "glaze_lots",
            "text": "Glaze lots by kiln. Contracted model: its columns are fixed.",
            "model": {"relation": "ceramics.glaze_lots", "columns": ["lot_id"]}}
    ask_kiln = asker(tmp_path_factory, embedder, "kiln", ["potter"], [model, said], AT)
    env = ask_kiln("what tags and contract does kiln_batches have?", "potter")
    assert env.intent == "properties", (env.intent, env.verdict)
    assert env.verdict.startswith("kiln_batches as the catalog records it (not from dbt): tags: daily"), env.verdict
    assert "in dbt" not in env.verdict and "no contract recorded" in env.verdict
    # A contract the table's own description speaks of, not recorded as a property, is quoted, never denied.
    quoted = ask_kiln("does glaze_lots have a contract?", "potter")
    assert quoted.verdict.startswith("Not recorded: no contract is recorded in glaze_lots's properties, though its "
                                     "description says \u201cContracted model: its columns are fixed.\u201d"), quoted.verdict
    assert ask_kiln("does kiln_batches have a contract?", "potter").verdict.startswith("No: no contract is recorded")
