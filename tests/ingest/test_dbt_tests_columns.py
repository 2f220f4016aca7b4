"""dbt tests and columns (issue 39 item 5), on a veterinary clinic's dbt project the test writes: which tests run on
a model, whether a column is tested, what columns a model has, which metrics are computed from a model. A test or
column is visible only where its model is: a test that reads a hidden model is left out whole, and a hidden model's
tests and columns read as a model never written."""
import importlib.util
import json
from datetime import datetime, timezone

import pytest
import yaml
from conftest import ROOT

from core.answer.ask import Question, ask
from core.catalog.store import Store, write_catalog
from core.explain.render import render_text
from core.ingest.ingest import read_inputs
from core.ingest.load import CatalogError

AT = datetime(2027, 3, 14, 9, tzinfo=timezone.utc)
_spec = importlib.util.spec_from_file_location("gen_dbt_project", ROOT / "scripts" / "gen_dbt_project.py")
gen = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(gen)

P = "paws_clinic"
HIDDEN = "vet_bonuses"
SPEC = {
    "project": P,
    "generated_at": "2027-03-13T05:00:00Z",
    "sources": [{"source": "practice_db", "name": "appointments", "columns": ["appointment_id"],
                 "loaded_at_field": "_synced_at"}],
    "models": [
        {"name": "consultations", "description": "One row per consultation with a vet.",
         "columns": [{"name": "consultation_id", "description": "Key of the consultation."},
                     {"name": "pet_id", "description": "The animal seen."},
                     {"name": "vet_id", "description": "The vet who saw it."},
                     {"name": "consult_kind", "description": "checkup, surgery or emergency."}],
         "depends_on": ["source:practice_db.appointments"]},
        {"name": "treatment_bills", "description": "Bills for treatments, one row per bill.",
         "columns": [{"name": "bill_id", "description": "Key of the bill."},
                     {"name": "consultation_id", "description": "The consultation billed."},
                     {"name": "amount_owed", "description": "What the pet's owner owes, in EUR."}],
         "depends_on": ["model:consultations"]},
        {"name": HIDDEN, "description": "Bonus owed to each vet per quarter.",
         "columns": [{"name": "vet_id"}, {"name": "bonus_eur"}], "depends_on": ["model:treatment_bills"]},
    ],
    "metrics": [
        {"name": "consultation_count", "label": "Consultations", "model": "consultations", "measure": "consults",
         "expr": "consultation_id"},
        {"name": "billed_eur", "label": "Billed amount", "model": "treatment_bills", "measure": "billed",
         "agg": "sum", "expr": "amount_owed"},
        {"name": "bonus_pool", "label": "Bonus pool", "model": HIDDEN, "measure": "bonuses", "agg": "sum",
         "expr": "bonus_eur"},
    ],
}
TYPES = {"consultations": {"consultation_id": "VARCHAR", "pet_id": "VARCHAR", "vet_id": "VARCHAR",
                           "consult_kind": "VARCHAR", "consulted_at": "TIMESTAMP"},
         "treatment_bills": {"bill_id": "VARCHAR", "consultation_id": "VARCHAR", "amount_owed": "DECIMAL(12,2)"},
         HIDDEN: {"vet_id": "VARCHAR", "bonus_eur": "DECIMAL(12,2)"}}


def _test(name, on, column=None, reads=(), singular=False):
    node = {"resource_type": "test", "name": name, "original_file_path": f"tests/{name}.sql",
            "depends_on": {"nodes": [f"model.{P}.{m}" for m in (on, *reads)]}}
    if not singular:
        node.update(test_metadata={"name": name.split("__")[0], "kwargs": {"column_name": column}},
                    column_name=column, attached_node=f"model.{P}.{on}")
    return f"test.{P}.{name}.x1", node


