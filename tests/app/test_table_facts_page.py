"""The Ask page draws a table's tests and columns (issue 39 item 5) as tables, the one asked first, on a bakery's
catalog written in the native format (`model.tests`, `model.column_details`): a test reading a model the role may not
see is not on the page."""
import os

import pytest
import yaml
from conftest import ROOT, build
from streamlit.testing.v1 import AppTest

ROLES = ["baker", "owner"]


def _obj(eid, **kw):
    return {"evidence_id": eid, "entity_id": eid.rsplit(".", 1)[0], "kind": "model", "title": eid.split(".")[1],
            "version": "1", "authority": "authoritative", "lifecycle": "current", "valid_from": "2026-01-01", **kw}


EVIDENCE = [
    _obj("model.oven_batches.v1", acl=ROLES, text="One row per batch baked.", model={
        "relation": "bakery.oven_batches", "columns": ["batch_id", "proof_minutes"],
        "column_details": [{"name": "batch_id", "type": "VARCHAR", "description": "Key of the batch."},
                           {"name": "proof_minutes", "type": "INTEGER", "description": "Minutes the dough proved."}],
        "tests": [{"name": "unique", "column": "batch_id", "models": ["model.oven_batches.v1"]},
                  {"name": "relationships", "column": "batch_id",
                   "models": ["model.oven_batches.v1", "model.baker_wages.v1"]}]}),
    _obj("model.baker_wages.v1", acl=["owner"], text="Wages per baker.", model={"relation": "bakery.baker_wages"}),
]


@pytest.fixture(scope="module", autouse=True)
def bakery_db(tmp_path_factory, embedder):
    tmp = tmp_path_factory.mktemp("bakery")
    (tmp / "catalog.yaml").write_text(yaml.safe_dump({"roles": ROLES, "evidence": EVIDENCE}))
    store, _ = build(tmp, "bakery", tmp / "catalog.yaml", embedder)
    store.close()
    old = os.environ.get("ASOF_DB")
    os.environ["ASOF_DB"] = str(store.path)
    yield
    if old is None:
        os.environ.pop("ASOF_DB", None)
    else:
        os.environ["ASOF_DB"] = old


def _ask(question, role="baker"):
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.session_state["role"] = role
    at.run()
    at.text_input(key="question").input(question)
    at.button(key="ask").click().run()
    assert not at.exception, at.exception
    return at


@pytest.mark.parametrize("question, first", [("which tests run on oven_batches?", "Data tests (1)"),
                                             ("what columns does oven_batches have?", "Columns (2)")])
def test_tests_and_columns_are_tables_the_asked_one_first(question, first):
    at = _ask(question)
    heads = [h.value for h in at.subheader]
    assert heads[:2] == [first, "Columns (2)" if first.startswith("Data") else "Data tests (1)"], heads
    shown = "\n".join(t.value.to_string() for t in at.table).replace("\\", "")  # cells are Markdown-escaped
    assert "proof_minutes" in shown and "Minutes the dough proved." in shown and "unique" in shown
    assert "relationships" not in shown and "baker_wages" not in shown  # reads the owner's wages model


def test_the_owner_sees_the_test_that_reads_wages():
    at = _ask("which tests run on oven_batches?", role="owner")
    assert [h.value for h in at.subheader][0] == "Data tests (2)"
