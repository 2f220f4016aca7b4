"""A real browser: `streamlit run` on 127.0.0.1, driven by Playwright through Debian's Chromium."""
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from conftest import DEMO, ROOT, build

CHROMIUM = "/usr/bin/chromium"
ARTIFACTS = ROOT / "test-artifacts"
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync"]

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Debian chromium is not installed")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server(tmp_path_factory, embedder):
    store, _ = build(tmp_path_factory.mktemp("browser"), "demo", DEMO, embedder)
    store.close()
    port = _free_port()
    env = {**os.environ, "ASOF_DB": str(store.path)}
    proc = subprocess.Popen([sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py"), "--server.headless", "true",
                             "--server.address", "127.0.0.1", "--server.port", str(port),
                             "--browser.gatherUsageStats", "false"], cwd=ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + 60
    while time.time() < deadline:
        try:
            if urllib.request.urlopen(f"{url}/_stcore/health", timeout=2).read() == b"ok":
                break
        except OSError:
            time.sleep(0.5)
    else:
        proc.kill()
        pytest.fail("streamlit did not become healthy within 60 s")
    yield url
    proc.terminate()
    proc.wait(timeout=20)


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        yield b
        b.close()


def _settled(page) -> None:
    """Wait until Streamlit has finished the current run (its running indicator is gone)."""
    page.wait_for_timeout(300)
    page.wait_for_selector('[data-testid="stStatusWidget"]', state="detached", timeout=60000)


def _shot(page, name: str) -> None:
    _settled(page)
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def _ask(page, question: str) -> None:
    box = page.get_by_label("Question", exact=True)
    box.fill(question)
    box.press("Enter")
    page.get_by_role("button", name="Ask").click()


def test_ask_in_a_real_browser(server, browser):
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(server)
    page.get_by_text("Which definition of a metric applied").wait_for(timeout=30000)
    page.get_by_role("combobox", name="Role").click()
    page.get_by_role("option", name="analyst").click()
    year = page.get_by_role("spinbutton", name="year, Reporting date")
    year.click()
    page.keyboard.type("2024")
    month = page.get_by_role("spinbutton", name="month, Reporting date")
    month.click()
    page.keyboard.type("06")
    day = page.get_by_role("spinbutton", name="day, Reporting date")
    day.click()
    page.keyboard.type("30")
    page.keyboard.press("Tab")
    _ask(page, "The old wiki says revenue includes shipping and tax. Is that right?")
    page.get_by_text("v1 of Net revenue applies on 2024-06-30").first.wait_for(timeout=30000)
    page.get_by_text("Conflicts (").wait_for(timeout=15000)
    assert page.get_by_text("UNTRUSTED: instructions ignored").count() >= 1
    assert page.get_by_text("SUPERSEDED", exact=True).count() >= 1
    frame = page.frame_locator("iframe[title='streamlit_agraph.agraph']")
    frame.locator("canvas").first.wait_for(timeout=30000)
    page.wait_for_timeout(1500)  # let vis-network finish its layout before the screenshot
    _shot(page, "ask_answer")
    page.get_by_text("Conflicts (").scroll_into_view_if_needed()
    _shot(page, "ask_conflicts")
    page.locator("iframe[title='streamlit_agraph.agraph']").scroll_into_view_if_needed()
    page.wait_for_timeout(500)
    _shot(page, "ask_lineage")
    page.get_by_text("Three clocks").scroll_into_view_if_needed()
    _shot(page, "ask_clocks")
    # The explanation: labelled as written without an LLM; a citation chip opens the cited evidence.
    page.get_by_text("Generated without an LLM").scroll_into_view_if_needed()
    assert page.get_by_text("Net revenue v1 is the authoritative definition on 2024-06-30").count() >= 1
    page.get_by_role("button", name="wiki.revenue_handbook.2023").click()
    page.get_by_text("superseded by metric.net_revenue.v2").first.wait_for(timeout=15000)
    _shot(page, "ask_explanation")
    page.close()


def test_clarify_in_a_real_browser(server, browser):
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(server)
    page.get_by_text("Which definition of a metric applied").wait_for(timeout=30000)
    page.get_by_text("No date", exact=True).click()
    _ask(page, "What is net revenue?")
    option = page.get_by_role("button", name="v1: from 2023-01-01 through 2024-12-31")
    option.wait_for(timeout=30000)
    _shot(page, "clarify_options")
    option.click()
    page.get_by_text("v1 of Net revenue applies on 2023-01-01").first.wait_for(timeout=30000)
    _shot(page, "clarify_resolved")
    page.close()


def test_other_pages_in_a_real_browser(server, browser):
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    for path, marker in (("Catalog", "Version timeline"), ("Lineage", "Upstream depth"),
                         ("Governance_review", "Open items")):
        page.goto(f"{server}/{path}")
        page.get_by_text(marker).first.wait_for(timeout=30000)
        if path == "Catalog":
            page.locator("canvas, svg.marks").first.wait_for(timeout=30000)  # the timeline chart
        if path == "Lineage":
            page.frame_locator("iframe[title='streamlit_agraph.agraph']").locator("canvas").first.wait_for(timeout=30000)
        page.wait_for_timeout(1000)
        _shot(page, path.lower())
    page.close()
