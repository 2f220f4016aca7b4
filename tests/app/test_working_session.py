"""An analyst's working session in a real browser (issue 38, items 2, 3 and 6), on the tram operator's catalog and
warehouse (tests/tram_catalog.py), at 1366 and 1024 px: a value question is headed by the value; a restatement by
the restated figure and its difference; two periods compared by both values; sub-period tables are formatted like
the values and name no internal id; a fully loaded past month is not under today's failing banner; and the rough
edges (a version id over the next column, the submit hint over a long question, a non-steward sent to a steward's
page, the ingest time against the catalog's clock, scripts/run.sh's settings). Screenshots land in test-artifacts/."""
from __future__ import annotations

import os
import subprocess
import time

import pytest
from conftest import ROOT, build
from streamlit_server import chromium, free_port, needs_chromium, served, stop, wait_healthy
from test_browser import _ask, _headline, _nav, _settled, _shot
from tram_catalog import AT, warehouse, write

from core.answer.ask import Question, ask
from core.catalog.store import Store
from core.explain.ingested import ingested_text

pytestmark = needs_chromium
WIDTHS = [1366, 1024]


@pytest.fixture(scope="module")
def tram(tmp_path_factory, embedder):
    root = tmp_path_factory.mktemp("tram_browser")
    store, _ = build(root, "tram", write(root / "catalog"), embedder)
    store.close()
    return store.path, warehouse(root / "warehouse.duckdb")


@pytest.fixture(scope="module")
def server(tram):
    db, wh = tram
    with served(db, {"ASOF_WAREHOUSE": str(wh)}) as url:
        yield url


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


def _page(browser, url: str, width: int):
    context = browser.new_context(viewport={"width": width, "height": 1000})
    page = context.new_page()
    page.goto(url)
    page.wait_for_selector("h1", timeout=60000)
    _settled(page)
    return context, page


def _status(page) -> str:
    return page.locator(".st-key-status_line").inner_text()


def _tables(page, first: str | None = None) -> list[list[str]]:
    """Every static table's cells, row by row; once a row starting with `first` is drawn (the page streams)."""
    if first:
        page.locator("[data-testid=stTable] td", has_text=first).first.wait_for(timeout=60000)
    return page.evaluate("""() => [...document.querySelectorAll('[data-testid=stTable] tr')]
                              .map(r => [...r.querySelectorAll('td,th')].map(c => c.innerText.trim()))""")


def _cut_cells(page) -> list[str]:
    """Static-table cells whose text runs past their box (into the next column)."""
    return page.evaluate("""() => [...document.querySelectorAll('[data-testid=stTable] td, [data-testid=stTable] th')]
        .filter(c => [c, ...c.querySelectorAll('*')].some(e => e.scrollWidth > e.clientWidth + 1))
        .map(c => c.innerText.trim())""")


@pytest.mark.parametrize("width", WIDTHS)
def test_the_number_first_and_sub_period_tables_formatted_without_ids(server, browser, width):
    context, page = _page(browser, f"{server}/?role=controller", width)
    _ask(page, "fare takings from December 2026 to January 2027 by month")
    assert _headline(page) == ("Fare takings from 1 Dec 2026 to 31 Jan 2027: $1,200.00 in Dec 2026 under v1; "
                               "$90.00 in Jan 2027 under v2")
    rows = _tables(page, "Dec 2026")
    assert ["Dec 2026", "$1,200.00", "v1", "trams.fct_taps"] in rows and ["Jan 2027", "$90.00", "v2", "trams.fct_taps"] in rows
    _ask(page, "fare takings in Q4 2026 under today's definition")
    assert _headline(page) == ("Under v2 (today's definition), Fare takings in Q4 2026 would be $3,270.00: "
                               "-$30.00, -0.91% against $3,300.00 under v1")
    rows = _tables(page, "Oct 2026")
    assert ["Oct 2026", "$1,000.00", "v1", "$990.00", "-$10.00", "-1.00%"] in rows
    assert not [c for r in rows for c in r if "metric.fare_takings" in c]  # no internal id in a value table
    _shot(page, f"working-session-restatement-{width}")
    _ask(page, "fare takings in 2026 vs 2027")
    assert _headline(page) == ("Fare takings was $7,800.00 in 2026 and $7,680.00 in 2027 (-$120.00, -1.54%), "
                               "under v1 and v2, which differ in formula")
    cards = page.locator('[data-testid="stMetric"]').all_inner_texts()
    assert any("2026" in c and "$7,800.00" in c for c in cards) and any("$7,680.00" in c and "-$120.00" in c for c in cards)
    context.close()


def test_a_fully_loaded_past_month_is_not_under_todays_failing_banner(server, browser):
    context, page = _page(browser, f"{server}/?role=controller", 1366)
    _ask(page, "what were fare takings in March 2027?")
    assert _headline(page) == "Fare takings was $290.00 in Mar 2027 under v2"
    status = _status(page)
    assert "Failing data" not in status
    assert "Today's loads are failing: raw_fares.taps" in status and "Loaded in full in Mar 2027" in status
    # the freshness section says the same: failing today, loaded in full for the month
    assert page.get_by_text("Failing today").count() == 1
    assert page.get_by_text("likely incomplete").count() == 0
    _shot(page, "working-session-past-month")
    _ask(page, "fare takings in March 2028")  # the month still running: today's loads are its loads
    assert "Failing data: raw_fares.taps" in _status(page)
    context.close()


