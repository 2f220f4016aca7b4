"""A real browser: `streamlit run` on 127.0.0.1, driven by Playwright through Debian's Chromium, at 1400 and
1024 px, in light and dark mode. Screenshots of every page land in test-artifacts/."""
import re
from urllib.parse import urlencode

import pytest
from conftest import DEMO, ROOT, build
from graph_geometry import problems, read
from streamlit_server import chromium, needs_chromium, served

from core.resolve.graph import FRESH_FILL

ARTIFACTS = ROOT / "test-artifacts"
SOURCE_GREEN = (26, 127, 55)  # core.resolve.graph.FRESH_FILL["pass"]: a fresh source
QUEUE_SIZE = 11  # objects in the demo's review queue (a superseded page brings the version that replaced it) (tests/answer/test_steward.py checks the queue itself)

pytestmark = needs_chromium


@pytest.fixture(scope="module")
def demo_db(tmp_path_factory, embedder):
    store, _ = build(tmp_path_factory.mktemp("browser"), "demo", DEMO, embedder)
    store.close()
    return store.path


@pytest.fixture(scope="module")
def server(demo_db):
    with served(demo_db) as url:
        yield url


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


class Console:
    """Errors the page logged (console.error, uncaught exceptions, failed requests)."""

    def __init__(self, page):
        self.errors: list[str] = []
        page.on("console", lambda m: self.errors.append(m.text[:300]) if m.type == "error" else None)
        page.on("pageerror", lambda e: self.errors.append(f"pageerror: {e}"))


def _open(browser, url: str, width: int = 1400, scheme: str = "light"):
    context = browser.new_context(viewport={"width": width, "height": 1000}, color_scheme=scheme)
    page = context.new_page()
    console = Console(page)
    page.goto(url)
    page.wait_for_selector("h1", timeout=60000)
    _settled(page)
    return context, page, console


def _settled(page) -> None:
    """Wait until Streamlit has finished the current run (its running indicator is gone)."""
    page.wait_for_timeout(600)
    page.wait_for_selector('[data-testid="stStatusWidget"]', state="detached", timeout=60000)


def _shot(page, name: str) -> None:
    """The whole page: Streamlit scrolls inside its main block, so grow the viewport to its height."""
    _settled(page)
    ARTIFACTS.mkdir(exist_ok=True)
    size = page.viewport_size
    height = page.evaluate("() => (document.querySelector('[data-testid=stMain]') || document.body).scrollHeight")
    page.set_viewport_size({"width": size["width"], "height": min(int(height) + 40, 6000)})
    page.wait_for_timeout(800)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"))
    page.set_viewport_size(size)


def _ask(page, question: str) -> None:
    before = _current_headline(page)
    box = page.get_by_label("Question", exact=True)
    box.fill(question)
    box.press("Enter")  # no click: Enter alone submits
    page.wait_for_function("""(before) => { const h = document.querySelector('.st-key-headline');
                                            return h && h.innerText !== before; }""", arg=before, timeout=60000)
    _settled(page)


def _current_headline(page) -> str | None:
    h = page.locator(".st-key-headline")
    return h.inner_text() if h.count() else None


def _headline(page) -> str:
    h = page.locator(".st-key-headline h3").first
    h.wait_for(timeout=60000)
    return h.inner_text()


def _nav(page, name: str) -> None:
    page.locator('[data-testid="stSidebarNav"]').get_by_text(name, exact=True).click()
    page.wait_for_selector(f"h1:has-text('{name}')", timeout=60000)
    _settled(page)


def _role(page, name: str) -> None:
    """The sidebar's Role box set to `name` (demo mode), the page rerun on it."""
    if page.locator('[data-testid="stSidebar"] input[aria-label="Role"]').input_value() == name:
        return
    page.get_by_role("combobox", name="Role").click()
    page.get_by_role("option", name=name, exact=True).click()
    _settled(page)
    assert page.locator('[data-testid="stSidebar"] input[aria-label="Role"]').input_value() == name


