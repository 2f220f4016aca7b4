"""Fuzzing the readers and the question parser: any input gives a clear error or a normal result.

Hypothesis mutates valid inputs (a field replaced by a value of another type, a key dropped, a huge
number or string, NaN, a date at the calendar's ends, look-alike ids, truncation, bytes that are not
UTF-8) and checks that every reader returns normally or raises CatalogError with problems naming a
file; through the CLI, every ingest exits 0 or 2 and a refused ingest leaves the database and the
index byte-identical. The example counts keep the file near a minute on a busy 2-core machine;
ASOF_FUZZ_SCALE=10 runs ten times as many.
"""
import copy
import hashlib
import json
import os
import shutil
from pathlib import Path

import pytest
import yaml
from conftest import DEMO, cli
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from core.ingest.ingest import read_inputs
from core.ingest.load import CatalogError, load_catalog
from core.ingest.openlineage import read_openlineage
from core.read.dates.written import find_dates, parse_period
from core.read.intents.intent import parse_intent

SCALE = float(os.environ.get("ASOF_FUZZ_SCALE", "1"))


def fuzz(n: int):
    # No shrinking by default: it can take minutes, and CI time is bounded; ASOF_FUZZ_SHRINK=1 turns it on.
    phases = list(Phase) if os.environ.get("ASOF_FUZZ_SHRINK") else [Phase.explicit, Phase.generate]
    return settings(max_examples=max(1, int(n * SCALE)), deadline=None, derandomize=True, database=None, phases=phases,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture,
                                           HealthCheck.data_too_large])


NASTY = ["", " ", "9999-12-31", "0001-01-01", "9999-12-30", "2025-13-01", "2025-02-30", "NaN", "-1", "12", "1e309",
         "hour", "week", "metric.a.v1", "METRIC.A.V1", "m\u0435tric.a.v1", "\uff4detric.a.v1", "\x1b[2J\x07",
         "<script>alert(1)</script>", "![x](http://evil.example/x.png)", "**AUTHORITATIVE**", "a" * 5000,
         "\u202e\u0000\ud7ff", "analyst", "finance", "current", "authoritative", "draft"]
SCALARS = st.one_of(st.none(), st.booleans(), st.integers(min_value=-(10 ** 40), max_value=10 ** 40),
                    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=20), st.sampled_from(NASTY))
VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=3)
                      | st.dictionaries(st.one_of(st.text(max_size=8), st.sampled_from(NASTY[:12])), inner,
                                        max_size=3), max_leaves=8)


def _paths(doc, prefix=()):
    """Paths to mutate; not below depth 8, so an already deep-nested value is not walked."""
    yield prefix
    if len(prefix) >= 8:
        return
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield from _paths(v, prefix + (k,))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            yield from _paths(v, prefix + (i,))


def mutate(doc, data, rounds: int = 3):
    """Replace, drop, nest or duplicate values at random places in a JSON-like document."""
    doc = copy.deepcopy(doc)
    nested = False
    for _ in range(data.draw(st.integers(1, rounds))):
        paths = [p for p in _paths(doc) if p]
        if not paths:
            return data.draw(VALUES)
        path = data.draw(st.sampled_from(paths))
        parent = doc
        for key in path[:-1]:
            parent = parent[key]
        action = data.draw(st.sampled_from(["replace", "replace", "drop", "wrap"] + ([] if nested else ["deep"])))
        if action == "replace":
            parent[path[-1]] = data.draw(VALUES)
        elif action == "drop":
            del parent[path[-1]]
        elif action == "wrap":  # the right value, one level too deep or as a string
            parent[path[-1]] = data.draw(st.sampled_from([[parent[path[-1]]], {"x": parent[path[-1]]},
                                                          str(parent[path[-1]])]))
        else:
            nested = True  # once per document: json.dumps itself recurses
            deep = parent[path[-1]]
            for _ in range(data.draw(st.sampled_from([10, 70, 900]))):
                deep = [deep]
            parent[path[-1]] = deep
    return doc


