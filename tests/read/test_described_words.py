"""The word index a question naming nothing visible is matched against (core/read/intents/described.py): which
visible entities hold each word, split into words in SQL for whole views (Visible.described_tokens) and in Python
for the rows SQL cannot split alike, and each entity's own words read only when a question scores it.

For every role of the demo, a dbt project and a lighthouse trust's catalog written here (curly and straight
apostrophes, characters Python lower-cases into ASCII, a formula naming a hidden model, number words, identifiers
in prose): the index holds, word for word and entity for entity, what the Python tokenizer finds in the rows the role
may read; the table a description names, and the runner-up, are the ones scoring every visible table gives; and a
word only a hidden object uses is held by nothing."""
from __future__ import annotations

from datetime import datetime, timezone

import pytest
from conftest import DEMO, ROOT
from visits_catalog import write_yaml_catalog

from core.answer.ask import Question, ask
from core.catalog.access import visible
from core.catalog.store import Store, write_catalog
from core.catalog.text import STOPWORDS
from core.ingest.ingest import read_inputs
from core.ingest.load import load_catalog
from core.read.intents import described
from core.read.intents.described import _column_words, _stem, _text_words

JAFFLE = ROOT / "tests" / "fixtures" / "realworld" / "jaffle-sl-template"
JAFFLE_OVERLAY = ROOT / "tests" / "fixtures" / "existence" / "jaffle-sl-template.overlay.yml"
AT = datetime(2027, 3, 1, 9, 0, tzinfo=timezone.utc)
ROLES = ["keeper", "visitor"]


def _table(kind: str, name: str, text: str, columns: list[str], acl=ROLES, **kw) -> dict:
    out = {"evidence_id": f"{kind}.{name}.v1", "entity_id": f"{kind}.{name}", "kind": kind, "title": name,
           "version": "1", "authority": "authoritative", "lifecycle": "current", "authority_class": "dbt_manifest",
           "valid_from": "2025-01-01", "acl": acl, "text": text, **kw}
    if kind == "model":
        out["model"] = {"relation": f"trust.{name}", "columns": columns}
    return out


def _metric(name: str, formula: str, acl: list[str], **kw) -> dict:
    return {"evidence_id": f"metric.{name}.v1", "entity_id": f"metric.{name}", "kind": "metric_definition",
            "title": name.replace("_", " ").title(), "version": "1", "authority": "authoritative",
            "lifecycle": "current", "authority_class": "semantic_registry", "valid_from": "2025-01-01", "acl": acl,
            "metric": {"formula": formula}, "text": f"Computed as {formula}.", **kw}


LIGHTHOUSE = [
    _table("model", "lamp_hours", "One row per lamp and night: hours the lamp burned, flashing pattern and lens.",
           ["lamp_id", "night_date", "hours_burned", "flash_pattern"]),
    _table("model", "keeper_rota", "The keeper\u2019s rota: who tends which light, week by week (visitor's desk "
           "excluded).", ["keeper_id", "week_start", "light_id"]),
    _table("model", "pier_cafe", "Caf\u00e9 receipts from the \u0130skele pier, chilled at 4\u212a, one row per "
           "receipt.", ["receipt_id", "amount_eur"], aliases=["\u0130skele caf\u00e9", "pier kiosk"]),
    _table("model", "foghorn_soundings", "Foghorn soundings logged by the keepers in dense fog.",
           ["sounding_id", "decibels"], acl=["keeper"]),
    _table("model", "storm_log", "Storm nights, read from lamp_hours: one row per storm.", ["storm_id", "night_date"]),
    _metric("foghorn_blasts", "SUM(blasts)", ["keeper"]),
    # Its formula names the hidden metric: generated text, which the visitor reads with that name taken out.
    _metric("storm_alarm_rate", "foghorn_blasts / COUNT(storm_id)", ROLES,
            mentions={"foghorn_blasts": "metric.foghorn_blasts.v1"}),
    _table("source", "tide_gauge", "Raw tide gauge readings, two per hour, from the harbour mouth.", []),
    _table("source", "visitor_tickets", "Raw ticket scans at the visitor gate: one scan per ticket.", []),
]


@pytest.fixture(scope="module")
def stores(tmp_path_factory) -> dict[str, tuple[Store, list[str]]]:
    root = tmp_path_factory.mktemp("described")
    out = {}
    for name, (catalog, _) in {
            "demo": (load_catalog(DEMO), None),
            "jaffle": read_inputs(root / "jaffle.duckdb", dbt=JAFFLE, overlay=JAFFLE_OVERLAY),
            "lighthouse": (load_catalog(write_yaml_catalog(root / "lighthouse", ROLES, LIGHTHOUSE, AT)), None),
    }.items():
        write_catalog(catalog, root / f"{name}.duckdb")
        out[name] = Store(root / f"{name}.duckdb"), catalog.role_names
    return out


