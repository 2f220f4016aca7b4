"""Follow-up questions in a real browser (Playwright, Debian's Chromium) on a catalog the test writes itself (a ferry
operator, tests/ferry_catalog.py): a short question after an answer continues from its subject and dates and says
so under the answer; a question naming its own subject starts afresh; switching role in the sidebar never carries one
role's subject into another's question."""
import pytest
from conftest import build
from ferry_catalog import AT, EVIDENCE, ROLES
from streamlit_server import chromium, needs_chromium, served
from test_browser import _ask, _role, _settled
from visits_catalog import write_yaml_catalog

pytestmark = needs_chromium


@pytest.fixture(scope="module")
def server(tmp_path_factory, embedder):
    root = tmp_path_factory.mktemp("ferry_browser")
    store, _ = build(root, "ferry", write_yaml_catalog(root / "catalog", ROLES, EVIDENCE, AT), embedder)
    store.close()
    with served(store.path) as url:
        yield url


def _asked(page, question: str) -> str:
    """The whole answer's text once the question is answered."""
    _ask(page, question)
    return page.locator('[data-testid="stMain"]').inner_text()


def test_a_follow_up_continues_from_the_last_answer_in_the_browser(server):
    with chromium() as browser:
        page = browser.new_context(viewport={"width": 1366, "height": 1000}).new_page()
        page.goto(f"{server}/?role=dispatcher")
        page.wait_for_selector("h1", timeout=60000)
        _settled(page)
        first = _asked(page, "What was fare revenue in 2024?")
        assert "Fare revenue" in first and "last question" not in first
        later = _asked(page, "and for 2025?")
        assert "Continuing with Fare revenue from your last question" in later
        assert "SUM(fare_eur) - SUM(refund_eur)" in later  # v2, 2025's definition
        fresh = _asked(page, "is it fresh?")
        assert "Reading 'it' as Fare revenue for 2025-01-01 to 2025-12-31 from your last question" in fresh
        # Its link asks what was answered: opened in a new session, Fare revenue for 2025, nothing carried.
        assert "entity=metric.fare_revenue" in page.url and "period=2025-01-01..2025-12-31" in page.url
        shared = browser.new_context(viewport={"width": 1366, "height": 1000}).new_page()
        shared.goto(page.url)
        shared.wait_for_selector(".st-key-headline h3", timeout=60000)
        _settled(shared)
        opened = shared.locator('[data-testid="stMain"]').inner_text()
        assert "Fare revenue" in opened and "last question" not in opened and "SUM(fare_eur) - SUM(refund_eur)" in opened
        own = _asked(page, "What about seated passengers?")
        assert "Seated passengers" in own and "last question" not in own
        # A question asked as the dispatcher, then the purser role: the page shows it again as the purser, but the
        # purser never asked it, so a follow-up continues nothing.
        _role(page, "purser")
        assert "last question" not in _asked(page, "is it fresh?")
        _role(page, "dispatcher")
        # A purser-only answer, then the dispatcher role in the sidebar: nothing of it is carried or named.
        _role(page, "purser")
        assert "Passenger boarding fee" in _asked(page, "What is the boarding fee?")
        _role(page, "dispatcher")
        switched = _asked(page, "is it fresh?")
        assert "last question" not in switched and "boarding" not in switched.lower(), switched[:1500]

