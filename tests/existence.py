"""Harness for the hidden-vs-absent differential on dbt projects (tests/serve/test_existence_dbt.py and
benchmarks/existence.py).

A project is ingested with an overlay that hides objects per role (tests/fixtures/existence). For each role,
its "world" is the same catalog without anything that role may not see. A hidden object must then be
indistinguishable from one that was never there: every question gives the same answer in both.
"""
from __future__ import annotations

import json
import os
import re
import shutil
from dataclasses import dataclass, field
from datetime import date, datetime, time, timezone
from pathlib import Path

from core.answer.intents.review import review_queue
from core.catalog.evidence import Catalog, Evidence
from core.catalog.store import Store, write_catalog
from core.ingest.ingest import read_inputs
from core.ingest.publish import publish
from core.retrieve.embed import Embedder
from core.retrieve.index import index_path
from core.retrieve.search import Searcher

ROOT = Path(__file__).resolve().parents[1]
OVERLAYS = ROOT / "tests" / "fixtures" / "existence"
AT = datetime(2026, 11, 29, 12, 0, tzinfo=timezone.utc)
# name -> (dbt target, extra inputs, with the vector index). The 1,035-model project is answered from the
# catalog alone (as in test_dbt_scale): embedding its 2,400 objects would take most of the time budget.
PROJECTS = {
    "jaffle-shop": (ROOT / "tests/fixtures/realworld/jaffle-shop", {"openlineage": ROOT / "data/dbt/openlineage"}, True),
    "jaffle-sl-template": (ROOT / "tests/fixtures/realworld/jaffle-sl-template", {}, True),
    "dbt-project-evaluator-versions": (ROOT / "tests/fixtures/realworld/dbt-project-evaluator-versions", {}, True),
    "acme-analytics": (ROOT / "tests/fixtures/generated/acme-analytics", {}, False),
}


class SharedQueries(Embedder):
    """The session's loaded model, with each single text (a question) embedded once however many catalogs
    it is asked of: the vector is the same either way, only the time is saved."""

    def __init__(self, base: Embedder):
        base.model  # noqa: B018 - load once, then share the loaded weights
        self.__dict__.update(base.__dict__)
        self._memo: dict[str, object] = {}

    def encode(self, texts: list[str], progress=None):
        if len(texts) != 1:
            return super().encode(texts, progress)
        if texts[0] not in self._memo:
            self._memo[texts[0]] = super().encode(texts, progress)
        return self._memo[texts[0]].copy()


@dataclass
class World:
    store: Store
    searcher: Searcher | None


def steward_queue(catalog: Catalog, role: str, today: date | None = None) -> set[str]:
    """The review-queue ids a steward role's view holds beyond its ACL (core/answer/steward.py); none for other roles.
    Today's queue, as the CLI, the MCP server and the pages build it."""
    if not any(r.name == role and r.steward for r in catalog.roles):
        return set()
    return {i for item in review_queue(catalog.evidence, today or date.today()) for i in item.evidence_ids}


def role_world(catalog: Catalog, role: str) -> Catalog:
    """The catalog as it would be if it held only what `role` may see: its ACL, and a steward's review queue
    (the queue objects keep their own ACLs, so the steward reads them through the same widening). The queue
    the world builds must be the catalog's own, or a steward's view would differ for another reason."""
    queue = steward_queue(catalog, role)
    # The settings (fiscal year, the catalog's own clock) are the catalog's, not an object anyone may be hidden.
    only = Catalog(roles=catalog.roles, principals=catalog.principals, settings=catalog.settings,
                   evidence=[e for e in catalog.evidence if role in e.acl or e.evidence_id in queue])
    assert steward_queue(only, role) == queue, (role, "the world's review queue differs from the catalog's")
    return only


def intent_questions(name: str) -> list[str]:
    """One question per intent about a name: every path an answer could widen through (downstream, compare,
    discover, owner, document, upcoming, lineage, freshness, dashboards, a year's change)."""
    return [f"which metrics use {name}?", f"what depends on {name}?", f"compare {name} v1 vs v2",
            f"who owns {name}?", f"what does the {name} page say?", f"any metrics about {name}?",
            f"what changes to {name} are coming?", f"where does {name} come from?", f"is {name} data fresh?",
            f"which dashboards use {name}?", f"what changed in {name} in 2025?"]


