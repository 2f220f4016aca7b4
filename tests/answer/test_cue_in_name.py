"""A word that asks for a table's make-up ("contract", "tags", "meta") may also be part of a name: a metric "Berth
contract revenue", a model "crane_tag_reads". Asked where such a thing comes from, the word names it and asks for no
dbt contract or tags; asked for its tags or contract, the asking words outside the name still ask. At a million
objects the misreading cost more than a wrong answer: the properties path looked for the column among every table
and ran out of time. A harbour operator's dbt project, written by scripts/gen_dbt_project.py's `write_target`.
"""
from datetime import datetime, timezone

import pytest
from dbt_project import gen, ingest_target

from core.answer.ask import Question, ask
from core.catalog.store import Store

AT = datetime(2027, 3, 1, 9, tzinfo=timezone.utc)
P = "quay_ops"
SPEC = {
    "project": P, "generated_at": "2027-02-28T04:00:00Z", "run_at": "2027-02-28T04:10:00Z",
    "sources": [{"source": "terminal_db", "name": "berth_calls", "columns": ["call_id", "fee"]}],
    "models": [
        {"name": "berth_contract_lines", "description": "One row per berth contract line.",
         "columns": ["call_id", "fee", "revenue"], "depends_on": ["source:terminal_db.berth_calls"],
         "tags": ["finance"], "contract": True, "materialized": "table"},
        {"name": "crane_tag_reads", "description": "One row per crane tag read.", "columns": ["crane_id", "read_at"],
         "depends_on": ["source:terminal_db.berth_calls"], "tags": ["iot", "hourly"], "materialized": "incremental"},
        # A name that is the cue word itself: the word still asks ("does crane_tag_reads have a contract?").
        {"name": "contracts", "description": "One row per signed contract.", "columns": ["contract_id"],
         "depends_on": ["source:terminal_db.berth_calls"]},
    ],
    "metrics": [{"name": "berth_contract_revenue", "label": "Berth contract revenue", "model": "berth_contract_lines",
                 "measure": "revenue"}],
}


@pytest.fixture(scope="module")
def quay(tmp_path_factory):
    folder = gen.write_target(SPEC, tmp_path_factory.mktemp("quay") / "target")
    return Store(ingest_target(folder.parent, folder, {"roles": ["ops"], "defaults": {"acl": ["ops"]}}, "quay")[1])


def _ask(store, text):
    return ask(store, Question(role="ops", text=text, at=AT))


@pytest.mark.parametrize("q", ["Where does berth contract revenue come from, and is it fresh?",
                               "which model backs berth contract revenue?",
                               "where does crane tag reads come from?"])
def test_a_cue_word_inside_a_name_names_it(quay, q):
    env = _ask(quay, q)
    assert env.intent is None, (env.intent, env.verdict)
    assert env.entity_id in ("metric.berth_contract_revenue", "model.crane_tag_reads"), env.entity_id
    assert "contract enforced" not in env.verdict and "tags:" not in env.verdict, env.verdict
    assert "source.quay_ops.terminal_db.berth_calls" in {n.id for n in env.lineage.nodes}, env.lineage


@pytest.mark.parametrize("q, entity", [("what tags does crane tag reads have?", "model.crane_tag_reads"),
                                       ("does berth_contract_lines have a contract?", "model.berth_contract_lines"),
                                       ("what are the tags of berth contract lines?", "model.berth_contract_lines"),
                                       ("does crane_tag_reads have a contract?", "model.crane_tag_reads")])
def test_the_same_word_outside_the_name_still_asks(quay, q, entity):
    env = _ask(quay, q)
    assert env.intent == "properties" and env.entity_id == entity, (env.intent, env.entity_id, env.verdict)
    assert "tags: " in env.verdict or "contract" in env.verdict, env.verdict
