"""A conversation about time, and what the pages show, in a real browser (Playwright, Debian's Chromium) on a lido's
catalog and warehouse the test writes itself (tests/lido_catalog.py), one server for the module (issue 45): value
cards, Catalog and Audit cells are never cut at 1024 px; the Audit page keeps file paths and settings in an operator
section."""
import pytest
from conftest import build
from lido_catalog import warehouse, write
from streamlit_server import chromium, needs_chromium, served
from test_browser import _ask, _headline, _nav, _settled

pytestmark = needs_chromium

# Every element whose text is cut: wider inside than shown (a cell or a card label ending in "…").
_CUT = """(sel) => [...document.querySelectorAll(sel)].filter(e => e.scrollWidth > e.clientWidth + 1)
                                                   .map(e => e.innerText.slice(0, 60))"""


@pytest.fixture(scope="module")
def server(tmp_path_factory, embedder):
    root = tmp_path_factory.mktemp("lido_browser")
    store, _ = build(root, "lido", write(root / "catalog"), embedder)
    store.close()
    with served(store.path, env={"ASOF_WAREHOUSE": str(warehouse(root / "warehouse.duckdb"))}) as url:
        yield url


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


def _page(browser, url, width=1024):
    page = browser.new_context(viewport={"width": width, "height": 1000}).new_page()
    page.goto(url)
    page.wait_for_selector("h1", timeout=60000)
    _settled(page)
    return page


def test_value_cards_and_tables_are_whole_at_1024_px(server, browser):
    page = _page(browser, f"{server}/?role=lifeguard")
    _ask(page, "pass holders in 2027 by quarter")
    assert _headline(page) == "Pass holders was 219 customers at the end of 2027 under v2; 4 quarters below"
    assert page.locator("[data-testid=stMetric]").count() == 4
    cut = page.evaluate(_CUT, "[data-testid=stMetricLabel] *, [data-testid=stMetricValue] *")
    assert cut == [], cut
    page.context.close()
    page = _page(browser, f"{server}/?role=office")
    _ask(page, "who can see the passes model?")
    _nav(page, "Catalog")
    page.locator("[data-testid=stTable]").first.wait_for(timeout=30000)
    assert page.evaluate(_CUT, "[data-testid=stTable] td, [data-testid=stTable] th") == []
    page.locator(".st-key-queue_table_open_0 button").click()  # one click opens a row's object below
    _settled(page)
    assert page.locator('[data-testid=stMain] input[aria-label="Entity"]').input_value().endswith("(doc.kiosk_menu)")
    _nav(page, "Audit")
    page.locator("[data-testid=stTable]").first.wait_for(timeout=30000)
    assert page.evaluate(_CUT, "[data-testid=stTable] td, [data-testid=stTable] th") == []
    main = page.locator("[data-testid=stMain]")
    # the log's file and the settings are in the operator section, closed; not in front of a business audience
    operator = main.locator("[data-testid=stExpander]", has_text="For operators")
    assert operator.count() == 1
    outside = main.inner_text().replace(operator.inner_text(), "")
    assert ".audit.jsonl" not in outside and "ASOF_" not in outside
    operator.get_by_text("For operators").click()
    _settled(page)
    assert ".audit.jsonl" in operator.inner_text() and "ASOF_AUDIT_SHOW_QUESTIONS" in operator.inner_text()
    page.context.close()


def test_a_conversation_moves_through_time_on_the_ask_page(server, browser):
    page = _page(browser, f"{server}/?role=lifeguard", width=1366)
    _ask(page, "ticket sales in Q2 2027")
    assert _headline(page) == "Ticket sales was $150.00 in Q2 2027 under v1"
    _ask(page, "and the quarter before?")
    assert _headline(page) == "Ticket sales was $60.00 in Q1 2027 under v1"
    _ask(page, "vs last year?")
    assert _headline(page) == "Ticket sales was $60.00 in Q1 2026 and $60.00 in Q1 2027 (+$0.00, +0.00%), both under v1"
    _ask(page, "pass holders in Q2 2027")
    _ask(page, "under the old definition")
    assert _headline(page).startswith("Under v1 (the old definition), Pass holders in Q2 2027 would be 160 customers")
    _ask(page, "what changed between them?")
    assert "Comparing the two versions of Pass holders your last answer showed, v1 and v2" in \
        page.locator("[data-testid=stMain]").inner_text()
    _ask(page, "was it fresh last Friday at 9am?")
    assert _headline(page) == ("Yes: On 3 Mar 2028 at 09:00 UTC, raw_gate.entries behind Pass holders v2 had last "
                               "loaded 3 h before: fresh")
    _ask(page, "and at 6pm yesterday?")  # only the moment moves: freshness again, of the same subject
    assert _headline(page) == ("No: On 7 Mar 2028 at 18:00 UTC, raw_gate.entries behind Pass holders v2 had last "
                               "loaded 12 h before: stale")
    page.context.close()
