"""Catalog and model text stays text: no terminal escapes, no Markdown/HTML/badges that act, and the
citation validator refuses explanation sentences that carry markup or outside URLs."""
import json
from datetime import date

import pytest
from conftest import DEMO, DEMO_AT, cli

from core.answer.ask import Question, ask
from core.catalog.access import Visible
from core.catalog.explanation import Cited
from core.catalog.store import Store, write_catalog
from core.explain.citations import validate
from core.explain.render import render_text
from core.explain.safe_text import json_safe, md_code, md_escape, plain
from core.ingest.load import load_catalog

IMAGE = "![x](http://evil.example/p.png)"
BADGE = ":green-badge[AUTHORITATIVE]"
HTML = '<img src="http://evil.example/q.png">'
CLEAR = "\x1b[2J"
HOSTILE = [IMAGE, BADGE, HTML, CLEAR, "\x1b]0;pwned\x07", "\x9b2J", "a\rb", "\u202eevil", "[click](javascript:x)"]
TERMINAL_CONTROLS = ["\x1b", "\x9b", "\x07", "\r", "\u202e", "\x00"]


def test_plain_strips_escapes_and_controls_but_keeps_the_words():
    assert plain(f"Net revenue{CLEAR} v2") == "Net revenue v2"
    assert plain("title\x1b]0;window title\x07 end") == "title end"
    assert plain("red \x1b[31mALERT\x1b[0m") == "red ALERT"
    assert plain("a\x9b2Jb\x00c\x7fd") == "abcd"
    assert plain("line one\nline two") == "line one\nline two"
    assert plain("line one\nline two\tx", oneline=True) == "line one line two x"
    assert plain(None) == "" and plain(42) == "42"
    for text in HOSTILE:
        assert not any(c in plain(text) for c in TERMINAL_CONTROLS)


def test_md_escape_renders_as_the_same_text_in_commonmark():
    markdown_it = pytest.importorskip("markdown_it")
    md = markdown_it.MarkdownIt("commonmark").enable("table").enable("strikethrough")
    for text in [IMAGE, HTML, "[click](javascript:alert(1))", "# heading", "- item", "1. item", "*bold* _it_",
                 "`code`", "a | b", "<http://evil.example>", "&lt;b&gt;", "x\\y", "~~gone~~"]:
        html = md.renderInline(md_escape(text))
        assert "<img" not in html and "<a " not in html and "<em>" not in html and "<code>" not in html, html
        assert "<del>" not in html
        # What shows is exactly the original text (HTML-escaped by the renderer); a URL carries an invisible
        # word joiner after its scheme so that GFM does not autolink it.
        html = html.replace("\u2060", "")
        assert html.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", '"').replace("&amp;", "&") == text


def test_md_escape_breaks_streamlit_directives_and_lines():
    # Streamlit's `:color[...]`, `:green-badge[...]`, `:material/...:` and emoji shortcodes start with ':'.
    assert md_escape(BADGE) == r"\:green\-badge\[AUTHORITATIVE\]"
    assert md_escape(":material/check_circle: ok").startswith(r"\:material\/check\_circle\:")
    assert "\n" not in md_escape("title\n# Fake heading") and "\n" in md_escape("a\nb", oneline=False)
    assert md_escape(f"x{CLEAR}y") == "xy"


def test_md_code_cannot_be_closed_from_inside():
    assert md_code("a `b` c") == "``a `b` c``"
    assert md_code("``") == "``` `` ```"
    assert md_code(f"x{CLEAR}") == "`x`"


def test_json_safe_escapes_what_json_leaves_raw():
    text = json.dumps({"t": "a\x9b2J\u202eb\x7f"}, ensure_ascii=False)
    safe = json_safe(text)
    assert json.loads(safe) == json.loads(text) and not any(c in safe for c in "\x9b\u202e\x7f")