def _set_sidebar_date(page, year: str, month: str, day: str) -> None:
    page.locator('[data-testid="stSidebar"]').get_by_text("Date", exact=True).click()
    _settled(page)
    for part, value in (("year", year), ("month", month), ("day", day)):
        page.get_by_role("spinbutton", name=f"{part}, Reporting date").click()
        page.keyboard.type(value)
    page.keyboard.press("Tab")
    _settled(page)


def _click_node(page, rgb: tuple[int, int, int]) -> None:
    """Click inside the first node drawn in this colour (vis-network draws on a canvas)."""
    frame = page.locator("iframe[title='streamlit_agraph.agraph']").first.content_frame
    frame.locator("canvas").first.wait_for(timeout=30000)
    page.wait_for_timeout(1200)
    pos = frame.locator("canvas").first.evaluate(
        """(c, rgb) => { const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
             for (let y = 0; y < c.height; y += 2) for (let x = 0; x < c.width; x += 2) {
               const i = (y * c.width + x) * 4;
               if (Math.abs(d[i] - rgb[0]) < 6 && Math.abs(d[i + 1] - rgb[1]) < 6 && Math.abs(d[i + 2] - rgb[2]) < 6)
                 return [x * c.clientWidth / c.width + 12, y * c.clientHeight / c.height + 8]; }
             return null; }""", list(rgb))
    assert pos, "no node of that colour was drawn"
    frame.locator("canvas").first.click(position={"x": pos[0], "y": pos[1]})
    _settled(page)


def test_ask_enter_headline_status_and_citations(server, browser):
    context, page, console = _open(browser, server)
    page.get_by_text("Try one").wait_for()
    _shot(page, "ask_landing_light")
    # An empty question says so.
    page.get_by_label("Question", exact=True).press("Enter")
    page.get_by_text("Type a question first").wait_for(timeout=30000)
    # The form starts with no date; the question's date is used and the page says so.
    _ask(page, "The old wiki says revenue includes shipping and tax. Is that right for June 30th 2024?")
    head = _headline(page)
    assert head.startswith("No: Revenue Handbook (old wiki page) is superseded; Net revenue v1 governs on 30 Jun 2024")
    assert len(head.split()) <= 25
    page.get_by_text("using 30 Jun 2024 from your question").wait_for()
    page.frame_locator("iframe[title='streamlit_agraph.agraph']").locator("canvas").first.wait_for(timeout=30000)
    assert "q=The+old+wiki" in page.url and "role=analyst" in page.url
    # Citation chips sit inline in the explanation, carry titles, and open the cited evidence: a click brings
    # it into view (outlined), and the answer stays on the page.
    chip = page.locator(".st-key-explanation_text a[href^='#asof-cite-']", has_text="Revenue Handbook (old wiki page)")
    target = chip.first.get_attribute("href")
    chip.first.click()
    cited = page.locator(f"div[class*='st-key-cited_']:has({target})")
    page.wait_for_function("""(sel) => { const e = document.querySelector(sel); if (!e) return false;
                                         const r = e.getBoundingClientRect(); return r.top >= 0 && r.top < innerHeight; }""",
                           arg=target, timeout=15000)
    assert "superseded by metric.net_revenue.v2" in cited.inner_text()
    assert cited.evaluate("e => getComputedStyle(e).outlineStyle") == "solid"
    assert _headline(page).startswith("No: Revenue Handbook")
    _shot(page, "ask_answer_light")
    # An intent answer (who owns ...) opens with its own short headline.
    _ask(page, "who owns churn rate?")
    assert _headline(page) == "Churn rate is owned by Growth Analytics (Jonas Berg)"
    # A source in ERROR: the status line leads with it.
    _ask(page, "Is raw_web.sessions fresh?")
    assert _headline(page).startswith("No: raw_web.sessions is failing")
    status = page.locator(".st-key-status_line").inner_text()
    assert "Failing data: raw_web.sessions" in status.splitlines()[0]
    assert not console.errors, console.errors
    context.close()


