"""A freshness question about data ("is the cost of goods data up to date?") is about a source's loads. When the
question's words match several names by one word, the sources and models whose names, descriptions or columns hold
its subject are what it may mean: one such source answers it; several are offered, sources first when the question
says "data" or "table" (core/answer/ask.py _freshness_tables, core/read/intents/described.py subject_tables). The demo's
finance role was asked to choose between two metrics and a model, never offered raw_finance.cogs ("Cost of goods
per SKU"). A source a role cannot see is never offered nor hinted at: its answer is the one it gets from the catalog
without it.

On a catalog the tests write (a brewery: other names, roles and dates than the demo's), then on the demo."""
from datetime import datetime, timezone

import pytest
from builders import watched_source
from conftest import DEMO_AT, asker

from core.catalog.envelope import Behavior
from core.explain.render import render_text

AT = datetime(2028, 9, 14, 8, 0, tzinfo=timezone.utc)
ROLES = ["brewers", "cellar", "sales"]
EVERYONE = ROLES


def _source(name: str, text: str, loaded_at: str, acl: list[str]) -> list[dict]:
    return watched_source(name, acl, loaded_at, owner="Brewhouse IT (Pia Lund)", since="2026-01-01", text=text,
                          warn=12, error=36)


def _metric(name: str, title: str, formula: str, text: str, links: dict | None = None) -> dict:
    return {"evidence_id": f"metric.{name}.v1", "entity_id": f"metric.{name}", "kind": "metric_definition",
            "title": f"{title} v1", "version": "1", "authority": "authoritative", "lifecycle": "current",
            "authority_class": "semantic_registry", "valid_from": "2026-01-01", "acl": EVERYONE,
            "owner": "Brewery Finance (Jon Ek)", "links": links or {},
            "metric": {"formula": formula, "grain": "one row per batch", "unit": "ratio"}, "text": text}


# The sources' names are the loaders' shorthand; their descriptions say what an analyst calls the data. Neither
# name has the word "malt": the question's one word matches only the metrics' and the model's names.
WEIGHBRIDGE = _source("raw_silo.weighbridge", "Malt deliveries weighed at the silo, per truck.",
                      "2028-09-14T02:00:00Z", ["brewers", "cellar"])
INVOICES = _source("raw_maltster.inv", "Malt invoices received from the maltster.", "2028-09-12T20:00:00Z",
                   ["brewers"])
REST = [
    _metric("malt_yield", "Malt yield", "SUM(wort_litres) / SUM(malt_kg)", "Litres of wort per kilogram of malt.",
            {"implemented_by": ["model.fct_malt_batches.v1"]}),
    _metric("malt_price_index", "Malt price index", "AVG(price_per_tonne) / 412.0", "Malt price against the 2026 base."),
    {"evidence_id": "model.fct_malt_batches.v1", "entity_id": "model.fct_malt_batches", "kind": "model",
     "title": "fct_malt_batches", "version": "1", "authority": "authoritative", "lifecycle": "current",
     "authority_class": "dbt_manifest", "valid_from": "2026-01-01", "acl": EVERYONE, "owner": "Brewhouse IT (Pia Lund)",
     "model": {"relation": "analytics.fct_malt_batches", "grain": "one row per batch"},
     "text": "Malt used and wort produced per brewing batch."},
]
LINEAGE = {"evidence_id": "lineage.malt.v1", "entity_id": "lineage.malt", "kind": "lineage", "title": "Malt lineage",
           "version": "1", "authority": "authoritative", "lifecycle": "current", "authority_class": "dbt_manifest",
           "valid_from": "2026-01-01", "acl": ["brewers", "cellar"],
           "edges": [["source.raw_silo.weighbridge", "model.fct_malt_batches.v1"],
                     ["model.fct_malt_batches.v1", "metric.malt_yield.v1"]],
           "text": "raw_silo.weighbridge -> fct_malt_batches -> malt yield."}
# Hops: one source, but also a model named by the word that reads something else (contracts, not the picks): which
# data is meant is asked back, the source first.
HOP_PICKS = _source("raw_yard.picks", "Hop picks weighed in the hop yard.", "2028-09-14T05:00:00Z",
                    ["brewers", "cellar"])
HOPS = [
    _metric("hop_rate", "Hop rate", "SUM(hop_g) / SUM(wort_litres)", "Grams of hops per litre of wort."),
    {"evidence_id": "model.fct_hop_contracts.v1", "entity_id": "model.fct_hop_contracts", "kind": "model",
     "title": "fct_hop_contracts", "version": "1", "authority": "authoritative", "lifecycle": "current",
     "authority_class": "dbt_manifest", "valid_from": "2026-01-01", "acl": EVERYONE, "owner": "Brewhouse IT (Pia Lund)",
     "model": {"relation": "analytics.fct_hop_contracts", "grain": "one row per contract"},
     "text": "Hop supply contracts signed with growers."},
]
REST = REST + HOPS
FULL = [*WEIGHBRIDGE, *INVOICES, *HOP_PICKS, *REST, LINEAGE]
# What neither the cellar (the invoices) nor sales (both sources) may learn of.
INVOICE_MARKS = ("raw_maltster", "maltster", "invoice")
SOURCE_MARKS = INVOICE_MARKS + ("raw_silo", "weighbridge", "truck", "raw_yard", "picks")

