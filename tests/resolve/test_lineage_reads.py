"""The lineage walk reads node kinds and labels from the view's light facts, and reads in full only the metrics whose
formula names another metric: "which metrics are affected by stale data?" walks from every visible metric at once, and
on the kept 100,000-object catalog reading each start and each node in full stopped the question on its budget.

What the walk shows must not change with it: labels (a model's relation, or its id without one), the metric a formula
names walked into, a hidden input metric never named and the walk said to continue beyond the view.

On an orchard catalog the tests write (its own names, roles and dates), read without a search index."""
from datetime import date

import pytest
from visits_catalog import catalog_store

from core.catalog.access import Visible, visible
from core.resolve.lineage import upstream
from core.resolve.stale import reached_sources, walk_starts

DAY = date(2031, 4, 1)
BOTH, GROWER = ["picker", "grower"], ["grower"]
FILLERS = [f"crate_count_{i}" for i in range(24)]


def _common(acl: list[str]) -> dict:
    return {"version": "1", "authority": "authoritative", "lifecycle": "current", "valid_from": "2031-01-01",
            "acl": acl, "owner": "Orchard Data (Pia Lund)"}


def _source(name: str, acl: list[str]) -> dict:
    return {"evidence_id": f"source.{name}.table", "entity_id": f"source.{name}", "kind": "source",
            "title": f"{name} (source table)", "authority_class": "dbt_manifest", "text": f"{name} rows.", **_common(acl)}


def _model(name: str, relation: str | None) -> dict:
    return {"evidence_id": f"model.{name}.v1", "entity_id": f"model.{name}", "kind": "model", "title": name,
            "authority_class": "dbt_manifest", "model": {"relation": relation, "grain": "one row per crate"},
            "text": f"{name} table.", **_common(BOTH)}


def _metric(key: str, formula: str, model: str, acl: list[str] = BOTH, mentions: dict | None = None) -> dict:
    return {"evidence_id": f"metric.{key}.v1", "entity_id": f"metric.{key}", "kind": "metric_definition",
            "title": f"{key.replace('_', ' ').capitalize()} v1", "authority_class": "semantic_registry",
            "links": {"implemented_by": [f"model.{model}.v1"]}, "mentions": mentions or {},
            "metric": {"formula": formula, "grain": "one row per day", "unit": "ratio"}, "text": f"{key} per day.",
            **_common(acl)}


def _edges(key: str, acl: list[str], edges: list[list[str]]) -> dict:
    return {"evidence_id": f"lineage.{key}.v1", "entity_id": f"lineage.{key}", "kind": "lineage",
            "title": f"{key} lineage", "authority_class": "dbt_manifest", "edges": edges, "text": f"{key} lineage.",
            **_common(acl)}


ORCHARD = [
    _source("raw_press.batches", BOTH), _source("raw_scale.weights", BOTH), _source("raw_lab.brix", GROWER),
    _model("fct_pressings", "orchard.fct_pressings"), _model("fct_harvest", None),
    _metric("juice_yield", "SUM(litres) / SUM(kg)", "fct_pressings"),
    # Names a visible metric: its walk continues into juice_yield's.
    _metric("press_margin", "juice_yield - SUM(cost_eur)", "fct_harvest"),
    # Names a metric only the grower sees: the picker reads the formula with that name replaced.
    _metric("brix_index", "AVG(brix)", "fct_harvest", GROWER),
    _metric("sweetness_gap", "brix_index * 2", "fct_harvest", mentions={"brix_index": "metric.brix_index"}),
    *[_metric(name, "COUNT(crate_id)", "fct_pressings") for name in FILLERS],
    _edges("orchard", BOTH, [["source.raw_press.batches", "model.fct_pressings.v1"],
                             ["source.raw_scale.weights", "model.fct_harvest.v1"]]),
    # Everyone may read that the harvest model has one more input; only the grower may see which.
    _edges("lab", BOTH, [["source.raw_lab.brix", "model.fct_harvest.v1"]]),
]