def test_form_date_clash_and_clarify_keep_the_sidebar(server, browser):
    context, page, console = _open(browser, server, width=1024)
    _set_sidebar_date(page, "2025", "03", "31")
    # The user set the form: a different date in the question is asked back ...
    _ask(page, "What was net revenue on 2024-06-30?")
    option = page.get_by_role("button", name="2024-06-30", exact=True)
    option.wait_for(timeout=30000)
    _shot(page, "ask_clarify_1024")
    before = _current_headline(page)
    option.click()
    page.wait_for_function("""(before) => { const h = document.querySelector('.st-key-headline');
                                            return h && h.innerText !== before; }""", arg=before, timeout=60000)
    _settled(page)
    # ... and the choice answers the question without rewriting the sidebar.
    assert _headline(page) == "Net revenue v1 applies on 30 Jun 2024"
    assert page.get_by_role("spinbutton", name="year, Reporting date").inner_text() == "2025"
    assert page.get_by_role("spinbutton", name="month, Reporting date").inner_text() == "03"
    # The same date in the question and on the form: no question back.
    _ask(page, "What was net revenue on 2025-03-31?")
    assert _headline(page) == "Net revenue v2 applies on 31 Mar 2025"
    assert not console.errors, console.errors
    context.close()


def test_deep_link_reproduces_an_answer_in_a_fresh_context(server, browser):
    link = f"{server}/?" + urlencode({"q": "What is net revenue?", "role": "finance", "date": "2024-06-30"})
    context, page, console = _open(browser, link)
    assert _headline(page) == "Net revenue v1 applies on 30 Jun 2024"
    assert page.locator('[data-testid="stSidebar"] input[aria-label="Role"]').input_value() == "finance"
    assert not console.errors, console.errors
    context.close()


def test_steward_opens_every_queue_item_in_ask(server, browser):
    context, page, console = _open(browser, f"{server}/?role=governance")
    _nav(page, "Governance review")
    count = page.get_by_role("button", name="Open in Ask").count()
    assert count == 7
    for n in range(count):
        page.wait_for_function("() => [...document.querySelectorAll('button')].filter("
                               "b => b.innerText.trim() === 'Open in Ask').length === 7", timeout=90000)
        _settled(page)
        page.get_by_role("button", name="Open in Ask").nth(n).click()
        page.wait_for_selector("h1:has-text('Ask')", timeout=90000)
        page.get_by_text("steward view").first.wait_for(timeout=90000)
        _settled(page)
        assert page.get_by_text("Nothing you have access to matches").count() == 0, n
        if n == 0:
            _shot(page, "steward_in_ask")
        _nav(page, "Governance review")
    assert not console.errors, console.errors
    context.close()


def test_lineage_click_opens_a_node_and_catalog_search(server, browser):
    context, page, console = _open(browser, server, width=1024)
    _nav(page, "Catalog")
    page.get_by_label("Search names, aliases and descriptions").fill("repurchase rate")
    page.keyboard.press("Enter")
    page.get_by_role("button", name="Repeat purchase rate").first.wait_for(timeout=90000)
    _settled(page)
    page.get_by_role("button", name="Repeat purchase rate").first.click()
    page.wait_for_function("""() => [...document.querySelectorAll('[data-testid=stMain] input')]
                                    .some(i => i.value === 'Repeat purchase rate (metric.repeat_purchase_rate)')""",
                           timeout=90000)
    _nav(page, "Lineage")
    _click_node(page, SOURCE_GREEN)
    # The panel's container is drawn before its text on a loaded machine: wait for the text, not the box.
    page.wait_for_function("() => (document.querySelector('.st-key-opened_node')?.innerText || '')"
                           ".toLowerCase().includes('source')", timeout=60000)
    _shot(page, "lineage_clicked_1024")
    assert not console.errors, console.errors
    context.close()