TESTS = dict([
    _test("unique__consultation_id", "consultations", "consultation_id"),
    _test("not_null__consultation_id", "consultations", "consultation_id"),
    _test("accepted_values__consult_kind", "consultations", "consult_kind"),
    _test("relationships__vet_id", "consultations", "vet_id", reads=[HIDDEN]),  # reads the hidden model
    _test("relationships__consultation_id", "treatment_bills", "consultation_id", reads=["consultations"]),
    _test("assert_bills_are_positive", "treatment_bills", singular=True),
    _test("assert_bonuses_match_bills", "treatment_bills", reads=[HIDDEN], singular=True),
    _test("not_null__bonus_eur", HIDDEN, "bonus_eur"),
])


def _write(tmp, name, models=None, tests=TESTS):
    spec = {**SPEC, "models": [m for m in SPEC["models"] if models is None or m["name"] in models]}
    spec["metrics"] = [m for m in SPEC["metrics"] if m["model"] in {x["name"] for x in spec["models"]}]
    folder = gen.write_target(spec, tmp / name)
    manifest = json.loads((folder / "manifest.json").read_text())
    kept = {k: v for k, v in tests.items() if all(d in manifest["nodes"] for d in v["depends_on"]["nodes"])}
    manifest["nodes"].update(kept)
    (folder / "manifest.json").write_text(json.dumps(manifest))
    catalog = {"nodes": {f"model.{P}.{m}": {"columns": {c: {"type": t, "name": c} for c, t in cols.items()}}
                         for m, cols in TYPES.items() if f"model.{P}.{m}" in manifest["nodes"]}}
    (folder / "catalog.json").write_text(json.dumps(catalog))
    overlay = tmp / f"{name}.overlay.yml"
    hidden = {f"model:{HIDDEN}": {"acl": ["partners"]}, "metric:bonus_pool": {"acl": ["partners"]}}
    overlay.write_text(yaml.safe_dump({"roles": ["frontdesk", "partners"], "defaults": {"acl": ["frontdesk", "partners"]},
                                       "objects": hidden if models is None else {}}))
    return folder, overlay


def _store(tmp, name, **kw):
    folder, overlay = _write(tmp, name, **kw)
    db = tmp / f"{name}.duckdb"
    catalog, _ = read_inputs(db, dbt=folder, overlay=overlay)
    write_catalog(catalog, db)
    return Store(db)