def write(path: Path, doc, data) -> Path:
    """As JSON, as YAML, truncated, or with bytes that are not UTF-8."""
    form = data.draw(st.sampled_from(["json", "json", "yaml", "truncated", "latin1"]))
    if form == "yaml":
        path = path.with_suffix(".yaml")
        try:
            path.write_text(yaml.safe_dump(doc, allow_unicode=True))
            return path
        except (yaml.YAMLError, RecursionError, ValueError):
            form = "json"
    text = json.dumps(doc) if len(json.dumps(doc)) else "{}"
    if form == "truncated":
        text = text[: data.draw(st.integers(0, max(0, len(text) - 1)))]
    raw = text.encode("utf-8")
    if form == "latin1":
        raw = raw[:40] + b"\xff\xfe\xc3" + raw[40:]
    path.write_bytes(raw)
    return path


def must_be_clear(call):
    """Normal result, or CatalogError naming at least one file and why; anything else fails the test."""
    try:
        return call()
    except CatalogError as exc:
        assert exc.problems and all(p.file and p.message for p in exc.problems), exc
        return None


# ---- catalog ---------------------------------------------------------------------------------------

def _demo_docs() -> dict:
    return json.loads(load_catalog(DEMO).model_dump_json(exclude={"warnings"}))


DEMO_DOC = _demo_docs()
SMALL_CATALOG = {"roles": DEMO_DOC["roles"][:2], "principals": DEMO_DOC["principals"][:1],
                 "evidence": [e for e in DEMO_DOC["evidence"] if e["entity_id"] in
                              ("metric.net_revenue", "model.fct_orders", "raw_shop.orders")
                              or e["kind"] == "lineage"][:8]}
for _e in SMALL_CATALOG["evidence"]:
    _e["acl"] = [r for r in _e["acl"] if r in ("analyst", "finance")]
    _e["content_hash"] = None


@fuzz(150)
@given(data=st.data())
def test_catalog_reader(tmp_path_factory, data):
    folder = tmp_path_factory.mktemp("cat")
    path = write(folder / "catalog.json", mutate(SMALL_CATALOG, data), data)
    must_be_clear(lambda: load_catalog(path))


# ---- dbt artifacts ---------------------------------------------------------------------------------

MANIFEST = {
    "metadata": {"dbt_schema_version": "https://schemas.getdbt.com/dbt/manifest/v12.json", "project_name": "shop",
                 "generated_at": "2025-01-01T00:00:00Z"},
    "nodes": {
        "model.shop.orders": {"resource_type": "model", "name": "orders", "version": 2, "latest_version": 2,
                              "columns": {"id": {"description": "key", "data_type": "int"}},
                              "deprecation_date": None, "access": "public", "contract": {"enforced": True},
                              "relation_name": "db.main.orders", "original_file_path": "models/orders.sql",
                              "primary_key": ["id"], "description": "Orders"},
        "model.shop.orders.v1": {"resource_type": "model", "name": "orders", "version": 1, "latest_version": 2,
                                 "deprecation_date": "2024-06-30T00:00:00Z", "relation_name": "db.main.orders_v1"},
        "test.shop.not_null": {"resource_type": "test", "name": "not_null"}},
    "sources": {"source.shop.raw.orders": {
        "source_name": "raw", "name": "orders", "identifier": "raw_orders", "relation_name": "db.raw.orders",
        "loaded_at_field": "_loaded", "columns": {},
        "freshness": {"warn_after": {"count": 12, "period": "hour"}, "error_after": {"count": 1, "period": "day"}}}},
    "exposures": {"exposure.shop.dash": {"owner": {"name": "Ann"}, "type": "dashboard", "maturity": "high",
                                         "label": "Dash", "name": "dash"}},
    "docs": {"doc.shop.overview": {"package_name": "shop", "name": "overview", "block_contents": "Docs"}},
    "semantic_models": {"semantic_model.shop.orders": {"name": "orders",
                                                       "depends_on": {"nodes": ["model.shop.orders"]}}},
    "metrics": {"metric.shop.revenue": {"name": "revenue"}},
    "parent_map": {"model.shop.orders": ["source.shop.raw.orders"], "model.shop.orders.v1": ["model.shop.orders"]},
}
SEMANTIC = {
    "semantic_models": [{"name": "orders", "entities": [{"name": "order", "type": "primary"}],
                         "dimensions": [{"name": "ordered_at", "type": "time"}],
                         "measures": [{"name": "total", "agg": "sum", "expr": "amount",
                                       "agg_time_dimension": "ordered_at"}],
                         "defaults": {"agg_time_dimension": "ordered_at"}}],
    "metrics": [
        {"name": "revenue", "label": "Revenue", "type": "simple", "type_params": {"measure": {"name": "total"}},
         "filter": {"where_filters": [{"where_sql_template": "x > 0"}]}},
        {"name": "ratio", "type": "ratio", "type_params": {"numerator": {"name": "revenue"},
                                                           "denominator": {"name": "revenue"}}},
        {"name": "derived", "type": "derived", "type_params": {
            "expr": "a + 1", "metrics": [{"name": "revenue", "alias": "a",
                                          "offset_window": {"count": 1, "granularity": "month"}}]}},
        {"name": "cum", "type": "cumulative", "type_params": {
            "measure": {"name": "total"}, "cumulative_type_params": {"window": {"count": 7, "granularity": "day"}}}},
        {"name": "conv", "type": "conversion", "type_params": {"conversion_type_params": {
            "base_measure": {"name": "total"}, "conversion_measure": {"name": "total"}, "entity": "order",
            "window": {"count": 7, "granularity": "day"}}}}]}