@pytest.mark.parametrize("scheme,width", [("light", 1400), ("dark", 1024)])
def test_every_page_renders_without_console_errors(server, browser, scheme, width):
    context, page, console = _open(browser, f"{server}/?role=governance", width=width, scheme=scheme)
    background = page.evaluate("() => getComputedStyle(document.querySelector('[data-testid=stApp]')).backgroundColor")
    dark = sum(int(x) for x in background[background.index("(") + 1:background.index(")")].split(",")[:3]) < 200
    assert dark == (scheme == "dark"), background
    _shot(page, f"page_ask_landing_{scheme}")
    _ask(page, "How was churn defined in calendar year 2025?")
    assert _headline(page).startswith("Churn rate changed definition for all of 2025")
    _shot(page, f"page_ask_split_{scheme}")
    for name in ("Catalog", "Lineage", "Governance review", "Evaluation", "Audit"):
        _nav(page, name)
        if name == "Catalog":  # the steward's Catalog lists every object of its queue, each opened read-only
            queue = page.locator('[data-testid="stExpander"]', has_text=f"Objects in your review queue ({QUEUE_SIZE})")
            queue.locator('[data-testid="stTable"]').wait_for(timeout=30000)
            if scheme == "light":  # one click opens a row's object below: the first, an ACL nobody is in
                queue.locator(".st-key-queue_table_open_0 button").click()
                _settled(page)
                page.wait_for_function("(want) => [...document.querySelectorAll('[data-testid=stMain] input')]"
                                       ".some(i => i.value === want)", arg="KPI glossary export (2022) (doc.kpi_glossary)",
                                       timeout=30000)
        if name == "Lineage":
            # The steward's view holds its queue objects, not the lineage around them: a queue metric may have none.
            caption = page.get_by_text(re.compile(r"\d+ edges\.")).first
            caption.wait_for(timeout=30000)
            if not re.search(r"; 0 edges\.", caption.inner_text()):
                page.frame_locator("iframe[title='streamlit_agraph.agraph']").locator("canvas").first.wait_for(timeout=30000)
            page.wait_for_timeout(1200)
        _shot(page, f"page_{name.lower().replace(' ', '_')}_{scheme}")
    assert not console.errors, console.errors
    context.close()


def test_several_browsers_at_once_each_see_only_their_roles_answer(server, browser):
    """Browser sessions asking at once, as different roles: each page shows the answer it shows when asked
    alone, and no page carries an id its role may not see (the app shares one Store across sessions)."""
    from concurrency import foreign_ids

    from core.ingest.load import load_catalog
    catalog = load_catalog(DEMO)
    asks = [("analyst", "How was churn defined?", "2025-03-31"), ("finance", "contribution margin", "2025-06-30"),
            ("marketing", "What is net revenue?", "2024-06-30"), ("finance", "What is net revenue?", "2025-03-31"),
            ("analyst", "What is the board memo about margin?", "2025-03-31"),
            ("marketing", "customer acquisition cost", "2025-03-31")]
    links = [f"{server}/?" + urlencode({"q": q, "role": r, "date": d}) for r, q, d in asks]

    def load(pages):
        for (_context, page), link in zip(pages, links):
            page.goto(link, wait_until="commit")  # all requests in flight before any is read
        out = []
        for (_context, page), _ in zip(pages, asks):
            text = _headline(page)
            _settled(page)
            out.append((text, page.content()))
        return out

    def fresh():
        contexts = [browser.new_context(viewport={"width": 1400, "height": 1000}) for _ in asks]
        return [(c, c.new_page()) for c in contexts]

    alone = []
    for link in links:  # one at a time first
        context, page, _ = _open(browser, link)
        alone.append(_headline(page))
        context.close()
    for _ in range(2):
        pages = fresh()
        got = load(pages)
        for (text, html), expected, (role, q, _) in zip(got, alone, asks):
            assert text == expected, q
            leaked = sorted(i for i in foreign_ids(catalog, role) if i in html)
            assert not leaked, (role, q, leaked)
        for context, _ in pages:
            context.close()


# ---------------------------------------------------------------- a dbt catalog (ASOF_DB=...)


@pytest.fixture(scope="module")
def dbt_server(tmp_path_factory):
    """jaffle-shop with its governance overlay, ingested through the CLI as a user would."""
    from conftest import cli
    db = tmp_path_factory.mktemp("browser_dbt") / "jaffle-shop.duckdb"
    fixtures = ROOT / "tests" / "fixtures" / "realworld"
    r = cli("ingest", "--dbt", str(fixtures / "jaffle-shop"), "--overlay", str(ROOT / "data/dbt/jaffle-shop.overlay.yml"),
            "--openlineage", str(ROOT / "data/dbt/openlineage"), "--db", str(db))
    assert r.returncode == 0, r.stderr
    with served(db) as url:
        yield url


