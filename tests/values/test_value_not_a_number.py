"""A metric whose SQL returns something that is not a number (issue 40, item 6): the answer still gives the
definition and says the value could not be computed, on a harbour catalog this file builds; before, float() of
the text ended the CLI with "error: could not convert string to float" and exit 2, audited as a refused question."""
from __future__ import annotations

import json
from datetime import date

import duckdb
import pytest
import yaml
from conftest import cli

from core.answer.ask import Question, ask
from core.catalog.store import Store, write_catalog
from core.compute.engine import DuckDBEngine
from core.ingest.load import load_catalog

ROLE = "harbourmaster"


def _catalog(expression: str) -> dict:
    common = {"authority": "authoritative", "lifecycle": "current", "valid_from": "2024-01-01", "acl": [ROLE],
              "version": "1"}
    return {"roles": [{"name": ROLE, "description": "Harbour operations"}], "evidence": [
        {**common, "evidence_id": "metric.berth_use.v1", "entity_id": "metric.berth_use", "kind": "metric_definition",
         "title": "Berth use v1", "authority_class": "semantic_registry", "owner": "Harbour Ops",
         "links": {"implemented_by": ["model.fct_berths.v1"]},
         "metric": {"sql": f"SELECT {expression} AS value FROM harbour.fct_berths WHERE day >= $start AND day < $end",
                    "formula": "berths occupied at the busiest hour", "unit": "berths"},
         "text": "Berth use counts the berths occupied at the busiest hour of the day."},
        {**common, "evidence_id": "model.fct_berths.v1", "entity_id": "model.fct_berths", "kind": "model",
         "title": "fct_berths", "authority_class": "dbt_manifest", "owner": "Harbour Data",
         "model": {"relation": "harbour.fct_berths", "grain": "one row per berth and day"},
         "text": "One row per berth and day."}]}


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory):
    path = tmp_path_factory.mktemp("harbour") / "warehouse.duckdb"
    con = duckdb.connect(str(path))
    con.execute("CREATE SCHEMA harbour; CREATE TABLE harbour.fct_berths (day DATE, berth VARCHAR, status VARCHAR, "
                "occupied INTEGER)")
    con.execute("INSERT INTO harbour.fct_berths VALUES (DATE '2024-03-02', 'B1', 'full', 3), "
                "(DATE '2024-03-09', 'B2', 'half', 2)")
    con.close()
    return path


def _db(tmp_path, expression: str):
    src = tmp_path / "catalog.yaml"
    src.write_text(yaml.safe_dump(_catalog(expression), sort_keys=False))
    db = tmp_path / "harbour.duckdb"
    write_catalog(load_catalog(src), db)
    return db


@pytest.mark.parametrize("expression,kind", [
    ("max(status)", "text"), ("max(day)", "date"), ("bool_or(occupied > 2)", "bool"),
    ("max('nan'::DOUBLE)", "nan"), ("max('inf'::DOUBLE)", "inf")])
def test_a_value_that_is_not_a_number_is_said_and_the_definition_still_shown(tmp_path, warehouse, expression, kind):
    db = _db(tmp_path, expression)
    env = ask(Store(db), Question(role=ROLE, text="what was berth use in March 2024?"),
              engine=DuckDBEngine(warehouse))
    assert env.behavior.value == "answer"
    assert [s.evidence_id for s in env.selected][:1] == ["metric.berth_use.v1"]
    assert env.values.status == "unavailable" and env.values.values == []
    assert env.values.message.startswith("the value could not be computed")
    assert kind in env.values.message and "not a" in env.values.message
    assert "full" not in env.values.message  # the warehouse's text is not quoted back

    r = cli("ask", "--db", str(db), "--role", ROLE, "--warehouse", str(warehouse), "what was berth use in March 2024?")
    assert r.returncode == 0, r.stderr
    assert "the value could not be computed" in r.stdout and "berths occupied at the busiest hour" in r.stdout
    assert "error" not in r.stderr and "Traceback" not in r.stderr


def test_a_number_is_still_computed(tmp_path, warehouse):
    db = _db(tmp_path, "sum(occupied)")
    r = cli("ask", "--db", str(db), "--role", ROLE, "--warehouse", str(warehouse), "--json",
            "what was berth use in March 2024?")
    assert r.returncode == 0, r.stderr
    values = json.loads(r.stdout)["values"]
    assert values["status"] == "computed" and values["values"][0]["value"] == 5.0
    assert values["values"][0]["start"] == date(2024, 3, 1).isoformat()