# Questions about the whole visible catalog (issue 24 item 4): a "none" or a count must be the absent catalog's.
CATALOG_WIDE = ["which models are deprecated?", "which metrics have no owner?", "which sources have no owner?",
                "are any metrics drafts?", "which models have no owner?"]


@dataclass
class Project:
    name: str
    catalog: Catalog
    full: World
    worlds: dict[str, World] = field(default_factory=dict)  # per role with something hidden
    queues: dict[str, set[str]] = field(default_factory=dict)

    def queue(self, role: str) -> set[str]:
        if role not in self.queues:
            self.queues[role] = steward_queue(self.catalog, role)
        return self.queues[role]

    def sees(self, role: str, ev: Evidence) -> bool:
        return role in ev.acl or ev.evidence_id in self.queue(role)

    def hidden(self, role: str) -> list[Evidence]:
        return [e for e in self.catalog.evidence if not self.sees(role, e)]

    def queue_names(self, role: str) -> list[str]:
        """The names of a steward's queue entities (what its widened answers are about); none for other roles."""
        queue = self.queue(role)
        return list(dict.fromkeys(short(e) for e in self.catalog.evidence if e.evidence_id in queue))


def build(name: str, folder: Path, embedder: Embedder | None) -> Project:
    target, extra, indexed = PROJECTS[name]
    full_db = folder / "full.duckdb"
    catalog, _ = read_inputs(full_db, dbt=target, overlay=OVERLAYS / f"{name}.overlay.yml", **extra)
    use_index = indexed and embedder is not None

    def write(cat: Catalog, db: Path) -> World:
        if use_index:
            publish(cat, db, embedder, quiet=True)
            store = Store(db)
            return World(store, Searcher(store, embedder))
        write_catalog(cat, db)
        return World(Store(db), None)

    project = Project(name, catalog, write(catalog, full_db))
    for role in catalog.role_names:
        if not project.hidden(role):
            continue
        db = folder / f"world_{role}.duckdb"
        if use_index:  # the index copied first, so no vector is computed again
            shutil.copytree(index_path(full_db), index_path(db))
        project.worlds[role] = write(role_world(catalog, role), db)
    return project


def short(ev: Evidence) -> str:
    """The name people use: the last part of the entity id (stg_orders, raw_supplies, exposure_1)."""
    ent = ev.entity_id
    for prefix in ("lineage.", "freshness."):
        ent = ent.removeprefix(prefix)
    parts = ent.split(".")
    return parts[-1] if not parts[-1].startswith("v") or not parts[-1][1:].isdigit() else parts[-2]


def downstream_visible(project: Project, ev: Evidence, role: str) -> list[Evidence]:
    """Visible objects that read the hidden one: lineage children and metrics whose formula names it."""
    ids = {ev.evidence_id, ev.entity_id}
    children = {e.downstream for x in project.catalog.evidence for e in x.edges if e.upstream in ids}
    out = [x for x in project.catalog.evidence if project.sees(role, x) and x.kind.value in ("model", "metric_definition")
           and (x.evidence_id in children or x.entity_id in children or ids & set(x.mentions.values()))]
    return out[:3]


def questions(project: Project, ev: Evidence, role: str) -> list[str]:
    """What a user of that role might ask about a hidden object, and about what it feeds."""
    n = short(ev)
    qs = [f"What is {n}?", f"What is {ev.title}?", f"Show me {ev.evidence_id}", f"Which raw sources feed {n}?",
          f"Who owns {n}?", f"What depends on {n}?"]
    for d in downstream_visible(project, ev, role):
        qs += [f"Which raw sources feed {short(d)}?", f"What is {short(d)} and is it fresh?"]
    return list(dict.fromkeys(qs))


def names(text: str, ident: str) -> bool:
    """Whether `text` names this id as a whole (not as the start of a longer id such as food_revenue_pct)."""
    return re.search(rf"(?<![\w.]){re.escape(ident)}(?!\w|\.\w)", text) is not None


def comparable(payload: dict | str) -> str:
    """An envelope (dict or JSON) without the one field that names when each database was written."""
    env = json.loads(payload) if isinstance(payload, str) else json.loads(json.dumps(payload, default=str))
    if isinstance(env.get("recorded"), dict):
        env["recorded"].pop("ingested_at", None)
    return json.dumps(env, sort_keys=True)