def test_a_dbt_catalog_answers_in_the_browser_without_leaking(dbt_server, browser):
    """The same pages on a real dbt project: owner from the overlay, the dbt definition's history, every page
    without console errors, and nothing of the finance-only margin metrics in the analyst's pages."""
    context, page, console = _open(browser, f"{dbt_server}/?role=analyst", width=1024)
    _ask(page, "who owns revenue?")
    assert _headline(page) == "Revenue is owned by Finance (Dana Ruiz)"
    _ask(page, "what was revenue on 30/06/2024?")
    assert _headline(page).startswith("Revenue v1 applies on 30 Jun 2024")
    _shot(page, "dbt_ask_analyst")
    html = page.content()
    for name in ("Catalog", "Lineage"):
        _nav(page, name)
        if name == "Lineage":
            page.frame_locator("iframe[title='streamlit_agraph.agraph']").locator("canvas").first.wait_for(timeout=30000)
        _shot(page, f"dbt_{name.lower()}_analyst")
        html += page.content()
    for hidden in ("order_gross_profit", "order_cost", "Order Gross Profit"):
        assert hidden not in html, hidden
    assert not console.errors, console.errors
    context.close()


# ---------------------------------------------------------------- direct page links, graph fit, steward queue match

# Streamlit's own behaviour (streamlit/streamlit#7074, open): a page opened by its URL first probes
# /<page>/_stcore/health and /<page>/_stcore/host-config, gets 404, then finds the server at /. Only those.
STREAMLIT_PROBES = ("/_stcore/health", "/_stcore/host-config")
BLANK_EDGE_PX = 40  # at most this much empty canvas above and below the drawn graph

_CANVAS_EDGES = """(c) => { const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
  let top = -1, bottom = -1;
  for (let y = 0; y < c.height && top < 0; y++) for (let x = 0; x < c.width; x++) if (d[(y * c.width + x) * 4 + 3]) { top = y; break; }
  for (let y = c.height - 1; y >= 0 && bottom < 0; y--) for (let x = 0; x < c.width; x++) if (d[(y * c.width + x) * 4 + 3]) { bottom = y; break; }
  const s = c.clientHeight / c.height;
  return {top: top * s, bottom: (c.height - 1 - bottom) * s, height: c.clientHeight}; }"""


def _graph_edges(page) -> dict:
    """Empty canvas above and below what vis-network drew, in CSS px."""
    frame = page.locator("iframe[title='streamlit_agraph.agraph']").first.content_frame
    canvas = frame.locator("canvas").first
    canvas.wait_for(timeout=30000)
    page.wait_for_timeout(1500)
    return canvas.evaluate(_CANVAS_EDGES)


def _nav_entries(page) -> list[str]:
    return [t.strip() for t in page.locator('[data-testid="stSidebarNav"] a').all_inner_texts()]


def test_a_page_opened_by_its_url_renders_and_its_graph_fits(demo_db, browser):
    """A fresh server whose first visitor opens a page by its URL (a bookmark after a restart)."""
    with served(demo_db) as server:
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        page = context.new_page()
        console = Console(page)
        probes = []
        page.on("response", lambda r: probes.append(r.url) if r.status == 404 else None)
        # A link to a steward's page carries its role: the page opens as that role, not as the first one,
        # under the app's own navigation (not Streamlit's pages-folder list with an "app" entry).
        page.goto(f"{server}/Audit?role=governance")
        page.wait_for_selector("h1:has-text('Audit')", timeout=60000)
        _settled(page)
        assert page.get_by_text("may not read it").count() == 0
        assert page.locator('[data-testid="stSidebar"] input[aria-label="Role"]').input_value() == "governance"
        entries = _nav_entries(page)
        assert "app" not in entries and any(e.endswith("Audit") for e in entries), entries
        page.goto(f"{server}/Catalog")  # a new session, as the first role: no steward pages listed
        page.wait_for_selector("h1:has-text('Catalog')", timeout=60000)
        _settled(page)
        entries = _nav_entries(page)
        assert not any(e.endswith(("Audit", "Evaluation")) for e in entries), entries
        _direct_pages_and_graph_fit(server, page, console, probes)
        context.close()


