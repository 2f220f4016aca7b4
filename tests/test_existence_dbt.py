"""Existence is not observable on dbt projects: for every role and every object it may not see (models in the
middle of lineage chains, raw sources, metrics, an exposure, a history version, semantic models, lineage and
freshness objects), questions naming it, and questions about the visible objects it feeds, are answered exactly
as a catalog that never held it would answer them. Through the core (envelope JSON, trace, index status, and
the text rendering), the CLI (`ask --batch` JSON and text), the MCP tools, and the Ask page (AppTest).

Figures (triples compared per surface) are printed with `-s`.
"""
import json
import os
import re
from datetime import date, datetime, time

import pytest
from conftest import cli
from existence import AT, PROJECTS, SharedQueries, build, comparable, made_up, names, questions, short

from core import mcp_tools as tools
from core.ask import Question, ask
from core.config import Settings
from core.mcp_auth import Identity
from core.render import render_text

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


def _foreign(p, role) -> set[str]:
    """Ids only hidden objects carry: any mention of one in an answer is a leak on its own."""
    seen = {i for e in p.catalog.evidence if role in e.acl for i in (e.evidence_id, e.entity_id)}
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
    for role, ev, text in _triples(p):
        triples += 1
        if (role, text) in answered:
            continue
        q = Question(role=role, text=text, at=AT)
        full, world = p.full, p.worlds[role]
        hidden = ask(full.store, q, searcher=full.searcher)
        absent = ask(world.store, q, searcher=world.searcher)
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
    monkeypatch.setattr("core.search.Embedder", lambda model=None: shared)
    p = project(name)
    compared = 0
    for role, world in p.worlds.items():
        asked = list(dict.fromkeys(q for r, _, q in _triples(p) if r == role))
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
        compared += sum(1 for r, _, _ in _triples(p) if r == role)
        # The human-readable output: a question naming each hidden model, source, metric or exposure.
        for ev in [e for e in p.hidden(role) if e.kind.value in ("model", "source", "metric_definition")]:
            args = ["--role", role, "--at", AT.isoformat(), f"Which raw sources feed {short(ev)}?"]
            h, a = cli("ask", "--db", str(p.full.store.path), *args), cli("ask", "--db", str(world.store.path), *args)
            assert h.returncode == a.returncode == 0 and h.stdout == a.stdout, (role, ev.evidence_id)
            compared += 1
    print(f"\n[existence cli] {name}: {compared} (role, hidden object, question) triples compared")


def _mcp_calls(p, ev, role):
    """Every MCP tool that takes an entity or a question, aimed at one hidden object."""
    n = short(ev)
    day = ev.valid_from or date(2025, 6, 30)
    for entity in dict.fromkeys((ev.evidence_id, ev.entity_id, n)):
        yield "get_definition", lambda c, w, e=entity: tools.get_definition_tool(c, w, e, day, None)[0], entity
        yield "compare_versions", lambda c, w, e=entity: tools.compare_versions_tool(c, w, e, None, None), entity
        yield "get_lineage", lambda c, w, e=entity: tools.get_lineage_tool(c, w, e, day, 10, None, "both"), entity
        yield "get_freshness", lambda c, w, e=entity: tools.get_freshness_tool(c, w, e, AT), entity
    yield "list_metrics", lambda c, w: tools.list_metrics_tool(c, w, n), n
    for q in questions(p, ev, role)[:4]:
        yield "ask", lambda c, w, q=q: tools.ask_tool(c, w, q, None, None, AT, None), q


def _tool_result(body: dict) -> str:
    body = json.loads(json.dumps(body, default=str))
    if "envelope" in body:
        body["envelope"] = json.loads(comparable(body["envelope"]))
        body["envelope"].pop("explanation", None)  # checked separately below: its cache is per database
    return json.dumps(body, sort_keys=True)


class _Frozen(datetime):
    """Tools without an `at` argument read the clock: both catalogs are asked at the same instant."""

    @classmethod
    def now(cls, tz=None):
        return AT if tz else AT.replace(tzinfo=None)


@pytest.mark.parametrize("name", NAMES)
def test_mcp_tools_answer_a_hidden_object_as_an_absent_one(project, name, monkeypatch):
    for module in ("core.ask", "core.mcp_tools"):
        monkeypatch.setattr(f"{module}.datetime", _Frozen)
    p = project(name)
    settings = Settings()
    compared = made_up_compared = 0
    for role, world in p.worlds.items():
        who = Identity(principal="tester", role=role, resolved=f"test runs as {role}")
        full_cat = tools.Catalog(p.full.store, p.full.searcher, settings)
        world_cat = tools.Catalog(world.store, world.searcher, settings)
        foreign = {e.evidence_id for e in p.hidden(role)} - {
            i for e in p.catalog.evidence if role in e.acl for i in (e.evidence_id, e.entity_id)}
        for ev in p.hidden(role):
            for tool, call, arg in _mcp_calls(p, ev, role):
                hidden, absent = call(full_cat, who)[0], call(world_cat, who)[0]
                assert _tool_result(hidden) == _tool_result(absent), (role, tool, arg)
                if "envelope" in hidden:
                    assert hidden["envelope"].get("explanation") == absent["envelope"].get("explanation"), (tool, arg)
                text = json.dumps(hidden, default=str)
                assert not [i for i in foreign if names(text, i)], (role, tool, arg)
                compared += 1
            # A made-up entity of the same shape: the same bytes when the absent catalog cannot find either.
            for entity in (ev.evidence_id, short(ev)):
                fake = made_up(entity)
                in_world = tools.get_lineage_tool(world_cat, who, entity, AT.date(), 3, None, "both")[0]
                if in_world.get("behavior") != "not_found_or_not_authorized":
                    continue
                hidden = tools.get_lineage_tool(full_cat, who, entity, AT.date(), 3, None, "both")[0]
                fake_out = tools.get_lineage_tool(full_cat, who, fake, AT.date(), 3, None, "both")[0]
                assert json.dumps(hidden) == json.dumps(fake_out), (role, entity, fake)
                made_up_compared += 1
    print(f"\n[existence mcp] {name}: {compared} (role, hidden object, tool call) triples against the absent "
          f"catalog, {made_up_compared} hidden-vs-made-up pairs byte for byte")
    assert compared and made_up_compared


