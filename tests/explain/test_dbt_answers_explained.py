"""Every answer about what dbt recorded of a model has a cited explanation (the Why panel, `--explain`, MCP): a
column's meaning, which column is PII or the key, test results, the last run, tags and meta, a property asked yes or
no. Before, these answers selected the table in a role no explanation rule wrote a sentence for, so the
deterministic explanation was empty and failed its own citation check. On a harbour pilotage project from
scripts/gen_dbt_project.py's `write_target`.
"""
from datetime import datetime, timezone

import pytest
from dbt_project import project_store

from core.answer.ask import Question, ask
from core.catalog.access import Visible
from core.explain.explain import explain
from core.explain.headline import headline

AT = datetime(2027, 9, 14, 8, tzinfo=timezone.utc)
SPEC = {
    "project": "pilot_harbour", "generated_at": "2027-09-13T02:00:00Z", "run_at": "2027-09-13T02:05:00Z",
    "sources": [{"source": "port_ops", "name": "pilot_boardings", "columns": ["boarding_id"]}],
    "models": [
        {"name": "vessel_pilotages", "description": "One row per pilotage of a vessel into the harbour.",
         "depends_on": ["source:port_ops.pilot_boardings"], "tags": ["ops"], "materialized": "incremental",
         "meta": {"owner": "Harbour Data", "contains_pii": True},
         "run": {"status": "success", "seconds": 12.0},
         "columns": [{"name": "pilotage_id", "description": "Identifier of the pilotage."},
                     {"name": "pilot_phone", "description": "Where the pilot is called.", "meta": {"contains_pii": True}},
                     {"name": "draught_ft", "description": "Draught in feet. Deprecated: use draught_m."},
                     {"name": "draught_m", "description": "Draught in metres."}],
         "tests": [{"name": "unique", "column": "pilotage_id", "status": "pass"},
                   {"name": "not_null", "column": "pilotage_id", "status": "pass"},
                   {"name": "not_null", "column": "draught_m", "status": "fail", "failures": 4}]},
        {"name": "berth_fees", "description": "Fees per berth call.", "columns": [],
         "depends_on": ["source:port_ops.pilot_boardings"]},
    ],
}


@pytest.fixture(scope="module")
def harbour(tmp_path_factory):
    return project_store(tmp_path_factory.mktemp("harbour"), SPEC, {"roles": ["pilots"], "defaults": {"acl": ["pilots"]}})


@pytest.mark.parametrize("q,says", [
    ("what does column draught_m of vessel_pilotages mean?", "metres"),
    ("which column of vessel_pilotages is PII?", "pilot_phone"),
    ("which column of vessel_pilotages is deprecated?", "draught_ft"),
    ("what is the key column of vessel_pilotages?", "pilotage_id"),
    ("did the tests on vessel_pilotages pass?", "not_null"),
    ("when did vessel_pilotages last run?", "12"),
    ("what are the tags of vessel_pilotages?", "ops"),
    ("is vessel_pilotages incremental?", "incremental"),
])
def test_a_dbt_fact_answer_is_explained_with_checked_citations(harbour, q, says):
    env = ask(harbour, Question(role="pilots", text=q, at=AT))
    x = explain(env, q, Visible(harbour, "pilots").visible_ids)
    assert x.validation.passed, (env.intent, env.verdict, x.validation.problems)
    assert x.sentences and says in x.text, (env.verdict, x.text)
    assert {c for s in x.sentences for c in s.citations} == {env.table_facts.evidence_id}, x.sentences
    assert env.table_facts.evidence_id.endswith(".vessel_pilotages")


def test_a_table_with_nothing_recorded_says_so_in_its_headline(harbour):
    # the model is approved and in effect: only its columns are missing, and the headline says that, not that no
    # version is in effect
    env = ask(harbour, Question(role="pilots", text="which columns does berth_fees have?", at=AT))
    assert env.table_facts is not None and not env.table_facts.columns, env.verdict
    assert headline(env) == "No columns are recorded for berth_fees.", headline(env)
