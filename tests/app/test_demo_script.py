"""The demo script in docs/app.md ("A five-minute demo"), replayed in Chromium on the bundled demo catalog and its
warehouse, in one browser session: each row's question is asked as its role, and every phrase the row says the page
shows must be on the page. The table is read from the doc, so the script a presenter follows cannot drift."""
import re
import subprocess
import sys

import pytest
from conftest import DEMO, ROOT, build
from streamlit_server import chromium, needs_chromium, served
from test_browser import _ask, _role, _settled

pytestmark = needs_chromium


def steps() -> list[tuple[str, str, list[str]]]:
    text = (ROOT / "docs" / "app.md").read_text()
    section = text.split("## A five-minute demo", 1)[1].split("\n## ", 1)[0]
    rows = [r for r in section.splitlines() if re.match(r"\|\s*\d+\s*\|", r)]
    out = []
    for row in rows:
        _, role, question, shows = [c.strip() for c in row.strip("|").split("|")]
        out.append((role, question, [p.strip() for p in shows.split(" · ")]))
    return out


def test_the_doc_has_a_demo_script():
    assert len(steps()) >= 5


@pytest.fixture(scope="module")
def server(tmp_path_factory, embedder):
    root = tmp_path_factory.mktemp("demo_script")
    store, _ = build(root, "demo", DEMO, embedder)
    store.close()
    warehouse = root / "warehouse.duckdb"  # the warehouse scripts/run.sh builds for the demo
    subprocess.run([sys.executable, str(ROOT / "scripts" / "build_warehouse.py"), str(warehouse)], check=True,
                   capture_output=True)
    with served(store.path, {"ASOF_WAREHOUSE": str(warehouse)}) as url:
        yield url


def test_every_step_of_the_demo_script_shows_what_the_doc_says(server):
    with chromium() as browser:
        page = browser.new_context(viewport={"width": 1366, "height": 1000}).new_page()
        page.goto(f"{server}/?role=analyst")
        page.wait_for_selector("h1", timeout=60000)
        _settled(page)
        for n, (role, question, shows) in enumerate(steps(), 1):
            _role(page, role)
            _ask(page, question)
            text = page.locator('[data-testid="stMain"]').inner_text()
            missing = [p for p in shows if p not in text]
            assert not missing, f"step {n} ({question!r} as {role}): not shown: {missing}\n{text[:1500]}"
