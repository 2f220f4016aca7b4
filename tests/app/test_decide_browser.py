"""The steward decides in a real browser (Chromium driving `streamlit run` on the demo): the demo's overlapping
repeat-purchase-rate versions are closed on the Governance review page with a reason; the closed item shows who
decided and why; an analyst's next answer follows the decision and cites it; "as recorded" before it still answers
with the overlap a reviewer must decide."""
from datetime import datetime, timezone

from streamlit_server import chromium, needs_chromium, served
from test_browser import _ask, _headline, _nav, _open, _role, _settled, demo_db  # noqa: F401 (the fixture: a demo of this module's own)

from core.ingest.decision_file import read_records

pytestmark = needs_chromium


def test_the_steward_closes_the_demos_overlap(demo_db):
    with served(demo_db) as url, chromium() as browser:
        context, page, console = _open(browser, f"{url}/?role=governance")
        _nav(page, "Governance review")
        item = page.locator("[class*='st-key-item_']").filter(has_text="Repeat purchase rate: v1 and v2 overlap")
        item.get_by_text("Decide", exact=True).click()
        _settled(page)
        assert item.get_by_label("Governs").input_value() == "metric.repeat_purchase_rate.v2"
        before = datetime.now(timezone.utc)
        # No reason: refused, nothing recorded.
        item.get_by_role("button", name="Record decision").click()
        _settled(page)
        page.get_by_text("Refused, nothing changed: a reason is required").wait_for(timeout=30000)
        assert not read_records(demo_db).decisions
        item.get_by_label("Reason (required)").fill("Growth and Finance agreed v2 from June 2025")
        item.get_by_role("button", name="Record decision").click()
        page.get_by_text("v2 governs from 2025-06-01. New catalog revision").wait_for(timeout=60000)
        _settled(page)
        decision = read_records(demo_db).decisions[0]
        assert decision.identity == "demo picker" and decision.by == "governance"
        assert page.locator("[class*='st-key-item_']").filter(has_text="v1 and v2 overlap").count() == 0
        # Closed items, filtered to: who decided and why.
        page.locator(".st-key-review_show").get_by_text("Closed", exact=True).click()
        _settled(page)
        closed = page.locator("[class*='st-key-closed_']").first
        assert "Decided by governance (demo picker" in closed.inner_text()
        assert "Growth and Finance agreed v2 from June 2025" in closed.inner_text()
        # An analyst's next answer follows it, and cites it.
        _nav(page, "Ask")
        _role(page, "analyst")
        _ask(page, "What is repeat purchase rate on 2025-07-01?")
        assert "v2" in _headline(page) and "overlap" not in _headline(page)
        page.get_by_text(f"v2 governs from 2025-06-01, by a steward decision of {decision.day()}").first.wait_for()
        # As recorded before the decision: the overlap a reviewer must decide, as it was.
        _ask(page, f"What is repeat purchase rate on 2025-07-01 as recorded at {before.isoformat()}?")
        assert "overlap" in _headline(page) and "governance reviewer must decide" in _headline(page)
        assert not console.errors, console.errors
        context.close()
