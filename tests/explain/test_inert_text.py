"""Catalog text is never a template, a link or a control character (issue 23, item 7).

A catalog built here carries a bare URL, a www. name, an e-mail address, a right-to-left override and
backslash sequences (`\\1`, `\\g<0>`) in a title, a grain, exclusions and an owner. The answer does not crash,
the app's Markdown has nothing Streamlit would autolink and no bidi control, and the CLI text has no control
character; --json keeps the data exact.
"""
import json
import re
from datetime import date

import pytest
import yaml
from conftest import DEMO_AT, cli

from core.answer.ask import Question, ask
from core.catalog.store import Store, write_catalog
from core.explain.render import render_text
from core.explain.safe_text import md_escape, plain
from core.ingest.load import load_catalog
from ui import safe
from ui.answer import _titled, titles
from ui.safe import code, md, prose

RLO, PDF = "\u202e", "\u202c"
BIDI = ["\u061c", "\u200e", "\u200f", "\u202a", "\u202b", "\u202c", "\u202d", "\u202e",
        "\u2066", "\u2067", "\u2068", "\u2069"]
TITLE = f"Net bookings {RLO}lanif{PDF} \u061cnet see https://evil.example/nb \\1 \\g<0> \\\\2"
GRAIN = "one row per booking, see www.evil.example/grain"
OWNER = f"Sales Ops (ops@evil.example) {RLO}http://evil.example/owner"
EXCLUSIONS = ["test bookings", "http://evil.example/excluded", f"{RLO}refunds"]
EID = "metric.net_bookings.v1"

# remark-gfm's autolink literals, matched on the text after backslash escapes are resolved (as Streamlit
# renders it): http(s)://, www. and e-mail addresses.
_URL = re.compile(r"(https?://|www(?=\.))([-.\w]+)", re.I)
_EMAIL = re.compile(r"([-.\w+]+)@([-\w]+(?:\.[-\w]+)+)")


def _rendered(markdown: str) -> str:
    """Markdown with backslash escapes resolved: the text an autolink pattern sees."""
    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", markdown)


def autolinks(markdown: str) -> list[str]:
    text = _rendered(markdown)
    return [m.group() for m in _URL.finditer(text)] + [m.group() for m in _EMAIL.finditer(text)]


@pytest.fixture(scope="module")
def hostile(tmp_path_factory) -> Store:
    folder = tmp_path_factory.mktemp("inert")
    doc = {
        "roles": [{"name": "analyst"}, {"name": "finance"}],
        "evidence": [{
            "evidence_id": EID, "entity_id": "metric.net_bookings", "kind": "metric_definition",
            "title": TITLE, "version": "1", "authority": "authoritative", "lifecycle": "current",
            "authority_class": "semantic_registry", "valid_from": date(2024, 1, 1), "acl": ["analyst", "finance"],
            "owner": OWNER, "aliases": ["net bookings", "bookings"],
            "metric": {"formula": "SUM(booking_usd)", "grain": GRAIN, "unit": "USD", "exclusions": EXCLUSIONS},
            "text": "Net bookings is the sum of bookings in USD.",
        }, {
            "evidence_id": "draft.net_bookings.2025", "entity_id": "metric.net_bookings", "kind": "metric_definition",
            "title": f"Net bookings draft \\g<0> {RLO}www.evil.example", "version": "draft-2025",
            "authority": "non_authoritative", "lifecycle": "draft", "authority_class": "analytics_draft",
            "acl": ["analyst", "finance"], "owner": OWNER, "aliases": ["net bookings"],
            "text": "WORKING DRAFT. Net bookings as gross bookings in USD. Not approved.",
        }],
    }
    (folder / "c.yaml").write_text(yaml.safe_dump(doc, allow_unicode=True), encoding="utf-8")
    write_catalog(load_catalog(folder / "c.yaml"), folder / "c.duckdb")
    return Store(folder / "c.duckdb")


@pytest.fixture(scope="module")
def env(hostile):
    return ask(hostile, Question(role="analyst", text="What is net bookings?", day=date(2025, 3, 31), at=DEMO_AT))


def test_md_never_leaves_a_bare_url_or_an_email_to_autolink():
    for text in ["see https://evil.example/x", "HTTP://EVIL.EXAMPLE", "www.evil.example", "ops@evil.example",
                 "ftp://evil.example", TITLE, GRAIN, OWNER, *EXCLUSIONS]:
        assert autolinks(md(text)) == [], text
        assert autolinks(md_escape(text, oneline=False)) == [], text
        assert autolinks(prose(f"{text} `SUM(x)`")) == [], text
    # The words still read the same once the invisible joiner is set aside.
    assert _rendered(md("see https://evil.example/x")).replace("\u2060", "") == "see https://evil.example/x"