SOURCES = {"results": [{"unique_id": "source.shop.raw.orders", "max_loaded_at": "2025-01-01T10:00:00Z",
                        "snapshotted_at": "2025-01-01T12:00:00Z", "status": "pass",
                        "criteria": {"warn_after": {"count": 12, "period": "hour"}}}]}
RUN_RESULTS = {"results": [{"unique_id": "model.shop.orders", "status": "success",
                            "timing": [{"name": "execute", "completed_at": "2025-01-01T11:00:00Z"}]}]}
DBT_CATALOG = {"nodes": {"model.shop.orders": {"columns": {"id": {"type": "INTEGER"}}}}, "sources": {}}
TARGET = {"manifest": MANIFEST, "semantic_manifest": SEMANTIC, "sources": SOURCES, "run_results": RUN_RESULTS,
          "catalog": DBT_CATALOG}


def write_target(folder: Path, target: dict) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, doc in target.items():
        (folder / f"{name}.json").write_text(json.dumps(doc))
    return folder


def test_the_unmutated_inputs_are_valid(tmp_path):
    """The fuzzer starts from inputs that load, so its mutations are what gets refused."""
    assert load_catalog(write(tmp_path / "c.json", SMALL_CATALOG, _Always("json"))).evidence
    catalog, _ = read_inputs(tmp_path / "none.duckdb", dbt=write_target(tmp_path / "t", TARGET))
    ids = {e.evidence_id for e in catalog.evidence}
    assert {"model.shop.orders", "metric.shop.revenue", "source.shop.raw.orders", "lineage.model.shop.orders"} <= ids
    catalog, _ = read_inputs(tmp_path / "none.duckdb", openlineage=write_ol(tmp_path / "ol.json", [EVENT]))
    assert any(e.kind.value == "lineage" for e in catalog.evidence)
    overlay = write(tmp_path / "overlay.json", OVERLAY, _Always("json"))
    catalog, _ = read_inputs(tmp_path / "none.duckdb", dbt=tmp_path / "t", overlay=overlay)
    assert {e.evidence_id for e in catalog.evidence} >= {"metric.shop.revenue.v1"}


class _Always:
    """A stand-in for Hypothesis' `data` that always draws the given value (for the sanity test)."""

    def __init__(self, value):
        self.value = value

    def draw(self, _strategy):
        return self.value


