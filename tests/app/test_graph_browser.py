"""The lineage graph of a 1,000-model dbt project as the Lineage page draws it, measured in a real browser
(issue 19 item 1): no edge through a box, no two boxes overlapping, nothing cut by the canvas, also after
switching to the table and back. The demo's graphs are checked the same way in test_browser.py."""
import pytest
from conftest import ROOT
from graph_geometry import problems, read
from streamlit_server import chromium, needs_chromium, served

ACME = ROOT / "tests" / "fixtures" / "generated" / "acme-analytics"
ACME_OVERLAY = ROOT / "data" / "dbt" / "acme-analytics.overlay.yml"
ARTIFACTS = ROOT / "test-artifacts"

pytestmark = needs_chromium


@pytest.fixture(scope="module")
def acme_server(tmp_path_factory):
    """The generated project, catalog only (the Lineage page reads no search index)."""
    from core.catalog.store import write_catalog
    from core.ingest.ingest import read_inputs
    db = tmp_path_factory.mktemp("acme_browser") / "acme.duckdb"
    catalog, _ = read_inputs(db, dbt=ACME, overlay=ACME_OVERLAY)
    write_catalog(catalog, db)
    with served(db) as url:
        yield url


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


def _settled(page) -> None:
    page.wait_for_timeout(600)
    page.wait_for_selector('[data-testid="stStatusWidget"]', state="detached", timeout=60000)


# A fact model with six staging parents, two intermediate joins and a dashboard downstream; a derived metric
# that reads two metrics of two semantic models.
@pytest.mark.parametrize("entity,at_least", [("model.fct_operations__inventory_levels", 14),
                                             ("metric.customer_acquisition_cost", 9)])
def test_a_dbt_lineage_is_drawn_without_an_edge_through_a_box(acme_server, browser, entity, at_least):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.goto(f"{acme_server}/Lineage?role=analyst&entity={entity}")
    page.wait_for_selector("h1:has-text('Lineage')", timeout=90000)
    _settled(page)
    assert page.get_by_text("is visible to role").count() == 0  # the link's entity was found, not replaced
    geo = read(page)
    assert len(geo["boxes"]) >= at_least
    assert problems(geo) == []
    # Every label is drawn whole: a long dbt relation is folded over lines, never cut to "stg_ord".
    assert all(len(line) <= 24 for b in geo["boxes"].values() for line in b["label"].split("\n")
               if "_" in line or "." in line)
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"lineage_dbt_{entity.split('.')[-1]}.png"), full_page=True)
    scale = geo["scale"]
    page.get_by_text("Table", exact=True).first.click()
    _settled(page)
    page.get_by_text("Graph", exact=True).first.click()
    _settled(page)
    geo = read(page)
    assert problems(geo) == [] and abs(geo["scale"] - scale) < 0.01
    context.close()