# --- the Ask page ----------------------------------------------------------------------------------------


def _page_text(at, replace: list[str]) -> str:
    """Every rendered text element of the page, with the question's own words taken out."""
    from streamlit.testing.v1.element_tree import Block

    out = []

    def walk(node):
        if isinstance(node, Block):
            for child in node.children.values():
                walk(child)
            return
        value = getattr(node, "value", None)
        if node.type in ("markdown", "caption", "text", "code", "subheader", "header", "title", "info",
                         "warning", "error", "success", "button", "expander", "metric", "json"):
            out.append(f"{node.type}: {getattr(node, 'label', '') or ''} {value if value is not None else ''}")
    walk(at._tree)
    text = "\n".join(out)
    for r in replace:
        text = text.replace(r, "<NAME>")
    return text


def _ask_page(question: str, role: str):
    from streamlit.testing.v1 import AppTest
    from conftest import ROOT
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    for key, value in {"role": role, "date_mode": "No date", "at_day": AT.date(), "at_time": time(12, 0)}.items():
        at.session_state[key] = value
    at.run()
    at.text_input(key="question").input(question)
    at.button(key="ask").click().run()
    assert not at.exception, at.exception
    return at


def _use_db(path) -> None:
    from ui import resources
    os.environ["ASOF_DB"] = str(path)
    resources.settings.clear()


def _page(question: str, role: str, replace: list[str]) -> str:
    from urllib.parse import quote, quote_plus

    from ui.safe import md
    text = _page_text(_ask_page(question, role), [form(t) for t in replace for form in
                                                  (md, quote_plus, quote, lambda x: x)])
    return re.sub(r"ingested [^\n·]+", "ingested <WHEN>", text)  # when each database file was written


def test_ask_page_shows_a_hidden_name_as_an_absent_or_made_up_one(project):
    """jaffle-shop with its index, every role, every hidden model, source, metric, version and semantic model.
    (1) The page for a question naming it equals the page the role's absent catalog serves for it. (2) It equals
    the page for a made-up name of the same shape, but for the name itself, where the absent catalog answers
    both alike (a real name can also be read as a visible one by its words: that reading is the same in both
    catalogs, and (1) covers it)."""
    from ui import resources
    p = project("jaffle-shop")
    try:
        _use_db(p.full.store.path)
        resources._embedder(resources.settings().embed_model)[1].join()  # answers use the index, as served
        absent_compared = made_up_compared = skipped = 0
        for role, world in p.worlds.items():
            objs = [e for e in p.hidden(role)
                    if e.kind.value not in ("lineage", "freshness_policy", "freshness_observation")]
            cases = []
            for ev in objs:
                n = short(ev)
                for template in ("Which raw sources feed {}?", "What is {}?"):
                    real_q, fake_q = template.format(n), template.format(made_up(n))
                    w = [ask(world.store, Question(role=role, text=t, at=AT), searcher=world.searcher)
                         for t in (real_q, fake_q)]
                    alike = comparable(w[0].model_dump_json()).replace(n, made_up(n)) == comparable(
                        w[1].model_dump_json())
                    if template.startswith("Which") or alike:  # the second form only as a made-up pair
                        cases.append((n, real_q, fake_q, alike, template.startswith("Which")))
            _use_db(p.full.store.path)
            hidden = {real_q: _page(real_q, role, [real_q, n]) for n, real_q, _, _, _ in cases}
            fakes = {fake_q: _page(fake_q, role, [fake_q, made_up(n)]) for n, _, fake_q, alike, _ in cases if alike}
            _use_db(world.store.path)
            for n, real_q, fake_q, alike, against_absent in cases:
                if against_absent:
                    assert hidden[real_q] == _page(real_q, role, [real_q, n]), (role, real_q)
                    absent_compared += 1
                if alike:
                    assert hidden[real_q] == fakes[fake_q], (role, real_q, fake_q)
                    made_up_compared += 1
                else:
                    skipped += 1
        print(f"\n[existence app] jaffle-shop: {absent_compared} (role, hidden object, question) triples rendered as "
              f"the absent catalog renders them; {made_up_compared} rendered as a made-up name ({skipped} pairs the "
              "absent catalog itself reads differently)")
        assert absent_compared >= 15 and made_up_compared >= 4
    finally:
        os.environ.pop("ASOF_DB", None)
        resources.settings.clear()
