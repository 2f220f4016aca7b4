"""One name, two things (issue 46 item 5): a metric and a model both called `pool_visits` in an aquarium's dbt project
(scripts/gen_dbt_project.py's `write_target`). A question whose words fit one kind ("model", "table", "last run",
"tests" for the model; "mean", "calculated", a value for the metric) picks it and says so; a question whose words fit
neither asks back and never picks silently. The same on every surface: the Ask pipeline, the CLI and the MCP tools.
"""
import json
from datetime import datetime, timezone

import pytest
from conftest import cli
from dbt_project import ingested

from core.answer.ask import Question, ask
from core.catalog.store import Store
from core.serve import mcp_tools as tools
from core.serve.mcp_auth import resolve_identity
from core.settings.config import Settings

AT = datetime(2027, 6, 2, 9, tzinfo=timezone.utc)
SPEC = {
    "project": "reef_aquarium", "run_at": "2027-06-01T04:00:00Z",
    "sources": [{"source": "gates", "name": "turnstile_scans", "columns": ["scan_id"], "loaded_at_field": "_at"}],
    "models": [{"name": "pool_visits", "description": "One row per visit to the touch pool.", "columns": ["visit_id"],
                "depends_on": ["source:gates.turnstile_scans"], "run": {"status": "success", "seconds": 7.5},
                "tests": [{"name": "unique", "column": "visit_id", "status": "pass"}]}],
    "metrics": [{"name": "pool_visits", "label": "Pool visits", "model": "pool_visits", "measure": "visits",
                 "expr": "visit_id", "description": "Visits to the touch pool, counted once per ticket."}],
}
MODEL, METRIC = "model.pool_visits", "metric.pool_visits"
# (question, what it picks: an entity id, or "clarify")
CASES = [("what is pool_visits?", "clarify"), ("who owns pool visits?", "clarify"),
         ("what feeds pool_visits?", "clarify"),
         ("what does pool visits mean?", METRIC), ("how is pool_visits calculated?", METRIC),
         ("what is the pool_visits metric?", METRIC),
         ("what is the pool_visits model?", MODEL), ("which table is pool_visits?", MODEL),
         ("when did pool_visits last run?", MODEL), ("did the tests on pool_visits pass?", MODEL),
         ("what columns does pool_visits have?", MODEL)]


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    return ingested(tmp_path_factory.mktemp("reef"), SPEC, name="reef")[1]


def _picked(env) -> str:
    if env.behavior.value == "clarify":
        assert {o.entity_id for o in env.clarify.options} == {MODEL, METRIC}, env.clarify
        return "clarify"
    assert env.behavior.value == "answer", env.verdict
    return env.entity_id


@pytest.mark.parametrize("q,expected", CASES)
def test_kind_words_pick_else_it_asks_back(db, q, expected):
    env = ask(Store(db), Question(role="analyst", text=q, at=AT))
    assert _picked(env) == expected, (q, env.verdict)
    if expected != "clarify":  # the pick is said, with the other thing of that name
        other = "model" if expected == METRIC else "metric"
        assert any(expected.split(".")[0] in n and f"{other} of the same name" in n for n in env.notes), env.notes


def test_the_same_on_the_cli_and_the_mcp_tools(db):
    store = Store(db)
    cat = tools.Catalog(store, None, Settings.from_env())
    who = resolve_identity(store, None, "analyst")
    for q, expected in CASES[:1] + CASES[3:4] + CASES[8:9]:
        out = cli("ask", q, "--db", str(db), "--role", "analyst", "--json", "--at", AT.isoformat())
        assert out.returncode == 0, out.stderr
        assert _picked_json(json.loads(out.stdout)) == expected, (q, out.stdout[:300])
        (body, _), _ = tools.ask_tool(cat, who, q, None, None, AT, None)
        assert _picked_json(body["envelope"]) == expected, q
    # get_definition by the shared name asks back too; by id it is the one named
    (body, _), _ = tools.get_definition_tool(cat, who, "pool_visits", None, None)
    assert body["behavior"] == "clarify"
    (body, _), _ = tools.get_definition_tool(cat, who, MODEL, None, None)
    assert body["definition"][0]["entity_id"] == MODEL


def _picked_json(env: dict) -> str:
    if env["behavior"] == "clarify":
        return "clarify"
    return env["entity_id"]