@pytest.mark.parametrize("width", WIDTHS)
def test_rough_edges(server, tram, browser, width):
    context, page = _page(browser, f"{server}/?role=controller", width)
    # a long question stops short of the "Press Enter to submit form" hint drawn inside the box
    box = page.get_by_label("Question", exact=True)
    box.fill("for the board pack dated 2027-03-31 what were fare takings and which model backs them and is it fresh")
    page.wait_for_selector('[data-testid="InputInstructions"]')
    # the page's fixed CSS comes in with its run; measured once it is there
    page.wait_for_function("() => parseFloat(getComputedStyle(document.querySelector('input[aria-label=Question]'))"
                           ".paddingRight) > 40", timeout=20000)
    text_right, hint_left = page.evaluate("""() => { const i = document.querySelector('input[aria-label=Question]');
        const r = i.getBoundingClientRect(); const h = document.querySelector('[data-testid=InputInstructions]');
        return [r.right - parseFloat(getComputedStyle(i).paddingRight), h.getBoundingClientRect().left]; }""")
    assert text_right <= hint_left, (text_right, hint_left)
    # the sidebar gives the ingest time against the catalog's own clock
    store = Store(tram[0])
    said = ingested_text(store.meta()["ingested_at"], store.clock)
    store.close()
    assert page.locator('[data-testid="stSidebar"]').get_by_text(said, exact=False).count() == 1
    # the Catalog's version table: no id runs over into the title beside it
    page.goto(f"{server}/Catalog?role=controller")
    page.wait_for_selector("h1:has-text('Catalog')", timeout=60000)
    _settled(page)
    assert any("metric.fare_takings.v1" in c for r in _tables(page, "metric.fare_takings.v1") for c in r)
    assert _cut_cells(page) == []
    _shot(page, f"working-session-catalog-{width}")
    # a non-steward sent to a steward's page is told why, and the menu does not offer it
    for name, said in (("Evaluation", "The evaluation is for catalog stewards; role controller is not one"),
                       ("Audit", "The audit log is for catalog stewards; role controller is not one")):
        page.goto(f"{server}/{name}?role=controller")
        page.wait_for_selector(f"h1:has-text('{name}')", timeout=60000)
        _settled(page)
        assert page.get_by_text(said).count() == 1
        nav = page.locator('[data-testid="stSidebarNav"]').inner_text()
        assert "Evaluation" not in nav and "Audit" not in nav
    context.close()


def test_run_sh_serves_asof_db_and_asof_warehouse_and_passes_streamlit_options(tram, browser, tmp_path):
    db, wh = tram
    help_text = subprocess.run(["bash", "scripts/run.sh", "--help"], cwd=ROOT, capture_output=True, text=True,
                               timeout=30).stdout
    assert "passed through to `streamlit run`" in help_text and "ASOF_DB" in help_text and "ASOF_WAREHOUSE" in help_text
    port = free_port()
    err = tmp_path / "stderr"
    with open(err, "w") as sink:
        proc = subprocess.Popen(["bash", "scripts/run.sh", "--server.port", str(port)], cwd=ROOT, stdout=sink,
                                stderr=sink, env={**os.environ, "ASOF_DB": str(db), "ASOF_WAREHOUSE": str(wh)})
    url = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(proc, url, timeout=180)
        context, page = _page(browser, f"{url}/?role=controller", 1366)  # the tram catalog, not the demo
        _ask(page, "what were fare takings in March 2027?")
        assert _headline(page) == "Fare takings was $290.00 in Mar 2027 under v2"  # computed on ASOF_WAREHOUSE
        context.close()
    finally:
        stop(proc)
        time.sleep(0.2)
    said = err.read_text()
    assert f"serving the catalog in ASOF_DB={db}" in said and f"ASOF_WAREHOUSE={wh}" in said
    assert f"passing to streamlit run: --server.port {port}" in said
    assert "evidence objects" not in said  # the demo was not ingested over it (ingest says "ingested N evidence objects")


@pytest.mark.parametrize("width", WIDTHS)
def test_the_stewards_own_answers_and_its_audit_page(server, browser, width):
    """Item 5: "who can see <document>?" is read from its access list; the steward's Audit page shows its own
    question (asked in this browser session: nobody is signed in) and every column within the page."""
    context, page = _page(browser, f"{server}/?role=auditor", width)
    _ask(page, "who can see the timetable glossary export?")
    assert _headline(page).startswith("Timetable glossary export: no role can see it (its access list is empty).")
    _nav(page, "Audit")
    page.locator('[data-testid="stTable"]').first.wait_for(timeout=60000)
    # the question itself is the record chosen first (the newest): shown, not withheld
    assert any(["question", "who can see the timetable glossary export?"] == r for r in _tables(page, "question"))
    widths = page.evaluate("""() => [...document.querySelectorAll('[data-testid=stTable]')]
                                    .map(e => [e.scrollWidth, e.clientWidth])""")
    assert widths and all(scroll <= client + 1 for scroll, client in widths), widths  # no column cut off
    _shot(page, f"working-session-audit-{width}")
    context.close()


def test_the_lineage_page_draws_the_answers_lineage(server, tram, browser):
    """Item 4: the Lineage page and the Ask answer draw the same edges for the same metric and role, the edge from
    the metric its formula uses included."""
    store = Store(tram[0])
    env = ask(store, Question(role="depot", text="where does takings per run come from?", at=AT))
    store.close()
    answer_edges = {(e.upstream, e.downstream) for e in env.lineage.edges}
    assert ("metric.fare_takings.v2", "metric.takings_per_run.v1") in answer_edges
    context, page = _page(browser, f"{server}/Lineage?role=depot&entity=metric.takings_per_run", 1024)
    page.locator('[data-testid="stRadio"]').get_by_text("Table", exact=True).click()
    _settled(page)
    _shot(page, "working-session-lineage-table")
    rows = _tables(page, "fare_takings")
    head = rows[0]
    drawn = {(r[head.index("from id")], r[head.index("to id")]) for r in rows[1:]}
    assert drawn == answer_edges
    context.close()