def test_no_bidi_control_or_invisible_format_character_survives_any_display_helper():
    hostile = "a" + "".join(BIDI) + "\u200b\u2060\ufeff" + "b"
    for helper in (plain, md, code, prose, getattr(safe, "inert", plain)):
        assert helper(hostile).replace("\u2060", "") in ("ab", "`ab`"), helper
        assert not any(c in helper(hostile) for c in BIDI)


def test_a_title_with_backslash_sequences_is_text_not_a_replacement_template(env):
    assert any(s.evidence_id == EID and s.title == TITLE for s in env.selected)  # the hostile title is answered
    names = titles(env)
    assert names[EID] == TITLE
    assert _titled(f"The answer follows {EID}.", names) == f"The answer follows {TITLE}."
    markdown = md(_titled(f"The answer follows {EID}.", names))
    assert autolinks(markdown) == [] and not any(c in markdown for c in BIDI)
    assert safe.inert(TITLE) == plain(TITLE)  # st.text / st.code get the same text without its controls


def test_every_markdown_field_of_the_answer_is_inert(env):
    ref = next(s for s in env.selected if s.evidence_id == EID)
    fields = [ref.title, ref.owner, ref.metric.grain, *ref.metric.exclusions]
    for field in fields:
        out = md(field)
        assert autolinks(out) == [] and not any(c in out for c in BIDI), field


def test_cli_text_has_no_control_character_and_json_stays_exact(hostile, env, monkeypatch):
    text = render_text(env)
    assert "Net bookings" in text and not any(c in text for c in BIDI + ["\x1b", "\r", "\x00"])
    monkeypatch.delenv("ASOF_AUTH", raising=False)
    q = ["ask", "--db", str(hostile.path), "--role", "analyst", "--date", "2025-03-31", "What is net bookings?"]
    r, js = cli(*q), cli(*q, "--json")
    assert r.returncode == 0 and js.returncode == 0, r.stderr + js.stderr
    assert "Traceback" not in r.stderr + js.stderr
    assert not any(c in r.stdout for c in BIDI) and not any(c in js.stdout for c in BIDI)
    assert json.loads(js.stdout)["selected"][0]["title"] == TITLE  # JSON is faithful data


def test_a_dbt_aggregation_is_never_a_format_string():
    from core.ingest.dbt import _agg
    assert _agg({"agg": "sum", "expr": "x"}) == "sum(x)"
    assert _agg({"agg": "{0.__class__}", "expr": "x"}) == "{0.__class__}(x)"
    assert _agg({"agg": "weird{", "expr": "x"}) == "weird{(x)"


def test_the_app_answers_the_hostile_catalog_with_inert_markdown(tmp_path, embedder, monkeypatch, hostile):
    """The Ask page end to end: no exception (the title once crashed `re.sub` as a template), and no Markdown
    element carries an autolink or a bidi control."""
    from conftest import ROOT, build
    from streamlit.testing.v1 import AppTest
    store, _ = build(tmp_path, "hostile", hostile.path.with_name("c.yaml"), embedder)
    store.close()
    monkeypatch.setenv("ASOF_DB", str(store.path))
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.session_state["role"] = "analyst"
    at.session_state["date_mode"] = "Date"
    at.session_state["day"] = date(2025, 3, 31)
    at.run()
    at.text_input(key="question").input("What is net bookings?")
    at.button(key="ask").click().run()
    assert not at.exception, at.exception
    shown = [m.value for m in at.markdown] + [c.value for c in at.caption]
    assert any("Net bookings" in s for s in shown)
    for s in shown:
        assert autolinks(s) == [] and not any(c in s for c in BIDI), s
    for t in at.text:
        assert not any(c in t.value for c in BIDI), t.value


def test_table_cells_and_pick_lists_carry_no_bidi_override(monkeypatch):
    """Tables render no Markdown, but a right-to-left override in a cell would still reverse what is shown: every
    text cell the pages hand to st.dataframe goes through ui.safe.dataframe, which makes it inert."""
    import streamlit as st

    from ui.safe import dataframe, inert
    shown = []
    monkeypatch.setattr(st, "dataframe", lambda rows, **kw: shown.append(rows))
    dataframe([{"metric": "Margin\u202e%tnuoc", "versions": 2}, {"metric": "plain", "versions": 1}], hide_index=True)
    assert shown == [[{"metric": "Margin%tnuoc", "versions": 2}, {"metric": "plain", "versions": 1}]]
    assert inert("Berth \u202eutilisation (kpi.x)") == "Berth utilisation (kpi.x)"