def made_up(name: str) -> str:
    """A name of the same shape that no catalog holds: each letter swapped for a consonant cluster letter."""
    swap = str.maketrans("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
                         "qxzvkjqxzvkjqxzvkjqxzvkjqxQXZVKJQXZVKJQXZVKJQXZVKJQX")
    return name.translate(swap)


# --- MCP tools --------------------------------------------------------------------------------------------


class _Frozen(datetime):
    """Tools without an `at` argument read the clock: both catalogs are asked at the same instant."""

    @classmethod
    def now(cls, tz=None):
        return AT if tz else AT.replace(tzinfo=None)


def frozen_clock(monkeypatch) -> None:
    # Store.now() is the wall clock for a catalog without its own evaluation time.
    for module in ("core.answer.ask", "core.serve.mcp_tools", "core.catalog.store"):
        monkeypatch.setattr(f"{module}.datetime", _Frozen)


def _mcp_calls(ev: Evidence, asked: list[str]):
    """Every MCP tool that takes an entity or a question, aimed at one hidden object."""
    from core.serve import mcp_tools as tools
    n = short(ev)
    day = ev.valid_from or date(2025, 6, 30)
    for entity in dict.fromkeys((ev.evidence_id, ev.entity_id, n, n.replace("_", " "))):
        yield "get_definition", lambda c, w, e=entity: tools.get_definition_tool(c, w, e, day, None)[0], entity
        yield "compare_versions", lambda c, w, e=entity: tools.compare_versions_tool(c, w, e, None, None), entity
        yield "get_lineage", lambda c, w, e=entity: tools.get_lineage_tool(c, w, e, day, 10, None, "both"), entity
        yield "get_freshness", lambda c, w, e=entity: tools.get_freshness_tool(c, w, e, AT), entity
    yield "list_metrics", lambda c, w: tools.list_metrics_tool(c, w, n), n
    for q in asked:
        yield "ask", lambda c, w, q=q: tools.ask_tool(c, w, q, None, None, AT, None)[0], q


def _tool_result(body: dict) -> str:
    body = json.loads(json.dumps(body, default=str))
    if "envelope" in body:
        body["envelope"] = json.loads(comparable(body["envelope"]))
    return json.dumps(body, sort_keys=True)


def mcp_differential(full: World, world: World, role: str, hidden: list[Evidence], asked, foreign: set[str]):
    """Each tool call aimed at each hidden object gives the same result from the catalog and from the role's
    absent world, naming no foreign id; where the absent world finds neither the real name nor a made-up
    one of the same shape, the catalog answers both with the same bytes. Returns both counts."""
    from core.serve import mcp_tools as tools
    from core.serve.mcp_auth import Identity
    from core.settings.config import Settings
    who = Identity(principal="tester", role=role, resolved=f"test runs as {role}")
    full_cat = tools.Catalog(full.store, full.searcher, Settings())
    world_cat = tools.Catalog(world.store, world.searcher, Settings())
    compared = made_up_compared = 0
    for ev in hidden:
        for tool, call, arg in _mcp_calls(ev, asked(ev)):
            h, a = call(full_cat, who)[0], call(world_cat, who)[0]
            assert _tool_result(h) == _tool_result(a), (role, tool, arg)
            text = json.dumps(h, default=str)
            assert not [i for i in foreign if names(text, i)], (role, tool, arg)
            compared += 1
        for entity in dict.fromkeys((ev.evidence_id, short(ev))):
            def lineage(cat, name):
                return json.dumps(tools.get_lineage_tool(cat, who, name, AT.date(), 3, None, "both")[0])
            if '"not_found_or_not_authorized"' not in lineage(world_cat, entity):
                continue
            assert lineage(full_cat, entity) == lineage(full_cat, made_up(entity)), (role, entity)
            made_up_compared += 1
    return compared, made_up_compared


# --- the Ask page -----------------------------------------------------------------------------------------


def _page_text(at, replace: list[str]) -> str:
    """Every rendered text element of the page, with the question's own words taken out (as typed, escaped
    for Markdown, and URL-encoded in the share link)."""
    from urllib.parse import quote, quote_plus

    from streamlit.testing.v1.element_tree import Block

    from ui.safe import md
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
        for form in (md, quote_plus, quote, str):
            text = text.replace(form(r), "<NAME>")
    return re.sub(r"ingested [^\n·]+", "ingested <WHEN>", text)  # when each database file was written


