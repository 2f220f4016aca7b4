"""Existence is not observable: for every role, the demo answers every question exactly as a catalog
holding only what that role may see would (output, behavior, trace, index status, revision), so asking
about a hidden object behaves as asking about a name that was never there. Through the core, the CLI's
text and its JSON, the MCP tools and the Ask page (tests/existence.py has the MCP and page harness, shared
with the dbt projects in test_existence_dbt.py)."""
import json
import shutil

import pytest
from concurrency import COMMON
from conftest import DEMO, DEMO_AT, cli
from existence import (
    World,
    app_differential,
    frozen_clock,
    intent_questions,
    mcp_ask_differential,
    mcp_differential,
    page_differential,
    role_world,
    short,
    steward_queue,
)
from test_permissions import _questions

from core.answer.ask import Question
from core.answer.steward import steward_answer
from core.catalog.entities import id_phrases
from core.catalog.store import Store
from core.explain.render import render_text
from core.ingest.load import load_catalog
from core.ingest.publish import publish
from core.retrieve.index import index_path
from core.retrieve.search import Searcher

CATALOG = load_catalog(DEMO)
# What each role may not see: outside its ACL and, for the steward, outside its review queue too.
QUEUES = {role: steward_queue(CATALOG, role) for role in CATALOG.role_names}
CASES = [(role, ev) for role in CATALOG.role_names for ev in CATALOG.evidence
         if role not in ev.acl and ev.evidence_id not in QUEUES[role]]


def _steward_questions(role) -> list[str]:
    """A steward's questions about its queue's entities, one per intent (none for other roles): where a view
    widened to the queue could show what lies around it (the finance-only metric that reads net revenue)."""
    names = dict.fromkeys(short(ev).replace("_", " ") for ev in CATALOG.evidence if ev.evidence_id in QUEUES[role])
    return [q for n in names for q in intent_questions(n)]


@pytest.fixture(scope="module")
def worlds(demo, embedder, tmp_path_factory) -> dict:
    """Per role: the demo as published, and the demo without anything that role may not see (the index
    copied first, so no vector is recomputed)."""
    full_db = demo[0].path
    out = {}
    for role in CATALOG.role_names:
        folder = tmp_path_factory.mktemp(f"world_{role}")
        db = folder / "world.duckdb"
        shutil.copytree(index_path(full_db), index_path(db))
        publish(role_world(CATALOG, role), db, embedder, quiet=True)
        store = Store(db)
        out[role] = (store, Searcher(store, embedder))
    return out


def _questions_for(role):
    return [(text, day) for text, day in COMMON] + [
        (q, None) for r, ev in CASES if r == role for q in _questions(ev)[:4]] + [
        (q, None) for q in _steward_questions(role)]


def test_every_role_has_hidden_objects():
    assert len(CASES) >= 20 and {r for r, _ in CASES} == set(CATALOG.role_names)


@pytest.mark.parametrize("role", CATALOG.role_names)
def test_hidden_objects_are_indistinguishable_from_absent_ones(demo, worlds, role):
    checked = 0
    for text, day in _questions_for(role):
        q = Question(role=role, text=text, day=day, at=DEMO_AT)
        # A steward's view is widened to its review queue in both (core/answer/steward.py); any other role's is its own.
        hidden = steward_answer(demo[0], q, searcher=demo[1])[0]
        absent = steward_answer(worlds[role][0], q, searcher=worlds[role][1])[0]
        assert hidden.model_dump_json() == absent.model_dump_json(), text
        assert render_text(hidden) == render_text(absent), text
        checked += 1
    assert checked >= 12


@pytest.mark.parametrize("role", CATALOG.role_names)
def test_cli_output_is_the_same_with_and_without_hidden_objects(demo, worlds, role, tmp_path):
    hidden_db, absent_db = str(demo[0].path), str(worlds[role][0].path)
    cases = [e for r, e in CASES if r == role]
    assert cases
    questions = [_questions(ev)[1] for ev in cases[:6]] + _steward_questions(role)
    # The text output of a few questions, one process each as a user runs them; the JSON of every question in one
    # --batch run per catalog (the steward's ~70 questions one by one were the suite's slowest test).
    for text in questions[:3]:
        args = ["--role", role, "--at", DEMO_AT.isoformat(), text]
        h, a = cli("ask", "--db", hidden_db, *args), cli("ask", "--db", absent_db, *args)
        assert h.returncode == a.returncode == 0
        assert h.stdout == a.stdout, text
    batch = tmp_path / "questions.jsonl"
    batch.write_text("".join(json.dumps({"question": q, "role": role, "at": DEMO_AT.isoformat()}) + "\n"
                             for q in questions))
    h, a = cli("ask", "--db", hidden_db, "--batch", str(batch)), cli("ask", "--db", absent_db, "--batch", str(batch))
    assert h.returncode == a.returncode == 0
    answers = list(zip(questions, h.stdout.splitlines(), a.stdout.splitlines(), strict=True))
    assert [q for q, hidden, absent in answers if hidden != absent] == []


def _foreign(role) -> set[str]:
    hidden = [ev for r, ev in CASES if r == role]
    seen = {i for ev in CATALOG.evidence if ev not in hidden for i in (ev.evidence_id, ev.entity_id)}
    return {ev.evidence_id for ev in hidden} - seen


@pytest.mark.parametrize("role", CATALOG.role_names)
def test_mcp_tools_answer_a_hidden_object_as_an_absent_one(demo, worlds, role, monkeypatch):
    """Every MCP tool that takes an entity or a question, aimed at every object the role may not see (by
    evidence id, entity id and name), answers as the role's absent catalog does, and as a made-up name does."""
    frozen_clock(monkeypatch)
    hidden = [ev for r, ev in CASES if r == role]
    compared, made_up_compared = mcp_differential(World(*demo), World(*worlds[role]), role, hidden,
                                                  lambda ev: _questions(ev)[:3], _foreign(role))
    compared += mcp_ask_differential(World(*demo), World(*worlds[role]), role, _steward_questions(role),
                                     _foreign(role))
    print(f"\n[existence mcp] demo {role}: {compared} (role, hidden object, tool call) triples against the absent "
          f"catalog, {made_up_compared} hidden-vs-made-up pairs byte for byte")
    assert compared >= 10 * len(hidden) and made_up_compared


@pytest.mark.parametrize("role", CATALOG.role_names)
def test_ask_page_shows_a_hidden_object_as_an_absent_one(demo, worlds, role):
    """The Ask page for each hidden entity's name, served from the demo and from the role's absent catalog;
    for the steward also its questions about its review queue, one per intent, in its widened view."""
    names = [" ".join(id_phrases(ev.entity_id)[0]) for r, ev in CASES
             if r == role and ev.kind.value not in ("lineage", "freshness_policy", "freshness_observation")]
    absent, made, skipped = app_differential(World(*demo), World(*worlds[role]), role, names)
    absent += page_differential(World(*demo), World(*worlds[role]), role, _steward_questions(role)[:22])
    print(f"\n[existence app] demo {role}: {absent} (role, hidden object, question) triples rendered as the absent "
          f"catalog renders them; {made} rendered as a made-up name ({skipped} pairs the absent catalog itself "
          "reads differently)")
    assert absent >= 3