@pytest.fixture(scope="module")
def clinic(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("clinic")
    absent = _store(tmp, "absent", models={"consultations", "treatment_bills"},
                    tests={k: v for k, v in TESTS.items() if HIDDEN not in json.dumps(v)})
    return _store(tmp, "full"), absent


def _ask(store, text, role="frontdesk"):
    return ask(store, Question(role=role, text=text, at=AT))


def _shown(env):
    return env.model_dump_json() + render_text(env)


@pytest.mark.parametrize("q", ["which tests run on consultations?", "what tests does the consultations model have?",
                               "how is consultations tested?", "list the dbt tests on consultations",
                               "are there any data tests on consultations?", "what data tests are defined on consultations"])
def test_which_tests_run_on_a_model(clinic, q):
    env = _ask(clinic[0], q)
    assert env.behavior.value == "answer" and env.intent == "tests" and env.entity_id == "model.consultations"
    opening = "Yes: 3 data tests run on consultations" if q.startswith("are") else "3 data tests run on consultations"
    assert env.verdict.startswith(opening), env.verdict
    for said in ("unique", "not_null", "consultation_id", "accepted_values on consult_kind"):
        assert said in env.verdict
    # The relationships test to the hidden bonuses model is left out whole, not counted, not named.
    assert HIDDEN not in _shown(env) and "relationships" not in env.verdict


def test_a_role_that_sees_every_model_reads_every_test(clinic):
    env = _ask(clinic[0], "which tests run on consultations?", role="partners")
    assert env.verdict.startswith("4 data tests") and "relationships on vet_id" in env.verdict


def test_singular_tests_are_listed_on_the_models_they_read(clinic):
    env = _ask(clinic[0], "which tests run on treatment_bills?")
    assert "assert_bills_are_positive (on the whole table)" in env.verdict
    assert "relationships on consultation_id" in env.verdict
    assert "assert_bonuses_match_bills" not in _shown(env)  # it reads the hidden model
    partners = _ask(clinic[0], "which tests run on treatment_bills?", role="partners")
    assert "assert_bonuses_match_bills" in partners.verdict


@pytest.mark.parametrize("q, said", [
    ("is consult_kind tested?", "Yes: consult_kind of consultations is tested by accepted_values"),
    ("is the consultation_id column of consultations tested?", "Yes: consultation_id of consultations is tested by "
                                                               "unique and not_null"),
    ("does treatment_bills have a test on amount_owed?", "No: no data test you can see runs on amount_owed"),
    ("is amount_owed tested?", "No: no data test you can see runs on amount_owed of treatment_bills"),
])
def test_is_a_column_tested(clinic, q, said):
    env = _ask(clinic[0], q)
    assert env.behavior.value == "answer" and env.intent == "tests", (env.behavior, env.verdict)
    assert env.verdict.startswith(said), env.verdict


def test_a_column_of_a_hidden_model_reads_as_one_never_written(clinic):
    full, absent = clinic
    for q in ("is bonus_eur tested?", "which tests run on vet_bonuses?", "what columns does vet_bonuses have?"):
        env, never = _ask(full, q), _ask(absent, q)
        assert env.behavior.value == never.behavior.value == "not_found_or_not_authorized", (q, env.verdict)
        assert env.verdict == never.verdict and HIDDEN not in _shown(env) and "bonus_eur" not in _shown(env)
    assert _ask(full, "is bonus_eur tested?", role="partners").verdict.startswith("Yes: bonus_eur of vet_bonuses")


@pytest.mark.parametrize("q", ["what columns does treatment_bills have?", "list the columns of treatment_bills",
                               "which fields are in the treatment_bills table?", "what's the schema of treatment_bills?",
                               "show me the columns in treatment_bills and their types"])
def test_what_columns_a_model_has(clinic, q):
    env = _ask(clinic[0], q)
    assert env.behavior.value == "answer" and env.intent == "columns" and env.entity_id == "model.treatment_bills"
    assert env.verdict == ("treatment_bills has 3 columns: bill_id (VARCHAR), consultation_id (VARCHAR), "
                           "amount_owed (DECIMAL(12,2)).")
    described = {c.name: c.description for c in env.table_facts.columns}
    assert described["amount_owed"] == "What the pet's owner owes, in EUR."


def test_a_column_typed_only_by_the_warehouse_is_listed(clinic):
    env = _ask(clinic[0], "what type is consulted_at in consultations?")
    assert env.intent == "columns" and env.verdict == "consulted_at of consultations is TIMESTAMP."


@pytest.mark.parametrize("q", ["which metrics are computed from treatment_bills?", "what metrics are built on treatment_bills?",
                               "which metrics use treatment_bills?", "which metrics are calculated from treatment_bills?",
                               "what metrics are derived from treatment_bills", "which kpis are based on treatment_bills?"])
def test_which_metrics_are_computed_from_a_model(clinic, q):
    env = _ask(clinic[0], q)
    assert env.behavior.value == "answer" and env.intent == "downstream" and env.entity_id == "model.treatment_bills"
    assert [i.label for i in env.downstream.items if i.kind == "metric"] == ["Billed amount"]
    assert "Billed amount" in env.verdict and "Bonus pool" not in _shown(env) and HIDDEN not in _shown(env)


def test_what_a_metric_is_computed_from_is_still_its_lineage(clinic):
    env = _ask(clinic[0], "what model is billed_eur computed from?")
    assert env.intent is None and env.entity_id == "metric.billed_eur"


def test_a_wrongly_typed_test_names_file_object_and_field_and_writes_nothing(tmp_path):
    bad = dict(TESTS)
    key = next(iter(bad))
    bad[key] = {**bad[key], "test_metadata": "not_null"}
    folder, overlay = _write(tmp_path, "bad", tests=bad)
    with pytest.raises(CatalogError) as err:
        read_inputs(tmp_path / "bad.duckdb", dbt=folder, overlay=overlay)
    problem = err.value.problems[0]
    assert problem.file.endswith("manifest.json") and problem.evidence_id == key and problem.field == "test_metadata"
    assert not (tmp_path / "bad.duckdb").exists()


def test_a_metric_is_tested_through_the_model_it_reads(clinic):
    env = _ask(clinic[0], "which tests run on billed_eur?")
    assert env.intent == "tests" and env.entity_id == "metric.billed_eur"
    assert env.verdict.startswith("Billed amount is computed on treatment_bills: 2 data tests run on treatment_bills")
    assert HIDDEN not in _shown(env)


def test_is_a_table_tested_is_answered_yes_or_no(clinic, tmp_path):
    assert _ask(clinic[0], "is treatment_bills tested?").verdict.startswith("Yes: 2 data tests run on treatment_bills")
    assert _ask(clinic[0], "is billed_eur tested?").verdict.startswith("Yes: Billed amount is computed on treatment_bills")
    bare = _store(tmp_path, "bare", tests={})
    assert _ask(bare, "is consultations tested?").verdict == "No: no data tests you can see run on consultations."


@pytest.mark.parametrize("q", ["which columns feed billed_eur?", "what columns is billed_eur computed from?",
                               "what fields does the billed_eur metric use?"])
def test_columns_a_metric_is_made_from_are_its_lineage_not_a_column_list(clinic, q):
    env = _ask(clinic[0], q)
    assert env.intent != "columns" and env.table_facts is None and env.entity_id == "metric.billed_eur", env.verdict


@pytest.mark.parametrize("q", ["any test visits in consultations?", "are test pets excluded from consultations?",
                               "which test group does consultations use?", "what is the A/B test for consultations?"])
def test_test_data_and_experiments_are_not_data_tests(clinic, q):
    assert _ask(clinic[0], q).intent != "tests"


def test_a_model_with_oversized_column_descriptions_is_kept_cut_and_named(tmp_path, monkeypatch):
    """Issue 47 item 6: a model whose column description runs past the text limit used to refuse the whole ingest
    (the model dropped, and every metric and edge naming it with it). Now the model is kept, the text cut, and a
    warning names the model and the field."""
    from core.catalog.evidence import MAX_TEXT_CHARS
    models = [dict(m) for m in SPEC["models"]]
    models[0]["columns"] = [dict(c) for c in models[0]["columns"]]
    models[0]["columns"][1]["description"] = "The animal seen, by species and breed. " * 7000  # ~273k characters
    monkeypatch.setitem(SPEC, "models", models)
    folder, overlay = _write(tmp_path, "long")
    catalog, _ = read_inputs(tmp_path / "long.duckdb", dbt=folder, overlay=overlay)
    by_id = {e.evidence_id: e for e in catalog.evidence}
    model = by_id[f"model.{P}.consultations"]
    pet = next(c for c in model.model.column_details if c.name == "pet_id")
    assert pet.description.startswith("The animal seen") and len(pet.description) <= MAX_TEXT_CHARS
    assert "cut" in pet.description[-60:] and len(model.text) <= MAX_TEXT_CHARS
    assert f"model.{P}.consultations" in by_id[f"metric.{P}.consultation_count"].links["implemented_by"]
    said = [w for w in catalog.warnings if f"model.{P}.consultations" in w]
    assert any("model.column_details[1].description" in w and "kept, cut" in w for w in said), catalog.warnings
    write_catalog(catalog, tmp_path / "long.duckdb")
    env = ask(Store(tmp_path / "long.duckdb"), Question(role="frontdesk", text="which columns does consultations have?"))
    assert "pet_id" in render_text(env)