def _direct_pages_and_graph_fit(server, page, console, probes) -> None:
    for name in ("Catalog", "Lineage"):
        page.goto(f"{server}/{name}")
        page.wait_for_selector(f"h1:has-text('{name}')", timeout=60000)
        _settled(page)
    assert all(u.startswith(tuple(f"{server}/{p}/" for p in ("Audit", "Catalog", "Lineage"))) for u in probes), probes
    assert all(u.endswith(STREAMLIT_PROBES) for u in probes), probes
    assert len(console.errors) == len(probes), console.errors  # each console error is one of those probes
    # The default graph (a few nodes per level, top-down) fills its canvas: no wide empty bands.
    edges = _graph_edges(page)
    assert edges["top"] <= BLANK_EDGE_PX and edges["bottom"] <= BLANK_EDGE_PX, edges
    # Eleven metrics read one model: laid out left to right, still without empty bands.
    page.locator('[data-testid=stMain] [data-testid=stSelectbox]').first.click()
    page.keyboard.type("raw_shop.orders")
    page.keyboard.press("Enter")
    _settled(page)
    page.get_by_role("slider").nth(1).focus()
    page.keyboard.press("End")
    _settled(page)
    edges = _graph_edges(page)
    assert edges["top"] <= BLANK_EDGE_PX and edges["bottom"] <= BLANK_EDGE_PX, edges
    _shot(page, "lineage_wide_fit")


def test_a_steward_question_naming_a_queue_object_shows_it_read_only(server, browser):
    """A queue object nobody may see (an empty ACL) is in the steward's view: the question naming it answers
    with it, read-only, and the status line says it comes from the review queue."""
    link = f"{server}/?" + urlencode({"q": "what does the kpi glossary export say?", "role": "governance"})
    context, page, console = _open(browser, link)
    assert "KPI glossary export (2022)" in _headline(page)
    assert "from your review queue" in page.locator(".st-key-status_line").inner_text()
    assert page.get_by_text("Nothing you have access to matches").count() == 0
    _shot(page, "steward_queue_match")
    assert not console.errors, console.errors
    context.close()
    # A steward sees no metric of its own: the landing page lists its queue's metrics, one click asks about one.
    context, page, console = _open(browser, f"{server}/?role=governance")
    page.get_by_text("Metrics role governance can ask about (4)").wait_for(timeout=30000)
    page.locator(".st-key-landing_metric").get_by_text("Net revenue", exact=True).click()
    page.locator(".st-key-headline").wait_for(timeout=60000)
    _settled(page)
    assert _headline(page).startswith("Net revenue")
    assert "Steward view" in page.locator(".st-key-status_line").inner_text()
    assert not console.errors, console.errors
    context.close()


def test_demo_graphs_have_no_edge_through_a_box_and_a_failing_source_is_red(server, browser):
    """Issue 19 item 1 on the demo: fct_order_costs feeds contribution margin beside net revenue, and the edge
    used to be drawn straight through the fct_orders and net revenue boxes; Graph -> Table -> Graph used to
    come back as one huge clipped box."""
    link = f"{server}/?" + urlencode({"q": "What is contribution margin?", "role": "finance", "date": "2025-03-31"})
    context, page, console = _open(browser, link)
    assert _headline(page) == "Contribution margin v1 applies on 31 Mar 2025"
    geo = read(page)
    assert {"model.fct_order_costs.v1", "metric.net_revenue.v2", "model.fct_orders.v2"} <= set(geo["boxes"])
    assert problems(geo) == []
    page.get_by_text("Table", exact=True).first.click()
    _settled(page)
    page.get_by_text("Graph", exact=True).first.click()
    _settled(page)
    again = read(page)
    assert problems(again) == [] and abs(again["scale"] - geo["scale"]) < 0.01
    # Freshness is the colour of the whole box, as the legend says: failing is red, never green with a red border.
    page.goto(f"{server}/?" + urlencode({"q": "is the conversion rate data fresh?", "role": "analyst"}))
    page.wait_for_selector("h1", timeout=60000)
    _settled(page)
    assert _headline(page).startswith("No: raw_web.sessions behind Conversion rate")
    geo = read(page)
    failing = [b for b in geo["boxes"].values() if b["label"].endswith("failing")]
    assert failing and all(b["fill"] == FRESH_FILL["error"] for b in failing)
    assert all(b["fill"] != FRESH_FILL["pass"] for b in geo["boxes"].values() if not b["label"].endswith("fresh"))
    assert "source failing" in page.locator("[data-testid=stMain]").inner_text()
    assert problems(geo) == []
    _nav(page, "Lineage")  # the Lineage page at its default entity, narrower
    page.set_viewport_size({"width": 1024, "height": 1000})
    _settled(page)
    assert problems(read(page)) == []
    assert not console.errors, console.errors
    context.close()


