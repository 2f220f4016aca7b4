"""Existence is not observable on dbt projects: for every role and every object it may not see (models in the
middle of lineage chains, raw sources, metrics, an exposure, a history version, semantic models, lineage and
freshness objects), questions naming it, and questions about the visible objects it feeds, are answered exactly
as a catalog that never held it would answer them. Through the core (envelope JSON, trace, index status, and
the text rendering), the CLI (`ask --batch` JSON and text), the MCP tools, and the Ask page (AppTest).

Figures (triples compared per surface) are printed with `-s`.
"""
import json

import pytest
from conftest import cli
from existence import (
    AT,
    CATALOG_WIDE,
    PROJECTS,
    SharedQueries,
    app_differential,
    build,
    comparable,
    frozen_clock,
    intent_questions,
    mcp_ask_differential,
    mcp_differential,
    names,
    page_differential,
    questions,
    short,
)

from core.answer.ask import Question
from core.answer.steward import steward_answer
from core.explain.render import render_text

NAMES = list(PROJECTS)
_BUILT: dict = {}


@pytest.fixture(scope="module")
def shared(embedder):
    return SharedQueries(embedder)


@pytest.fixture(scope="module")
def project(shared, tmp_path_factory):
    def get(name):
        if name not in _BUILT:
            _BUILT[name] = build(name, tmp_path_factory.mktemp(f"exist_{name}"), shared)
        return _BUILT[name]
    yield get
    _BUILT.clear()


def _triples(p):
    for role in p.catalog.role_names:
        for ev in p.hidden(role):
            for q in questions(p, ev, role):
                yield role, ev, q
        if role in p.worlds:  # a role that sees everything has no absent catalog to compare with
            for q in _steward_questions(p, role) + CATALOG_WIDE:
                yield role, None, q


def _steward_questions(p, role) -> list[str]:
    """A steward's questions about its review queue's entities, one per intent: where a widened view would leak
    what lies around the queue objects (none for other roles)."""
    return [q for n in p.queue_names(role) for q in intent_questions(n)]


def _foreign(p, role) -> set[str]:
    """Ids only hidden objects carry: any mention of one in an answer is a leak on its own."""
    seen = {i for e in p.catalog.evidence if p.sees(role, e) for i in (e.evidence_id, e.entity_id)}
    return {e.evidence_id for e in p.hidden(role)} - seen


def test_the_overlays_hide_a_sensible_mix(project):
    kinds = set()
    for name in NAMES:
        p = project(name)
        stewards = {r.name for r in p.catalog.roles if r.steward}
        assert all(p.hidden(r) for r in p.catalog.role_names if r not in stewards), name
        kinds |= {e.authority_class or e.kind.value for r in p.worlds for e in p.hidden(r)}
    assert {"dbt_model", "dbt_source", "dbt_metric", "dbt_exposure", "dbt_semantic_model", "dbt_parent_map",
            "dbt_source_freshness"} <= kinds


@pytest.mark.parametrize("name", NAMES)
def test_core_answers_a_hidden_object_as_an_absent_one(project, name):
    p = project(name)
    answered: dict = {}
    leaks, triples = [], 0
    for role, _ev, text in _triples(p):
        triples += 1
        if (role, text) in answered:
            continue
        q = Question(role=role, text=text, at=AT)
        full, world = p.full, p.worlds[role]
        # A steward's view is widened to its review queue in both (core/answer/steward.py); any other role's is its own.
        hidden = steward_answer(full.store, q, searcher=full.searcher)[0]
        absent = steward_answer(world.store, q, searcher=world.searcher)[0]
        answered[(role, text)] = True
        if comparable(hidden.model_dump_json()) != comparable(absent.model_dump_json()):
            leaks.append((role, text, "envelope"))
        if render_text(hidden) != render_text(absent):
            leaks.append((role, text, "text"))
        out = hidden.model_dump_json()
        leaks += [(role, text, f"names {i}") for i in _foreign(p, role) if names(out, i)]
    print(f"\n[existence core] {name}: {triples} (role, hidden object, question) triples, "
          f"{len(answered)} distinct questions asked of both catalogs, {len(leaks)} differences")
    assert not leaks, leaks[:10]
    assert triples >= 40


