"""dbt artifacts, OpenLineage events and the governance overlay, against the real artifacts copied into tests/fixtures/realworld."""
import json
import shutil
from datetime import date, datetime

import pytest
import yaml
from conftest import ROOT, cli

from core.answer.ask import Question, ask
from core.catalog.access import Visible, visible
from core.catalog.store import Store
from core.explain.render import render_text
from core.ingest.dbt import dbt_evidence, read_target
from core.ingest.ingest import read_inputs
from core.ingest.load import CatalogError
from core.ingest.openlineage import read_openlineage

REAL = ROOT / "tests" / "fixtures" / "realworld"
PROJECTS = ["jaffle-shop", "jaffle-sl-template", "dbt-project-evaluator-versions"]
OVERLAY = ROOT / "data" / "dbt" / "jaffle-shop.overlay.yml"
EXAMPLE_OL = ROOT / "data" / "dbt" / "openlineage"


def _json(project, name):
    return json.loads((REAL / project / f"{name}.json").read_text())


@pytest.fixture(scope="module")
def dbs(tmp_path_factory):
    """Each real project ingested through the CLI with no overlay: a first run must just work."""
    out = {}
    for p in PROJECTS:
        db = tmp_path_factory.mktemp(p) / f"{p}.duckdb"
        r = cli("ingest", "--dbt", str(REAL / p), "--db", str(db))
        assert r.returncode == 0, r.stderr
        out[p] = Store(db)
    return out


def _by_class(store: Store, cls: str) -> list:
    return [e for e in store.all_evidence_for_review() if e.authority_class == cls]


@pytest.mark.parametrize("project", ["jaffle-shop", "jaffle-sl-template"])
def test_counts_match_the_manifests(dbs, project):
    m, sm = _json(project, "manifest"), _json(project, "semantic_manifest")
    store = dbs[project]
    assert len(_by_class(store, "dbt_model")) == sum(n["resource_type"] == "model" for n in m["nodes"].values())
    assert len(_by_class(store, "dbt_seed")) == sum(n["resource_type"] == "seed" for n in m["nodes"].values())
    assert len(_by_class(store, "dbt_source")) == len(m["sources"])
    assert len(_by_class(store, "dbt_semantic_model")) == len(sm["semantic_models"])
    assert len(_by_class(store, "dbt_metric")) == len(sm["metrics"])
    assert {r.name for r in store.roles()} == {"analyst"}


def _roots(parent_map: dict, start: str) -> set[str]:
    seen, stack, roots = set(), [start], set()
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        parents = [p for p in parent_map.get(node, []) if not p.startswith(("test.", "unit_test."))]
        if not parents and node != start:
            roots.add(node)
        stack += parents
    return roots


def _metric_cases():
    for p in ("jaffle-shop", "jaffle-sl-template"):
        for uid in _json(p, "manifest")["metrics"]:
            yield p, uid


@pytest.mark.parametrize("project,uid", list(_metric_cases()), ids=[u for _, u in _metric_cases()])
def test_metric_raw_sources_equal_the_parent_map_closure(dbs, project, uid):
    store = dbs[project]
    metric = visible(store, "analyst").by_ids([uid])[0]
    env = ask(store, Question(role="analyst", text="Which raw tables feed it?", entity=metric.entity_id))
    assert env.behavior.value == "answer", env.verdict
    assert env.selected[0].evidence_id == uid
    assert set(env.lineage.raw_sources) == _roots(_json(project, "manifest")["parent_map"], uid)


def test_revenue_raw_tables_on_jaffle_shop(dbs):
    r = cli("ask", "--db", str(dbs["jaffle-shop"].path), "--role", "analyst", "--json",
            "Which raw tables feed revenue?")
    env = json.loads(r.stdout)
    assert env["behavior"] == "answer" and env["selected"][0]["evidence_id"] == "metric.jaffle_shop.revenue"
    assert set(env["lineage"]["raw_sources"]) == {f"source.jaffle_shop.ecom.raw_{t}"
                                                  for t in ("items", "orders", "products", "supplies")}
    assert env["selected"][1]["evidence_id"] == "model.jaffle_shop.order_items"


