"""A definition and its freshness asked together, when the definition is asked back (two approved versions overlap,
so no date picks one): the freshness half is answered beside the question back, not dropped. A stranger's "what is
repeat purchase rate, and is the data behind it fresh?" got only "Repeat purchase rate has 2 versions." Freshness is
the loads of the sources the versions read, judged at the clock, whichever version a date picks; the question back
still offers the versions (a button re-asks the whole question for that version's date, freshness included).
core/resolve/choose.py `_freshness_beside`, said by core/explain/headline.py. On the orchard catalog: crate fill rate's
two versions overlap from 1 Mar 2028, both read raw_press.crates, 9 h old on the catalog's clock (warn after 6 h)."""
from __future__ import annotations

import pytest
from orchard_catalog import ROLES, ask_orchard  # noqa: F401  (ask_orchard is the fixture)

from core.catalog.envelope import Behavior
from core.explain.headline import headline, status_line
from core.explain.render import render_text

BOTH = ["what is crate fill rate, and is the data behind it fresh?",
        "what does crate fill rate mean and is its data stale?",
        "how is crate fill rate defined, and is it up to date?"]


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("text", BOTH)
def test_freshness_is_answered_beside_the_question_back(ask_orchard, text, role):
    env = ask_orchard(text, role)
    assert env.behavior is Behavior.clarify and env.entity_id == "metric.crate_fill_rate", (text, env.verdict)
    assert [o.version for o in env.clarify.options] == ["1", "2"], env.clarify.options
    assert [(f.source, f.status) for f in env.freshness] == [("source.raw_press.crates", "warn")], env.freshness
    said = headline(env)
    assert said == "Crate fill rate has 2 versions; its data is stale: raw_press.crates last loaded 9 h ago", said
    assert any(s.text.startswith("Stale data: raw_press.crates") for s in status_line(env)), status_line(env)
    assert "raw_press.crates" in render_text(env)


def test_a_question_back_that_asks_no_freshness_says_none(ask_orchard):
    env = ask_orchard("what is crate fill rate?", "packer")
    assert env.behavior is Behavior.clarify and env.freshness == [], env.freshness
    assert headline(env) == "Crate fill rate has 2 versions.", headline(env)