DATA = ["is the malt data up to date?", "is the malt table stale?", "when was the malt data last loaded?",
        "is the latest malt data in?", "is the malt data fresh?"]
BARE = ["is malt fresh?", "is malt stale?"]


@pytest.fixture(scope="module")
def brewery(tmp_path_factory, embedder):
    return asker(tmp_path_factory, embedder, "brewery", ROLES, FULL, AT)


@pytest.fixture(scope="module")
def brewery_without_invoices(tmp_path_factory, embedder):
    return asker(tmp_path_factory, embedder, "brewery_noinv", ROLES, [*WEIGHBRIDGE, *HOP_PICKS, *REST, LINEAGE], AT)


@pytest.fixture(scope="module")
def brewery_without_sources(tmp_path_factory, embedder):
    return asker(tmp_path_factory, embedder, "brewery_nosrc", ROLES, REST, AT)


def _options(env) -> list[str]:
    assert env.behavior is Behavior.clarify, (env.behavior, env.entity_id, env.verdict)
    return [o.entity_id for o in env.clarify.options]


def _same(a, b) -> bool:
    return (a.model_dump_json(exclude={"catalog_revision", "evaluated_at", "index"})
            == b.model_dump_json(exclude={"catalog_revision", "evaluated_at", "index"})
            and render_text(a).replace(a.catalog_revision, "") == render_text(b).replace(b.catalog_revision, ""))


@pytest.mark.parametrize("text", DATA + BARE)
def test_the_one_source_holding_the_subject_answers(brewery, text):
    env = brewery(text, "cellar")
    assert env.behavior is Behavior.answer and env.entity_id == "source.raw_silo.weighbridge", (text, env.behavior,
                                                                                              env.entity_id)
    assert [f.source for f in env.freshness] == ["source.raw_silo.weighbridge"] and env.freshness[0].status == "pass"
    assert any("the one source you can see" in n for n in env.notes), env.notes


@pytest.mark.parametrize("text", DATA)
def test_several_sources_are_offered_first_for_data(brewery, text):
    options = _options(brewery(text, "brewers"))
    assert options[:2] == ["source.raw_maltster.inv", "source.raw_silo.weighbridge"], (text, options)
    assert "model.fct_malt_batches" in options, (text, options)


@pytest.mark.parametrize("text", BARE)
def test_several_sources_are_offered_beside_the_names(brewery, text):
    options = _options(brewery(text, "brewers"))
    assert {"source.raw_maltster.inv", "source.raw_silo.weighbridge", "model.fct_malt_batches"} <= set(options)
    assert options[0].startswith("metric."), (text, options)  # no "data" said: the names it matched lead


@pytest.mark.parametrize("text", ["is the hop data fresh?", "when was the hop table last loaded?",
                                  "is the latest hop data in?"])
def test_a_model_named_so_that_reads_other_data_is_asked_back(brewery, text):
    options = _options(brewery(text, "cellar"))
    assert options[:2] == ["source.raw_yard.picks", "model.fct_hop_contracts"], (text, options)


@pytest.mark.parametrize("text", DATA + BARE + ["is the hop data fresh?"])
def test_a_source_a_role_cannot_see_is_never_offered_nor_hinted_at(brewery, brewery_without_invoices,
                                                                   brewery_without_sources, text):
    cellar = brewery(text, "cellar")
    assert _same(cellar, brewery_without_invoices(text, "cellar")), text
    sales = brewery(text, "sales")
    assert _same(sales, brewery_without_sources(text, "sales")), text
    for env, marks in ((cellar, INVOICE_MARKS), (sales, SOURCE_MARKS)):
        shown = env.model_dump_json() + render_text(env)
        assert not [m for m in marks if m in shown.lower()], (text, env.role, [m for m in marks if m in shown.lower()])


COGS = ["is the cost of goods data up to date?", "is the cost of goods table stale?",
        "when was cost of goods data last loaded?", "is the latest cost of goods data in?",
        "is the cost of goods data fresh?", "is cost of goods stale?"]


@pytest.mark.parametrize("text", COGS)
def test_demo_finance_cost_of_goods_is_the_cogs_source(ask_demo, text):
    env = ask_demo(text, "finance", day=None, at=DEMO_AT)
    assert env.behavior is Behavior.answer and env.entity_id == "source.raw_finance.cogs", (text, env.behavior,
                                                                                            env.entity_id)
    assert env.freshness and env.freshness[0].source == "source.raw_finance.cogs"


@pytest.mark.parametrize("role", ["analyst", "marketing", "governance"])
@pytest.mark.parametrize("text", COGS)
def test_demo_other_roles_never_hear_of_cogs(ask_demo, text, role):
    env = ask_demo(text, role, day=None, at=DEMO_AT)
    shown = (env.model_dump_json() + render_text(env)).lower()
    assert "cogs" not in shown and "raw_finance" not in shown and "osprey" not in shown, (role, text)