def test_metric_types_become_structured_definitions(dbs):
    view = visible(dbs["jaffle-shop"], "analyst")
    formula = {e.evidence_id.split(".")[-1]: e.metric.formula for e in view.all() if e.metric}
    assert formula["revenue"] == "sum(product_price)"
    assert formula["food_revenue_pct"] == "food_revenue / revenue"
    assert formula["order_gross_profit"] == "revenue - cost where revenue, cost = order_cost"
    assert "offset 1 month" in formula["revenue_growth_mom"]
    assert formula["cumulative_revenue"] == "cumulative sum(product_price) over all time"
    filtered = next(e for e in view.all() if e.evidence_id == "metric.jaffle_shop.large_orders")
    assert filtered.metric.filters == ["{{ Dimension('order_id__order_total_dim') }} >= 20"]


def test_freshness_matches_sources_json(dbs):
    results = _json("jaffle-sl-template", "sources")["results"]
    assert results
    store = dbs["jaffle-sl-template"]
    for res in results:
        at = datetime.fromisoformat(res["snapshotted_at"])
        entity = visible(store, "analyst").by_ids([res["unique_id"]])[0].entity_id
        env = ask(store, Question(role="analyst", text="Is it fresh?", entity=entity, at=at))
        status = {f.source: f.status for f in env.freshness}
        assert status[entity] == res["status"], env.verdict


def test_model_versions_are_labelled_and_latest_never_decides(dbs):
    store = dbs["dbt-project-evaluator-versions"]
    view = visible(store, "analyst")
    base = "model.dbt_project_evaluator_integration_tests.int_model_5"
    v1, v2, v3 = (view.by_ids([f"{base}.v{i}"])[0] for i in (1, 2, 3))
    assert v1.lifecycle.value == "deprecated" and "deprecated from 2024-01-01" in v1.text
    assert "latest_version" in v2.text and v2.lifecycle.value == "current"
    assert v3.lifecycle.value == "draft" and "pre-release" in v3.text
    assert v1.entity_id == v2.entity_id == v3.entity_id
    env = ask(store, Question(role="analyst", text="Which version of int_model_5 applies?", day=date(2025, 6, 30)))
    assert env.behavior.value == "answer" and env.selected[0].evidence_id == f"{base}.v2"
    env = ask(store, Question(role="analyst", text="Which version of int_model_5 applies?", day=date(2023, 6, 30)))
    assert env.behavior.value == "human_review", "before v1's deprecation both v1 and v2 are available"
    assert {s.evidence_id for s in env.selected} == {f"{base}.v1", f"{base}.v2"}


def test_overlay_interval_decides_versions_not_latest_version(tmp_path):
    overlay = tmp_path / "overlay.yml"
    overlay.write_text(yaml.safe_dump({"objects": {"model:int_model_5": {"versions": {
        "1": {"valid_from": "2022-01-01", "valid_through": "2023-12-31"},
        "2": {"valid_from": "2024-01-01", "valid_through": "2025-12-31"},
        "3": {"valid_from": "2026-01-01", "lifecycle": "current"}}}}}))
    catalog, _ = read_inputs(tmp_path / "x.duckdb", dbt=REAL / "dbt-project-evaluator-versions", overlay=overlay)
    db = tmp_path / "x.duckdb"
    from core.catalog.store import write_catalog
    write_catalog(catalog, db)
    store = Store(db)
    base = "model.dbt_project_evaluator_integration_tests.int_model_5"
    for day, want in ((date(2023, 6, 30), "v1"), (date(2025, 6, 30), "v2"), (date(2026, 6, 30), "v3")):
        env = ask(store, Question(role="analyst", text="Which version of int_model_5 applies?", day=day))
        assert env.selected[0].evidence_id == f"{base}.{want}", (day, env.verdict)


def test_every_openlineage_file_loads_or_is_reported():
    folder = REAL / "openlineage"
    read = read_openlineage(folder)
    files = {str(p) for p in folder.glob("*.json")}
    assert set(read.files) == files
    skipped = {s.file.split(" [")[0] for s in read.skipped}
    assert not skipped, read.skipped  # every real sample is a valid event
    # The folder's README is no event file: named as not read, never dropped silently (issue 46 item 6).
    assert [s.file.rsplit("/", 1)[-1] for s in read.not_read] == ["README.md"]
    assert read.events == 17 + 4  # 17 one-event files and one array of 4
    # The dbt fixture's run ids are placeholders: loaded, and noted, since the spec asks for UUIDs.
    noted = {w.file.split(" [")[0].rsplit("/", 1)[-1] for w in read.warnings}
    assert noted == {"ol__dbt_bigquery_successful_run_ol_events.ARRAY.json", "compat__simple_run_event.json"}