def _python_bags(view) -> dict[str, set[str]]:
    """Each visible topic entity's words as the Python tokenizer reads the role's rows (how the index was built
    before it was split in SQL): its names, then every title, description, alias and column of its objects."""
    rows: dict[str, list] = {}
    for row in view.described_rows():
        rows.setdefault(row[0], []).append(row)
    bags = {}
    for eid, ent in view.entities.items():
        if not ent.is_topic:
            continue
        bag = {_stem(w) for n in ent.names for w in n}
        for _, title, description, aliases, columns in rows.get(eid, []):
            for text in (title, description, *aliases):
                bag.update(_text_words(text)[0])
            for column in columns:
                bag.update(_column_words(column))
        bags[eid] = bag - STOPWORDS
    return bags


def _role_views(stores, name: str):
    """(role, its view, its entities' words as the Python tokenizer reads them) for every role of a catalog."""
    store, roles = stores[name]
    for role in roles:
        view = visible(store, role)
        yield role, view, _python_bags(view)


def _tables(view, bags) -> list[str]:
    return sorted(e for e in bags if view.entities[e].role in ("model", "source"))


def _index(view) -> dict[str, set[str]]:
    b = described._bags(view)
    return {w: {b.ids[i] for i in b.holding(w)} for w in b.rows}


@pytest.mark.parametrize("name", ["demo", "jaffle", "lighthouse"])
def test_the_index_holds_what_the_python_tokenizer_reads(stores, name):
    for role, view, bags in _role_views(stores, name):
        holders: dict[str, set[str]] = {}
        for eid, bag in bags.items():
            for w in bag:
                holders.setdefault(w, set()).add(eid)
        assert _index(view) == holders, role
        for eid, bag in bags.items():
            assert described.entity_words(view, eid) == bag, (role, eid)


def test_rows_sql_cannot_split_alike_are_read_in_python(stores):
    store, _ = stores["lighthouse"]
    keeper, visitor = visible(store, "keeper"), visible(store, "visitor")
    index = _index(visitor)
    # "keeper’s" and "visitor's" lose their clitic; "İskele" lower-cases to "i̇skele" ("i", "skele"), 4K to "4k".
    assert {"keeper", "visitor", "skele", "4k", "caf", "kiosk"} <= set(index)
    assert "model.keeper_rota" in index["keeper"] and "model.pier_cafe" in index["4k"]
    assert "s" not in index or "model.keeper_rota" not in index["s"]
    # A word only hidden objects use is held by nothing the visitor can see, also where a visible formula names
    # one of them: the visitor reads that name taken out.
    assert "decibel" not in index and "foghorn" not in index and "blast" not in index
    assert "metric.storm_alarm_rate" in index["alarm"]
    assert {"model.foghorn_soundings", "metric.foghorn_blasts", "metric.storm_alarm_rate"} <= _index(keeper)["foghorn"]


def _scored(view, bags, asked: list[str]) -> tuple[tuple[float, str], tuple[float, str | None]]:
    """The best table and the runner-up as scoring every visible table that holds an asked word gives them (ties by
    id), the runner-up else the first other table by id, at 0."""
    tables = _tables(view, bags)
    holding = [e for e in tables if bags[e] & set(asked)]
    scored = sorted(((described.coverage(view, e, asked), e) for e in holding), key=lambda x: (-x[0], x[1]))
    others = [e for e in tables if e not in holding]
    runner_up = scored[1] if len(scored) > 1 else (0.0, others[0] if others else None)
    return scored[0], runner_up


@pytest.mark.parametrize("name", ["demo", "jaffle", "lighthouse"])
def test_the_table_a_description_names_is_the_best_of_every_table_scored(stores, name):
    for role, view, bags in _role_views(stores, name):
        tables = _tables(view, bags)
        # Questions made of each table's own words, in its order and reversed (pairs said and not said), and
        # words shared by many tables.
        said = [sorted(bags[e] - {"v1", "v2"})[:3] for e in tables]
        questions = [f"which table has {' '.join(ws)}?" for ws in said if len(ws) > 1]
        questions += [f"which table has {' '.join(reversed(ws))}?" for ws in said if len(ws) > 1]
        questions += ["which table has one row per night?", "the customer overview data mart",
                      "which table has quantum flux readings?"]
        checked = 0
        for q in questions:
            asked = described.question_words(q)
            if len(asked) < described.MIN_WORDS or not any(bags[e] & set(asked) for e in tables):
                assert described.described_entity(q, view) is None, (role, q)
                continue
            (best, eid), (nxt, nid) = _scored(view, bags, asked)
            got = described.described_entity(q, view)
            assert (got.entity_id, got.coverage, got.next_id, got.next_coverage) == (eid, best, nid, nxt), (role, q)
            checked += 1
        assert checked >= len(tables), role


def test_a_table_described_in_words_is_answered_for_the_role_that_may_see_it(stores):
    store, _ = stores["lighthouse"]
    for role, shown in (("keeper", True), ("visitor", False)):
        env = ask(store, Question(role=role, text="which table holds the decibels of foghorn soundings?", at=AT))
        assert ("foghorn_soundings" in env.model_dump_json()) is shown, role