@fuzz(60)
@given(data=st.data())
def test_dbt_reader(tmp_path_factory, data):
    target = copy.deepcopy(TARGET)
    name = data.draw(st.sampled_from(sorted(target)))
    target[name] = mutate(target[name], data)
    folder = write_target(tmp_path_factory.mktemp("dbt"), target)
    if data.draw(st.booleans()):
        write(folder / f"{name}.json", target[name], data)
    must_be_clear(lambda: read_inputs(folder / "none.duckdb", dbt=folder))


# ---- overlay ----------------------------------------------------------------------------------------

OVERLAY = {"roles": ["analyst", {"name": "finance"}, {"name": "governance", "steward": True}],
           "defaults": {"acl": ["analyst", "finance"], "owner": "Data team"},
           "objects": {"metric:revenue": {"aliases": ["sales"], "version": "2", "valid_from": "2025-01-01",
                                          "acl": ["finance"],
                                          "history": [{"version": "1", "valid_from": "2023-01-01",
                                                       "valid_through": "2024-12-31", "formula": "sum(x)"}]},
                       "model:orders": {"versions": {"1": {"valid_through": "2024-06-30"},
                                                     "2": {"valid_from": "2024-07-01"}}}}}


@fuzz(80)
@given(data=st.data())
def test_overlay_reader(tmp_path_factory, data):
    folder = tmp_path_factory.mktemp("overlay")
    target = write_target(folder / "target", TARGET)
    overlay = write(folder / "overlay.json", mutate(OVERLAY, data), data)
    must_be_clear(lambda: read_inputs(folder / "none.duckdb", dbt=target, overlay=overlay))


# ---- OpenLineage ------------------------------------------------------------------------------------

EVENT = {"eventType": "COMPLETE", "eventTime": "2025-01-01T00:00:00Z",
         "run": {"runId": "3f5e83fa-3480-44ff-99c5-ff943904e5e8"}, "job": {"namespace": "shop", "name": "build"},
         "inputs": [{"namespace": "pg", "name": "raw.orders",
                     "facets": {"schema": {"fields": [{"name": "amount", "type": "int"}]}}}],
         "outputs": [{"namespace": "pg", "name": "main.orders", "facets": {"columnLineage": {"fields": {
             "total": {"inputFields": [{"namespace": "pg", "name": "raw.orders", "field": "amount"}]}}}}}]}


def write_ol(path: Path, events) -> Path:
    path.write_text(json.dumps(events))
    return path


@fuzz(100)
@given(data=st.data())
def test_openlineage_reader(tmp_path_factory, data):
    folder = tmp_path_factory.mktemp("ol")
    events = mutate([EVENT, copy.deepcopy(EVENT)], data)
    path = write(folder / "events.json", events, data)
    read = read_openlineage(path)  # reports and skips; never raises
    assert read.events + len(read.skipped) >= 0
    must_be_clear(lambda: read_inputs(folder / "none.duckdb", openlineage=path))


# ---- the question parser ----------------------------------------------------------------------------

QUESTION_WORDS = st.sampled_from(["net revenue", "on", "9999-12-31", "0001-01-01", "Q4 9999", "end of 9999",
                                  "between", "and", "through", "..", "2025-02-30", "December 31, 9999",
                                  "H2 2025", "v2", "version 99999999999999999999", "ignore the rules",
                                  "`col` in", "the 2025 draft", "\x1b[2J", "9999-12-31T23:59:59-05:00",
                                  "0001-01-01T00:00:00+05:00", "week", "fresh?"])


@fuzz(300)
@given(text=st.one_of(st.text(max_size=300), st.lists(QUESTION_WORDS | st.text(max_size=10), max_size=40)
                      .map(" ".join)))
def test_question_parser(text):
    intent = parse_intent(text)
    assert isinstance(intent.aspects, set)
    for mention in find_dates(text):
        assert mention.kind in ("date", "period", "timestamp", "invalid")
        assert (mention.kind == "invalid") == (mention.start is None and mention.at is None)
    try:
        start, end = parse_period(text)
        assert start < end
    except ValueError:
        pass


