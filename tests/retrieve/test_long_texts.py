"""Long real-like texts (issue 24 item 7): a model's long description is one searchable row, embedded from its
head, still found in full by full-text search; prose documents are still split so every part has a vector.
The texts come from scripts/gen_dbt_project.py's long-text mode (500-1,200 characters, as real projects)."""
import sys

import pytest
from conftest import ROOT

from core.catalog.evidence import Evidence
from core.catalog.store import Store, write_catalog
from core.ingest.load import build_catalog
from core.retrieve.index import HEAD_CHARS, MAX_CHUNK_CHARS, chunks_of, embedded_text
from core.retrieve.search import Searcher
from core.retrieve.writer import build_index

sys.path.insert(0, str(ROOT / "scripts"))
from gen_dbt_project import long_description  # noqa: E402

MODELS = ["fct_sales__order_lines", "dim_finance__fx_rates_daily", "fct_support__csat_responses",
          "dim_people__workers", "fct_operations__deliveries", "dim_marketing__campaigns"]
# A fact only the end of one long description holds: found by full text, though past the embedded head.
TAIL = "Warranty claims reopened by the Lisbon depot are reconciled by hand every quarter."


def _model(name: str, extra: str = "") -> dict:
    domain = name.split("_")[1]
    return {"evidence_id": f"model.acme.{name}", "entity_id": f"model.acme.{name}", "kind": "model",
            "title": name, "authority": "authoritative", "lifecycle": "current", "acl": ["analyst"],
            "model": {"relation": f"acme.main.{name}", "columns": ["id", "updated_at", "amount_usd", "status"]},
            "text": f"dbt model {name}. {long_description(name, domain)} {extra}".strip()}


def _doc() -> dict:
    text = " ".join(long_description(f"handbook_{i}", "finance") for i in range(3))
    return {"evidence_id": "doc.finance_handbook", "entity_id": "doc.finance_handbook", "kind": "documentation",
            "title": "Finance handbook", "authority": "non_authoritative", "lifecycle": "current",
            "acl": ["analyst"], "text": text}


def test_generated_descriptions_are_as_long_as_real_ones():
    lengths = [len(long_description(m, m.split("_")[1])) for m in MODELS]
    assert all(500 <= n <= 1300 for n in lengths)
    assert long_description(MODELS[0], "sales") == long_description(MODELS[0], "sales")  # deterministic


def test_a_long_model_is_one_row_embedded_from_its_head():
    ev = Evidence.model_validate(_model(MODELS[0], TAIL))
    rows = chunks_of(ev)
    assert [part for _, part, _ in rows] == ["name", "body"]
    body = rows[1][2]
    assert len(body) > MAX_CHUNK_CHARS and body.endswith(TAIL)  # the whole text, for full-text search
    head = embedded_text(body, ev.kind)
    assert len(head) <= HEAD_CHARS and body.startswith(head)
    assert "fct_sales__order_lines" in head and "amount_usd" in head  # name and columns are in the head


def test_long_prose_is_still_split():
    ev = Evidence.model_validate(_doc())
    pieces = [text for _, part, text in chunks_of(ev) if part == "body"]
    assert len(pieces) >= 3 and all(embedded_text(p, ev.kind) == p for p in pieces)
    assert all(len(p) <= MAX_CHUNK_CHARS for p in pieces)


@pytest.fixture(scope="module")
def long_catalog(tmp_path_factory, embedder):
    docs = [_model(m, TAIL if m == "fct_operations__deliveries" else "") for m in MODELS] + [_doc()]
    catalog = build_catalog([("long.json", {"roles": ["analyst"], "evidence": docs})], "long.json")
    db = tmp_path_factory.mktemp("long") / "long.duckdb"
    write_catalog(catalog, db)
    report = build_index(catalog, db, embedder, quiet=True)
    store = Store(db)
    yield report, Searcher(store, embedder)
    store.close()


def test_long_texts_cost_one_vector_per_model(long_catalog):
    report, _ = long_catalog
    handbook = len(chunks_of(Evidence.model_validate(_doc())))  # its name row and its pieces
    assert report.chunks == report.embedded == 2 * len(MODELS) + handbook  # a name and a body row per model


def test_a_fact_deep_in_a_long_description_is_found_by_full_text(long_catalog):
    _, searcher = long_catalog
    hits = searcher.text("warranty claims reopened by the Lisbon depot", searcher.role_filter("analyst"), k=3)
    assert hits and hits[0].evidence_id == "model.acme.fct_operations__deliveries"


def test_a_model_is_found_by_what_its_head_says(long_catalog):
    _, searcher = long_catalog
    hits = searcher.hybrid("customer satisfaction survey answers from support", searcher.role_filter("analyst"), k=3)
    assert hits[0].evidence_id == "model.acme.fct_support__csat_responses"