@pytest.fixture(scope="module")
def hostile_db(tmp_path_factory) -> Store:
    """The demo catalog with net revenue v2's title and the draft's text made hostile."""
    catalog = load_catalog(DEMO)
    for ev in catalog.evidence:
        if ev.evidence_id == "metric.net_revenue.v2":
            ev.title = f"Net revenue {IMAGE} {BADGE} {HTML} {CLEAR}\nFAKE LINE"
    db = tmp_path_factory.mktemp("hostile") / "hostile.duckdb"
    write_catalog(catalog, db)
    return Store(db)


def test_terminal_output_never_carries_escape_sequences(hostile_db):
    env = ask(hostile_db, Question(role="analyst", text="What does net revenue mean?", day=date(2025, 3, 31),
                                   at=DEMO_AT))
    assert any("FAKE LINE" in s.title for s in env.selected)   # the hostile title is in the answer
    text = render_text(env)
    assert not any(c in text for c in TERMINAL_CONTROLS)
    assert not any(line.startswith("FAKE LINE") for line in text.splitlines())  # no forged line


def test_cli_prints_no_escape_sequences(hostile_db, monkeypatch):
    monkeypatch.delenv("ASOF_AUTH", raising=False)
    db = str(hostile_db.path)
    q = ["ask", "--db", db, "--role", "analyst", "--date", "2025-03-31", "What does net revenue mean?"]
    text, js = cli(*q), cli(*q, "--json")
    for r in (text, js):
        assert r.returncode == 0 and "metric.net_revenue.v2" in r.stdout
        assert not any(c in r.stdout for c in TERMINAL_CONTROLS)
    # --json keeps the data exact (the escape is written as \u001b); it is never printed raw.
    assert CLEAR in json.loads(js.stdout)["selected"][0]["title"]
    # An error quoting user input does not pass its escapes through either.
    r = cli("ask", "--db", db, "--role", f"ceo{CLEAR}", "What is net revenue?")
    assert r.returncode == 2 and "\x1b" not in r.stderr


# --- the citation validator ----------------------------------------------------------------------------------

GOOD = "Net revenue v2 is the authoritative definition on 2025-03-31"


@pytest.fixture(scope="module")
def nr_2025(tmp_path_factory):
    db = tmp_path_factory.mktemp("cite") / "demo.duckdb"
    write_catalog(load_catalog(DEMO), db)
    store = Store(db)
    env = ask(store, Question(role="analyst", text="What was net revenue on 2025-03-31?", at=DEMO_AT))
    return env, Visible(store, "analyst").visible_ids


def _rules(env, visible, text):
    sentences = [Cited(text=text, citations=["metric.net_revenue.v2"])]
    _, validation = validate(sentences, env, visible({"metric.net_revenue.v2"}))
    return {p.rule for p in validation.problems if p.sentence == 0}


@pytest.mark.parametrize("smuggled, rule", [
    (f" {IMAGE}.", "markup"),
    (f" {BADGE}.", "markup"),
    (f" {HTML}.", "markup"),
    (" [details](http://evil.example/x).", "markup"),
    (" <http://evil.example/x>.", "markup"),
    (" :red[really].", "markup"),
    (f"{CLEAR}.", "control_characters"),
    ("\x1b[31m.", "control_characters"),
    (". See https://evil.example/net-revenue for more.", "url_not_in_evidence"),
    (". See www.evil.example.", "url_not_in_evidence"),
])
def test_model_sentences_with_markup_or_outside_urls_are_rejected(nr_2025, smuggled, rule):
    env, visible = nr_2025
    assert _rules(env, visible, GOOD + ".") == set()             # the clean sentence passes
    assert rule in _rules(env, visible, GOOD + smuggled)


def test_markup_inside_a_code_span_is_inert_but_still_checked_against_the_evidence(nr_2025):
    env, visible = nr_2025
    rules = _rules(env, visible, f"{GOOD}, calculated as `{IMAGE}`.")
    assert "markup" not in rules and "formula_not_in_evidence" in rules