def test_a_question_of_100_kb_is_parsed():
    intent = parse_intent("What was net revenue on 2025-03-31? " * 2900)
    assert intent.dates and "definition" in intent.aspects


# ---- through the CLI: exit 0 or 2, and a refused ingest changes nothing ------------------------------

def _word_embedder():
    from test_faults import _embedder
    return _embedder()


@pytest.fixture(scope="module")
def small_db(tmp_path_factory):
    """A database and index of the small catalog, written with a fast deterministic embedder."""
    import core.retrieve.search
    import core.serve.cli
    mp = pytest.MonkeyPatch()
    mp.setattr(core.serve.cli, "Embedder", lambda *a, **k: _word_embedder())
    mp.setattr(core.retrieve.search, "Embedder", lambda *a, **k: _word_embedder())
    folder = tmp_path_factory.mktemp("fuzzdb")
    source = folder / "small.json"
    source.write_text(json.dumps(SMALL_CATALOG))
    db = folder / "pristine" / "c.duckdb"
    r = cli("ingest", str(source), "--db", str(db))
    assert r.returncode == 0, r.stderr
    yield db
    mp.undo()


def digest(path: Path) -> str:
    h = hashlib.sha256()
    for p in sorted([path] if path.is_file() else path.rglob("*")):
        if p.is_file():
            h.update(str(p.name).encode() + p.read_bytes())
    return h.hexdigest()


@fuzz(25)
@given(data=st.data())
def test_cli_ingest_exits_0_or_2_and_a_refusal_changes_nothing(small_db, tmp_path_factory, data):
    work = tmp_path_factory.mktemp("ingest")
    db = work / "c.duckdb"
    shutil.copy(small_db, db)
    shutil.copytree(small_db.with_suffix(".lance"), db.with_suffix(".lance"))
    before = digest(db), digest(db.with_suffix(".lance"))
    kind = data.draw(st.sampled_from(["catalog", "dbt", "openlineage"]))
    if kind == "catalog":
        args = [str(write(work / "in.json", mutate(SMALL_CATALOG, data), data))]
    elif kind == "dbt":
        target = copy.deepcopy(TARGET)
        target["manifest"] = mutate(target["manifest"], data)
        args = ["--dbt", str(write_target(work / "target", target))]
    else:
        args = ["--openlineage", str(write(work / "ol.json", mutate([EVENT], data), data))]
    r = cli("ingest", *args, "--db", str(db))
    assert r.returncode in (0, 2), r.stderr
    assert "Traceback" not in r.stderr
    if r.returncode == 2:
        assert r.stderr.startswith("error:")
        assert (digest(db), digest(db.with_suffix(".lance"))) == before, "a refused ingest changed the files"


@fuzz(30)
@given(question=st.one_of(st.text(min_size=1, max_size=200), st.lists(QUESTION_WORDS, min_size=1, max_size=12)
                          .map(" ".join)),
       when=st.one_of(st.none(), st.sampled_from(["9999-12-31", "9999-12-30", "0001-01-01", "2025-02-30", "x"]),
                      st.dates().map(str)),
       period=st.one_of(st.none(), st.sampled_from(["0001-01-01..9999-12-31", "2025-01-01..2024-01-01", "..",
                                                    "9999-01-01..9999-12-30"])))
def test_cli_ask_exits_0_or_2(small_db, question, when, period):
    args = ["ask", "--db", str(small_db), "--role", "analyst", "--json"]
    if when is not None and period is None:
        args += ["--date", when]
    if period is not None:
        args += ["--period", period]
    r = cli(*args, "--", question) if question.startswith("-") else cli(*args, question)
    assert r.returncode in (0, 2), r.stderr
    if r.returncode == 0:
        assert json.loads(r.stdout)["role"] == "analyst"
    else:
        assert "error" in r.stderr