@pytest.mark.parametrize("name", NAMES)
def test_cli_answers_a_hidden_object_as_an_absent_one(project, shared, name, tmp_path, monkeypatch):
    # The CLI opens its searcher with a fresh Embedder; hand it the loaded model instead of reloading it per call.
    monkeypatch.setattr("core.retrieve.search.Embedder", lambda model=None: shared)
    p = project(name)
    compared = 0
    for role, world in p.worlds.items():
        # Each hidden object by its name, title, id and "which raw sources feed" (the core test asks the rest).
        cases = [(ev, q) for ev in p.hidden(role) for q in questions(p, ev, role)[:4]]
        cases += [(None, q) for q in _steward_questions(p, role)]
        asked = list(dict.fromkeys(q for _, q in cases))
        batch = tmp_path / f"{role}.jsonl"
        batch.write_text("".join(json.dumps({"question": q, "role": role, "at": AT.isoformat()}) + "\n"
                                 for q in asked))
        out = {}
        for label, db in (("hidden", p.full.store.path), ("absent", world.store.path)):
            r = cli("ask", "--db", str(db), "--batch", str(batch))
            assert r.returncode == 0, r.stderr
            out[label] = [comparable(line) for line in r.stdout.splitlines()]
        assert len(out["hidden"]) == len(asked)
        for q, h, a in zip(asked, out["hidden"], out["absent"]):
            assert h == a, (role, q)
        compared += len(cases)
        # The human-readable output: a question naming each hidden model, source, metric or exposure.
        for ev in [e for e in p.hidden(role) if e.kind.value in ("model", "source", "metric_definition")]:
            args = ["--role", role, "--at", AT.isoformat(), f"Which raw sources feed {short(ev)}?"]
            h, a = cli("ask", "--db", str(p.full.store.path), *args), cli("ask", "--db", str(world.store.path), *args)
            assert h.returncode == a.returncode == 0 and h.stdout == a.stdout, (role, ev.evidence_id)
            compared += 1
    print(f"\n[existence cli] {name}: {compared} (role, hidden object, question) triples compared")


@pytest.mark.parametrize("name", NAMES)
def test_mcp_tools_answer_a_hidden_object_as_an_absent_one(project, name, monkeypatch):
    frozen_clock(monkeypatch)
    p = project(name)
    compared = made_up_compared = 0
    for role, world in p.worlds.items():
        c, m = mcp_differential(p.full, world, role, p.hidden(role), lambda ev, role=role: questions(p, ev, role)[:4],
                                _foreign(p, role))
        c += mcp_ask_differential(p.full, world, role, _steward_questions(p, role), _foreign(p, role))
        compared, made_up_compared = compared + c, made_up_compared + m
    print(f"\n[existence mcp] {name}: {compared} (role, hidden object, tool call) triples against the absent "
          f"catalog, {made_up_compared} hidden-vs-made-up pairs byte for byte")
    assert compared and made_up_compared


def test_ask_page_shows_a_hidden_name_as_an_absent_or_made_up_one(project):
    """jaffle-shop with its index, every role, every hidden model, source, metric, version and semantic model.
    (1) The page for a question naming it equals the page the role's absent catalog serves for it. (2) It equals
    the page for a made-up name of the same shape, but for the name itself, where the absent catalog answers
    both alike (a real name can also be read as a visible one by its words: that reading is the same in both
    catalogs, and (1) covers it)."""
    p = project("jaffle-shop")
    absent_compared = made_up_compared = skipped = 0
    for role, world in p.worlds.items():
        objs = [e for e in p.hidden(role) if e.kind.value not in ("lineage", "freshness_policy", "freshness_observation")]
        a, m, s = app_differential(p.full, world, role, [short(e) for e in objs])
        # A steward's questions about its queue, one per intent, as the page widens them (core/answer/steward.py).
        a += page_differential(p.full, world, role, _steward_questions(p, role)[:11])
        absent_compared, made_up_compared, skipped = absent_compared + a, made_up_compared + m, skipped + s
    print(f"\n[existence app] jaffle-shop: {absent_compared} (role, hidden object, question) triples rendered as "
          f"the absent catalog renders them; {made_up_compared} rendered as a made-up name ({skipped} pairs the "
          "absent catalog itself reads differently)")
    assert absent_compared >= 12 and made_up_compared >= 4