def _facet_edges(event):
    for out in event.get("outputs") or []:
        for col, spec in ((out.get("facets") or {}).get("columnLineage") or {}).get("fields", {}).items():
            for f in spec.get("inputFields") or []:
                yield (f"dataset:{f['namespace']}/{f['name']}", f"dataset:{out['namespace']}/{out['name']}",
                       f["field"], col)


def test_column_edges_match_the_facets():
    folder = REAL / "openlineage"
    read = read_openlineage(folder)
    edges = {tuple(e) for ev in read.evidence if ev["kind"] == "lineage" for e in ev["edges"] if len(e) == 4}
    expected = set()
    for path in folder.glob("*.json"):
        data = json.loads(path.read_text())
        for event in data if isinstance(data, list) else [data]:
            expected |= set(_facet_edges(event))
    assert expected and edges == expected
    table = {tuple(e) for ev in read.evidence if ev["kind"] == "lineage" for e in ev["edges"] if len(e) == 2}
    assert ("dataset:gs://mock-bucket/test.csv", "dataset:bigquery/mock-project.test.upload") in table


def test_malformed_event_is_reported_and_the_rest_loads(tmp_path):
    good = json.loads((REAL / "openlineage" / "compat__simple_run_event.json").read_text())
    (tmp_path / "a.json").write_text(json.dumps(good))
    (tmp_path / "b.json").write_text("{not json")
    (tmp_path / "c.json").write_text(json.dumps([good, {"eventTime": "x", "run": {"runId": "r"}, "job": {}},
                                                 {**good, "run": {}}, {**good, "inputs": [{"name": "t"}]}]))
    read = read_openlineage(tmp_path)
    assert read.events == 2
    reasons = {s.file.rsplit("/", 1)[-1]: s.reason for s in read.skipped}
    assert reasons["b.json"].startswith("not JSON")
    assert reasons["c.json [event 1]"] == "job needs namespace and name"
    assert reasons["c.json [event 2]"] == "run needs a runId"
    assert reasons["c.json [event 3]"] == "inputs[0] needs namespace and name"
    assert any(e["kind"] == "lineage" for e in read.evidence), "the good events still load"


# --- overlay, documents, column lineage, re-ingest ---------------------------------------------------------


@pytest.fixture(scope="module")
def governed(tmp_path_factory):
    db = tmp_path_factory.mktemp("gov") / "js.duckdb"
    r = cli("ingest", "--dbt", str(REAL / "jaffle-shop"), "--overlay", str(OVERLAY), "--openlineage",
            str(EXAMPLE_OL), "--db", str(db))
    assert r.returncode == 0, r.stderr
    return db


def test_overlay_history_acl_aliases_and_documents(governed):
    store = Store(governed)
    env = ask(store, Question(role="analyst", text="What was sales on 2024-06-30?"))
    assert env.selected[0].evidence_id == "metric.jaffle_shop.revenue.v1"
    assert env.selected[0].metric.formula == "sum(order_total)"
    env = ask(store, Question(role="analyst", text="The old wiki says revenue includes tax. What is revenue on 2026-03-31?"))
    assert env.selected[0].evidence_id == "metric.jaffle_shop.revenue"
    labels = {c.evidence_id: c.label for c in env.conflicts}
    assert labels == {"wiki.revenue.2024": "SUPERSEDED", "draft.revenue.net_of_refunds": "DRAFT"}
    hidden = ask(store, Question(role="analyst", text="What is order cost?"))
    assert "metric.jaffle_shop.order_cost" not in hidden.model_dump_json()
    shown = ask(store, Question(role="finance", text="What is order cost?"))
    assert shown.selected[0].evidence_id == "metric.jaffle_shop.order_cost"
    # Lineage into a finance-only metric is finance-only too.
    edges = Visible(store, "analyst").column_edges(["metric.jaffle_shop.order_cost"], None)
    assert not edges and "metric.jaffle_shop.order_cost" in Store(governed).hidden_ids("analyst", {"metric.jaffle_shop.order_cost"})


