"""One name, two things, for a model and the dbt source of its name (issue 46 item 5, which supersedes issue 24's
"the model, which is what an analyst queries"): a cinema chain's dbt project (scripts/gen_dbt_project.py's
`write_target`) where the model `ticket_sales` is built from the source `box_office.ticket_sales`. A question whose
words fit one kind ("model", "table", "columns", "last run", "tests" for the model; "raw", "loaded", "fresh",
"source" for the source) picks it and says so; a question whose words fit neither asks back with both, and never
picks silently. The same on the CLI (text and --json), the MCP `ask` tool and the MCP tools that take a name.

Permissions: where a role sees only one of the two (the model `usher_shifts` and the source `refunds` are for the
manager only), there is no question back and no hint that the other exists: every role's answers read exactly as on
the same project without what that role may not see.
"""
import json
from datetime import datetime, timezone

import pytest
from conftest import ROOT, cli
from dbt_project import ingested
from existence import role_world

from core.answer.ask import Question, ask
from core.answer.conversation import follow
from core.catalog.store import Store, write_catalog
from core.explain.render import render_text
from core.serve import mcp_tools as tools
from core.serve.mcp_auth import resolve_identity
from core.settings.config import Settings

AT = datetime(2027, 3, 2, 9, tzinfo=timezone.utc)
ROLES = ["usher", "manager"]
SPEC = {
    "project": "starlight_cinemas", "run_at": "2027-03-02T04:00:00Z",
    "sources": [
        {"source": "box_office", "name": "ticket_sales", "description": "Ticket sales as the till exports them.",
         "columns": ["sale_id", "_synced_at"], "loaded_at_field": "_synced_at"},
        {"source": "rota", "name": "usher_shifts", "description": "Shifts as the rota tool exports them.",
         "columns": ["shift_id", "_synced_at"], "loaded_at_field": "_synced_at"},
        {"source": "box_office", "name": "refunds", "description": "Refunds as the till exports them.",
         "columns": ["refund_id", "_synced_at"], "loaded_at_field": "_synced_at"},
    ],
    "models": [
        {"name": "ticket_sales", "description": "One row per ticket sold, cleaned and priced.",
         "columns": ["sale_id", "screening_id", "price"], "depends_on": ["source:box_office.ticket_sales"],
         "run": {"status": "success", "seconds": 4.0}, "tests": [{"name": "unique", "column": "sale_id",
                                                                   "status": "pass"}]},
        {"name": "usher_shifts", "description": "One row per shift worked, with hours and pay.",
         "columns": ["shift_id", "hours", "pay"], "depends_on": ["source:rota.usher_shifts"]},
        {"name": "refunds", "description": "One row per refund, matched to its ticket.",
         "columns": ["refund_id", "sale_id"], "depends_on": ["source:box_office.refunds", "model:ticket_sales"]},
    ],
}
HIDDEN = {"usher": {"model.usher_shifts", "source.box_office.refunds"}, "manager": set()}
OVERLAY = {"roles": ROLES, "defaults": {"acl": ROLES},
           "objects": {"model:usher_shifts": {"acl": ["manager"]}, "source:box_office.refunds": {"acl": ["manager"]}}}
MODEL, SOURCE = "model.ticket_sales", "source.box_office.ticket_sales"
# (question, what it picks: an entity id, or "clarify")
CASES = [("ticket_sales", "clarify"), ("what is ticket_sales?", "clarify"), ("who owns ticket_sales?", "clarify"),
         ("what feeds ticket_sales?", "clarify"),
         ("what is the ticket_sales model?", MODEL), ("which columns does ticket_sales have?", MODEL),
         ("when did ticket_sales last run?", MODEL), ("did the tests on ticket_sales pass?", MODEL),
         ("what is the raw ticket_sales data?", SOURCE), ("when was ticket_sales last loaded?", SOURCE),
         ("is ticket_sales fresh?", SOURCE), ("what is the ticket_sales source?", SOURCE)]