def test_the_demo_opens_on_its_own_clock_and_its_first_example_is_not_failing(server, browser):
    """Issue 19 item 2: the demo names its evaluation time (29 Nov 2026 12:00 UTC), so a visitor who opens it
    weeks later sees its data as designed (fresh, stale, failing where the catalog says), and the page says
    which clock it used."""
    context, page, console = _open(browser, server)
    sidebar = page.locator('[data-testid="stSidebar"]').inner_text()
    assert "Clock: this catalog's own, 29 Nov 2026 12:00 UTC" in sidebar
    page.locator(".st-key-example_version_change button").click()
    page.locator(".st-key-headline").wait_for(timeout=60000)
    _settled(page)
    main = page.locator("[data-testid=stMain]").inner_text()
    assert "changed definition" in _headline(page)
    formulas = page.locator("[data-testid=stCode]")
    formulas.first.wait_for(timeout=30000)
    assert all("(" in c.inner_text() for c in formulas.all())  # the first answer's formula boxes are not blank
    # Its sources are fresh, stale or have no load recorded, by design: no "Failing" status, badge or graph label
    # (a threshold's "failing after 24 h" is not a verdict).
    assert not re.search(r"Failing|\bfailing\b(?! after)", main), main
    # No date on the form: "what is net revenue?" answers for the demo's today, and v1 is one click away.
    _ask(page, "what is net revenue?")
    assert _headline(page) == "Net revenue v2 applies on 29 Nov 2026"
    page.locator(".st-key-other_versions button").first.click()
    page.wait_for_function("() => document.querySelector('.st-key-headline').innerText.includes('v1')", timeout=60000)
    _settled(page)
    assert _headline(page) == "Net revenue v1 applies on 1 Jan 2023"
    assert not console.errors, console.errors
    context.close()


_OVERFLOW = """() => [...document.querySelectorAll('[data-testid=stDataFrame], [data-testid=stTable]')].map(el => {
  const scroller = el.querySelector('.dvn-scroller') || el;
  return [el.dataset.testid, scroller.scrollWidth - scroller.clientWidth]; })"""


@pytest.mark.parametrize("width", [1280, 1024])
def test_tables_fit_the_page_without_cutting_a_column(server, browser, width):
    """Issue 19 item 5: at 1280 and 1024 px no table scrolls sideways (a column past the edge is a cut column):
    the lineage table of an answer and the Catalog's metric list."""
    link = f"{server}/?" + urlencode({"q": "What is contribution margin?", "role": "finance", "date": "2025-03-31"})
    context, page, console = _open(browser, link, width=width)
    page.get_by_text("Table", exact=True).first.click()
    page.locator("[data-testid=stTable]").first.wait_for(timeout=30000)
    _settled(page)
    tables = page.evaluate(_OVERFLOW)
    assert tables and all(over <= 1 for _, over in tables), tables
    _nav(page, "Catalog")
    page.locator("[data-testid=stTable]").first.wait_for(timeout=30000)
    page.wait_for_timeout(1500)
    tables = page.evaluate(_OVERFLOW)
    assert tables and all(over <= 1 for _, over in tables), tables
    assert not console.errors, console.errors
    context.close()