def test_column_lineage_answer(governed):
    store = Store(governed)
    env = ask(store, Question(role="analyst", text="Where does `product_price` in revenue come from on 2026-03-31?"))
    c = env.columns
    assert c.found_in == "model.jaffle_shop.order_items"
    assert c.raw_columns == ["source.jaffle_shop.ecom.raw_products.price"]
    assert [(h.downstream, h.upstream) for h in c.hops] == [
        ("model.jaffle_shop.order_items", "model.jaffle_shop.stg_products"),
        ("model.jaffle_shop.stg_products", "source.jaffle_shop.ecom.raw_products")]
    env = ask(store, Question(role="analyst", text="Where does `customer_name` in customers come from?"))
    assert env.columns.hops == [] and "No column-level lineage records `customer_name`" in env.columns.detail
    # Typed without backticks, the same column; the text output shows each hop.
    for text in ("column lineage for product_price in revenue on 2026-03-31",
                 "where does the product_price column of order_items come from?",
                 "where does product_price in revenue come from on 2026-03-31?"):
        env = ask(store, Question(role="analyst", text=text))
        assert env.columns and env.columns.column == "product_price", text
        assert env.columns.raw_columns == ["source.jaffle_shop.ecom.raw_products.price"], text
    assert "source.jaffle_shop.ecom.raw_products.price → model.jaffle_shop.stg_products.product_price" in render_text(env)


@pytest.mark.parametrize("text,entity", [
    ("what is the raw orders source?", "source.ecom.raw_orders"),
    ("what is the raw_orders seed?", "seed.raw_orders"),
    ("what is the orders model?", "model.orders"),
    ("orders metric formula", "metric.orders"),
])
def test_a_kind_word_picks_among_objects_of_the_same_name(governed, text, entity):
    """jaffle-shop has a source and a seed called raw_orders, and a model and a metric called orders."""
    env = ask(Store(governed), Question(role="analyst", text=text))
    assert (env.behavior.value, env.entity_id) == ("answer", entity), env.verdict


def test_only_table_lineage_is_said_plainly(tmp_path):
    db = tmp_path / "js.duckdb"
    assert cli("ingest", "--dbt", str(REAL / "jaffle-shop"), "--db", str(db)).returncode == 0
    r = cli("ask", "--db", str(db), "--role", "analyst", "--explain",
            "Where does `product_price` in revenue come from?")
    assert "Only table-level lineage is recorded here" in r.stdout
    assert "source.jaffle_shop.ecom.raw_products" in r.stdout


def test_reingest_is_incremental_and_acl_changes_take_effect(tmp_path):
    db = tmp_path / "js.duckdb"
    overlay = tmp_path / "overlay.yml"
    shutil.copytree(OVERLAY.parent / "docs", tmp_path / "docs")
    overlay.write_text(OVERLAY.read_text())
    first = cli("ingest", "--dbt", str(REAL / "jaffle-shop"), "--overlay", str(overlay), "--db", str(db))
    assert first.returncode == 0, first.stderr
    again = cli("ingest", "--dbt", str(REAL / "jaffle-shop"), "--overlay", str(overlay), "--db", str(db))
    assert "0 embedded" in again.stdout and "0 added, 0 changed, 0 with new permissions, 0 removed" in again.stdout
    data = yaml.safe_load(overlay.read_text())
    data["objects"]["metric:food_orders"] = {"acl": ["finance"]}
    del data["objects"]["metric:order_cost"]
    overlay.write_text(yaml.safe_dump(data))
    before = Store(db)
    assert ask(before, Question(role="analyst", text="What is food orders?")).behavior.value == "answer"
    first_seen = _recorded(before)
    before.close()
    third = cli("ingest", "--dbt", str(REAL / "jaffle-shop"), "--overlay", str(overlay), "--db", str(db))
    assert "0 embedded" in third.stdout, "a permission change re-embeds nothing"
    assert "0 changed" in third.stdout and "with new permissions" in third.stdout
    after = Store(db)
    assert ask(after, Question(role="analyst", text="What is food orders?")).behavior.value == "not_found_or_not_authorized"
    assert ask(after, Question(role="analyst", text="What is order cost?")).behavior.value == "answer"
    assert _recorded(after) == first_seen, "first appearance survives re-ingests"