def _use_db(path) -> None:
    from ui import resources
    os.environ["ASOF_DB"] = str(path)
    resources.settings.clear()


def _page(question: str, role: str, replace: list[str]) -> str:
    from streamlit.testing.v1 import AppTest
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    for key, value in {"role": role, "date_mode": "No date", "at_day": AT.date(), "at_time": time(12, 0)}.items():
        at.session_state[key] = value
    at.run()
    at.text_input(key="question").input(question)
    at.button(key="ask").click().run()
    assert not at.exception, at.exception
    return _page_text(at, replace)


def app_differential(full: World, world: World, role: str, hidden_names: list[str]) -> tuple[int, int, int]:
    """The Ask page as `role`, served from the catalog and from the role's absent world: (1) a question naming
    each hidden object renders the same in both; (2) on the catalog, it renders as the same question naming a
    made-up name of the same shape, but for the name itself, wherever the absent world answers the two alike
    (a real name's words can be read as a visible object's; that reading is the same in both catalogs and (1)
    covers it). Returns (1) and (2) counts and the pairs (2) left out."""
    from core.answer.ask import Question
    from core.answer.steward import steward_answer
    from ui import resources
    try:
        _use_db(full.store.path)
        resources._embedder(resources.settings().embed_model)[1].join()  # answers use the index, as served
        cases = []
        for n in dict.fromkeys(hidden_names):
            for template in ("Which raw sources feed {}?", "What is {}?"):
                real_q, fake_q = template.format(n), template.format(made_up(n))
                # As the page answers: a steward's view widened to its review queue (core/answer/steward.py).
                w = [steward_answer(world.store, Question(role=role, text=t, at=AT), searcher=world.searcher)[0]
                     for t in (real_q, fake_q)]
                alike = comparable(w[0].model_dump_json()).replace(n, made_up(n)) == comparable(w[1].model_dump_json())
                if template.startswith("Which") or alike:  # the second form only as a made-up pair
                    cases.append((n, real_q, fake_q, alike, template.startswith("Which")))
        hidden = {real_q: _page(real_q, role, [real_q, n]) for n, real_q, _, _, _ in cases}
        fakes = {fake_q: _page(fake_q, role, [fake_q, made_up(n)]) for n, _, fake_q, alike, _ in cases if alike}
        _use_db(world.store.path)
        absent = made = skipped = 0
        for n, real_q, fake_q, alike, against_absent in cases:
            if against_absent:
                assert hidden[real_q] == _page(real_q, role, [real_q, n]), (role, real_q)
                absent += 1
            if alike:
                assert hidden[real_q] == fakes[fake_q], (role, real_q, fake_q)
                made += 1
            else:
                skipped += 1
        return absent, made, skipped
    finally:
        os.environ.pop("ASOF_DB", None)
        resources.settings.clear()


def page_differential(full: World, world: World, role: str, texts: list[str]) -> int:
    """The Ask page for each question, served from the catalog and from the role's world: the same page."""
    from ui import resources
    try:
        _use_db(full.store.path)
        resources._embedder(resources.settings().embed_model)[1].join()  # answers use the index, as served
        hidden = {t: _page(t, role, []) for t in texts}
        _use_db(world.store.path)
        for t in texts:
            assert hidden[t] == _page(t, role, []), (role, t)
        return len(texts)
    finally:
        os.environ.pop("ASOF_DB", None)
        resources.settings.clear()


def mcp_ask_differential(full: World, world: World, role: str, texts: list[str], foreign: set[str]) -> int:
    """The MCP `ask` tool for each question, from the catalog and from the role's world: the same result."""
    from core.serve import mcp_tools as tools
    from core.serve.mcp_auth import Identity
    from core.settings.config import Settings
    who = Identity(principal="tester", role=role, resolved=f"test runs as {role}")
    full_cat = tools.Catalog(full.store, full.searcher, Settings())
    world_cat = tools.Catalog(world.store, world.searcher, Settings())
    for t in texts:
        h = tools.ask_tool(full_cat, who, t, None, None, AT, None)[0][0]
        a = tools.ask_tool(world_cat, who, t, None, None, AT, None)[0][0]
        assert _tool_result(h) == _tool_result(a), (role, t)
        assert not [i for i in foreign if names(json.dumps(h, default=str), i)], (role, t)
    return len(texts)