@pytest.fixture(scope="module")
def orchard(tmp_path_factory):
    return catalog_store(tmp_path_factory.mktemp("orchard") / "catalog",
                         {"settings": {"evaluation_time": "2031-04-01T09:00:00Z"}, "roles": [{"name": r} for r in BOTH]},
                         ORCHARD)


def _starts(view: Visible) -> dict[str, list[str]]:
    metrics = [m for m in view.of_kinds(["metric_definition"]) if m.governs]
    return {m.evidence_id: walk_starts(m, DAY, view) for m in metrics}


def test_the_listing_walk_reads_only_metrics_that_name_another(orchard, monkeypatch):
    view = visible(orchard, "picker")
    starts = _starts(view)
    _ = view.facts  # per-view indexes, built once per process (core/answer/warm.py)
    view._objects.clear()  # as on a large catalog, where the view's memory of read objects has long turned over
    parsed: list[str] = []
    parse = Visible._parsed

    def counted(self, docs):
        out = parse(self, docs)
        parsed.extend(e.evidence_id for e in out)
        return out
    monkeypatch.setattr(Visible, "_parsed", counted)
    reach = reached_sources(view, starts, DAY)
    # The two metrics whose formula names another, and what the walk into juice_yield reads of it; no filler metric,
    # no model, no source, no lineage object is parsed for its kind or label.
    assert {p for p in parsed if p.startswith("metric.crate_count")} == set(), parsed
    assert set(parsed) <= {"metric.press_margin.v1", "metric.sweetness_gap.v1", "metric.juice_yield.v1",
                           "model.fct_pressings.v1"}, parsed
    assert reach["metric.press_margin.v1"].sources == ("source.raw_press.batches", "source.raw_scale.weights")
    assert reach["metric.crate_count_3.v1"].sources == ("source.raw_press.batches",)
    gap = reach["metric.sweetness_gap.v1"]
    assert gap.sources == ("source.raw_scale.weights",) and gap.beyond_view


@pytest.mark.parametrize("role", BOTH)
def test_a_definition_answer_walk_shows_the_same_labels_and_inputs(orchard, role):
    view = visible(orchard, role)
    metric = next(m for m in view.entity_objects("metric.press_margin"))
    walk = upstream(view, walk_starts(metric, DAY, view), DAY)
    labels = {n.id: (n.kind, n.label) for n in walk.nodes}
    assert labels["model.fct_pressings.v1"] == ("model", "orchard.fct_pressings")  # its relation
    assert labels["model.fct_harvest.v1"] == ("model", "fct_harvest")  # no relation: its id
    assert labels["metric.juice_yield.v1"] == ("metric", "juice_yield")  # named in the formula, walked into
    assert labels["source.raw_press.batches"] == ("source", "raw_press.batches")
    assert sorted(walk.raw_sources) == (["source.raw_lab.brix"] if role == "grower" else []) + [
        "source.raw_press.batches", "source.raw_scale.weights"]
    assert walk.continues_beyond_view is (role == "picker")


def test_a_hidden_input_metric_is_never_named_in_the_walk(orchard):
    view = visible(orchard, "picker")
    metric = next(m for m in view.entity_objects("metric.sweetness_gap"))
    walk = upstream(view, walk_starts(metric, DAY, view), DAY)
    shown = walk.model_dump_json()
    assert "brix" not in shown, shown
    assert walk.continues_beyond_view and sorted(walk.raw_sources) == ["source.raw_scale.weights"]
    grower = visible(orchard, "grower")
    walk = upstream(grower, walk_starts(next(iter(grower.entity_objects("metric.sweetness_gap"))), DAY, grower), DAY)
    assert {n.id for n in walk.nodes} >= {"metric.brix_index.v1", "source.raw_lab.brix"}