def _recorded(store: Store) -> dict:
    return dict(store.con.execute("SELECT evidence_id, recorded_at FROM evidence "
                                  "WHERE evidence_id LIKE 'metric.%'").fetchall())


@pytest.mark.parametrize("bad,field", [
    ({"objects": {"metric:no_such_metric": {"acl": ["analyst"]}}}, "objects.metric:no_such_metric"),
    ({"objects": {"metric:revenue": {"colour": "red"}}}, "objects.metric:revenue.colour"),
    ({"objects": {"metric:revenue": {"acl": ["nobody"]}}}, "acl"),
])
def test_bad_overlay_names_file_object_and_field_and_writes_nothing(tmp_path, bad, field):
    overlay = tmp_path / "overlay.yml"
    overlay.write_text(yaml.safe_dump(bad))
    db = tmp_path / "js.duckdb"
    r = cli("ingest", "--dbt", str(REAL / "jaffle-shop"), "--overlay", str(overlay), "--db", str(db))
    assert r.returncode == 2 and field in r.stderr and not db.exists()
    assert str(overlay) in r.stderr or "manifest.json" in r.stderr


def test_missing_manifest_is_a_clear_error(tmp_path):
    with pytest.raises(CatalogError) as exc:
        read_target(tmp_path)
    assert "no manifest.json" in str(exc.value)


def test_dbt_reader_does_not_depend_on_optional_artifacts(tmp_path):
    shutil.copy(REAL / "jaffle-shop" / "manifest.json", tmp_path / "manifest.json")
    objs = dbt_evidence(read_target(tmp_path))
    assert sum(o["authority_class"] == "dbt_metric" for o in objs) == 19  # from the manifest's own metrics


@pytest.mark.parametrize("project", PROJECTS)
def test_every_project_ingests_with_its_shipped_overlay(tmp_path, project):
    overlay = ROOT / "data" / "dbt" / f"{project}.overlay.yml"
    db = tmp_path / "x.duckdb"
    r = cli("ingest", "--dbt", str(REAL / project), "--overlay", str(overlay), "--db", str(db))
    assert r.returncode == 0, r.stderr
    store = Store(db)
    assert "governance" in {role.name for role in store.roles()}
    # The steward's governance queue and every role's view read the ingested project.
    assert Visible(store, "analyst").count > 50


def test_column_trace_stops_at_objects_the_role_may_not_see(tmp_path):
    data = yaml.safe_load(OVERLAY.read_text())
    data["objects"]["source:ecom.raw_products"] = {"acl": ["finance", "governance"]}
    data.pop("documents")
    overlay = tmp_path / "overlay.yml"
    overlay.write_text(yaml.safe_dump(data))
    db = tmp_path / "js.duckdb"
    r = cli("ingest", "--dbt", str(REAL / "jaffle-shop"), "--overlay", str(overlay), "--openlineage",
            str(EXAMPLE_OL), "--db", str(db))
    assert r.returncode == 0, r.stderr
    store = Store(db)
    q = "Where does `product_price` in revenue come from on 2026-03-31?"
    analyst = ask(store, Question(role="analyst", text=q))
    assert analyst.columns.raw_columns == ["model.jaffle_shop.stg_products.product_price"]
    assert "raw_products" not in analyst.model_dump_json()
    finance = ask(store, Question(role="finance", text=q))
    assert finance.columns.raw_columns == ["source.jaffle_shop.ecom.raw_products.price"]


def test_malformed_overlay_yaml_names_the_line(tmp_path):
    overlay = tmp_path / "overlay.yml"
    overlay.write_text("objects:\n  metric:revenue: [unclosed\n")
    db = tmp_path / "js.duckdb"
    r = cli("ingest", "--dbt", str(REAL / "jaffle-shop"), "--overlay", str(overlay), "--db", str(db))
    assert r.returncode == 2 and f"{overlay}: malformed YAML at line 3" in r.stderr and not db.exists()