@pytest.fixture(scope="module")
def cinema(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("cinema")
    catalog, full = ingested(tmp, SPEC, OVERLAY, name="full")
    # Each role's world: the same catalog holding only what the role may see (tests/existence.py); the manager
    # sees everything, so its world is the full catalog.
    alone = {}
    for role in ROLES:
        alone[role] = tmp / f"world_{role}.duckdb"
        write_catalog(role_world(catalog, role), alone[role])
    return full, alone


def _ask(db, text, role="usher"):
    return ask(Store(db), Question(role=role, text=text, at=AT))


def _picked(env, options=(MODEL, SOURCE)) -> str:
    if env.behavior.value == "clarify":
        assert {o.entity_id for o in env.clarify.options} == set(options), env.clarify
        return "clarify"
    assert env.behavior.value in ("answer", "abstain"), env.verdict
    return env.entity_id


@pytest.mark.parametrize("q,expected", CASES)
def test_kind_words_pick_else_it_asks_back(cinema, q, expected):
    env = _ask(cinema[0], q)
    assert _picked(env) == expected, (q, env.verdict, env.notes)
    if expected == "clarify":  # the question back says what the two are
        assert env.clarify.question == "ticket_sales is the name of a model and a source. Which one do you mean?" \
            or env.clarify.question == "ticket_sales is the name of a source and a model. Which one do you mean?"
    else:  # the pick is said, with the other thing of that name
        other = "source" if expected == MODEL else "model"
        assert any(f"{other} of the same name" in n for n in env.notes), env.notes


def test_the_same_on_the_cli_and_the_mcp_tools(cinema):
    db = cinema[0]
    store = Store(db)
    cat = tools.Catalog(store, None, Settings.from_env())
    who = resolve_identity(store, None, "usher")
    for q, expected in (CASES[1], CASES[4], CASES[10]):
        out = cli("ask", q, "--db", str(db), "--role", "usher", "--json", "--at", AT.isoformat())
        assert out.returncode == 0, out.stderr
        env = json.loads(out.stdout)
        assert (env["entity_id"] if env["behavior"] != "clarify" else "clarify") == expected, (q, out.stdout[:300])
        (body, _), _ = tools.ask_tool(cat, who, q, None, None, AT, None)
        assert (body["envelope"]["entity_id"] if body["envelope"]["behavior"] != "clarify" else "clarify") == expected
    text = cli("ask", "what is ticket_sales?", "--db", str(db), "--role", "usher", "--at", AT.isoformat())
    assert text.returncode == 0 and "Which one do you mean?" in text.stdout
    assert MODEL in text.stdout and SOURCE in text.stdout
    # The tools that take a name ask back on the shared name; by id it is the one named.
    for tool in (lambda n: tools.get_definition_tool(cat, who, n, None, None)[0][0],
                 lambda n: tools.get_lineage_tool(cat, who, n, None, 1, None, "upstream")[0],
                 lambda n: tools.get_freshness_tool(cat, who, n, AT)[0]):
        body = tool("ticket_sales")
        assert body["behavior"] == "clarify", body
        assert {o["entity_id"] for o in body["options"]} == {MODEL, SOURCE}
        assert tool(SOURCE)["entity_id"] == SOURCE and tool(MODEL)["entity_id"] == MODEL


def test_after_the_question_back_naming_the_kind_answers_and_it_picks_nothing_silently(cinema):
    store = Store(cinema[0])
    turn = None

    def say(text):
        nonlocal turn
        _, env, turn = follow(Question(role="usher", text=text, at=AT), turn, "u1", lambda x: ask(store, x))
        return env

    assert say("what is the ticket_sales model?").entity_id == MODEL
    back = say("who owns ticket_sales?")
    assert back.behavior.value == "clarify" and back.entity_id is None
    # "is it fresh?" after a question back: "it" is no one thing, so neither the model before nor either of the two
    # is picked.
    again = say("is it fresh?")
    assert again.behavior.value == "clarify" and again.entity_id is None
    assert say("is the ticket_sales source fresh?").entity_id == SOURCE


def _seen(env):
    return (env.behavior, env.entity_id, env.verdict, env.notes,
            [o.entity_id for o in env.clarify.options] if env.clarify else None,
            env.clarify.question if env.clarify else None)


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("q", ["what is usher_shifts?", "usher_shifts", "who owns refunds?", "what is refunds?",
                               "what is the refunds model?", "what is the raw usher_shifts data?",
                               "when was refunds last loaded?", "what columns does usher_shifts have?"])
def test_a_role_that_sees_one_of_the_two_gets_it_with_no_hint_of_the_other(cinema, role, q):
    full, alone = cinema
    env = _ask(full, q, role)
    assert _seen(env) == _seen(_ask(alone[role], q, role))
    shown = env.model_dump_json() + render_text(env)
    for hidden in HIDDEN[role]:
        assert hidden not in shown and f"a {hidden.split('.')[0]} of the same name" not in shown
    if role == "usher" and q in ("what is usher_shifts?", "usher_shifts"):
        assert env.behavior.value == "answer" and env.entity_id == "source.rota.usher_shifts"
    if role == "manager" and q in ("what is usher_shifts?", "usher_shifts", "who owns refunds?"):
        assert env.behavior.value == "clarify"


def test_the_ask_page_asks_back_with_a_button_for_each(cinema, monkeypatch):
    from streamlit.testing.v1 import AppTest
    monkeypatch.setenv("ASOF_DB", str(cinema[0]))
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.session_state["role"] = "usher"
    at.run()
    at.text_input(key="question").input("who owns ticket_sales?")
    at.button(key="ask").click().run()
    assert not at.exception, at.exception
    buttons = {b.key: b.label.replace("\\", "") for b in at.button if b.key and b.key.startswith("clarify_")}
    assert len(buttons) == 2 and any(MODEL in v for v in buttons.values()) and any(SOURCE in v for v in buttons.values())
    shown = " ".join(str(m.value) for m in [*at.markdown, *at.caption, *at.info, *at.warning]).replace("\\", "")
    assert "ticket_sales is the name of a" in shown
    source = next(k for k, v in buttons.items() if SOURCE in v)
    at.button(key=source).click().run()
    env = json.loads(at.session_state["envelope_json"])
    assert env["behavior"] in ("answer", "abstain") and env["entity_id"] == SOURCE  # no owner recorded: abstain
