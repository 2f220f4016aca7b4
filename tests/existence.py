"""Harness for the hidden-vs-absent differential on dbt projects (tests/test_existence_dbt.py and
benchmarks/existence.py).

A project is ingested with an overlay that hides objects per role (tests/fixtures/existence). For each role,
its "world" is the same catalog without anything that role may not see. A hidden object must then be
indistinguishable from one that was never there: every question gives the same answer in both.
"""
from __future__ import annotations

import json
import re
import shutil
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from core.catalog import Catalog, Evidence
from core.embed import Embedder
from core.index import index_path
from core.ingest import read_inputs
from core.publish import publish
from core.search import Searcher
from core.store import Store, write_catalog

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


@dataclass
class Project:
    name: str
    catalog: Catalog
    full: World
    worlds: dict[str, World] = field(default_factory=dict)  # per role with something hidden

    def hidden(self, role: str) -> list[Evidence]:
        return [e for e in self.catalog.evidence if role not in e.acl]


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
        only = Catalog(roles=catalog.roles, principals=catalog.principals,
                       evidence=[e for e in catalog.evidence if role in e.acl])
        project.worlds[role] = write(only, db)
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
    out = [x for x in project.catalog.evidence if role in x.acl and x.kind.value in ("model", "metric_definition")
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
