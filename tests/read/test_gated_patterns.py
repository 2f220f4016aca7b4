"""The listing patterns a cold `ask` no longer compiles for a question that cannot match them (core/read/intents/gated.py)
find exactly what they find compiled: over every question of the held-out question files and the listing questions
below, the gate passes each question the pattern matches, and the match is the same."""
from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from core.read.intents import intent, listing_filter, name_pattern
from core.read.intents.gated import Gated

QUESTIONS_DIR = Path(__file__).resolve().parents[1] / "questions"
# One or more for each branch of each gated pattern: a plural kind with a dbt condition either side, a wildcard,
# how names are written, a freshness listing with no kind named, what reads stale data.
LISTINGS = [
    "which models have no tests?", "incremental models in finance", "models without a description",
    "list the sources with no freshness check", "fct_* models", "list *_daily sources", "metrics named net_*",
    "models whose name starts with fct_", "which sources end in _events?", "metrics with the prefix net_",
    "tables that begin with stg_", "models suffixed with _daily", "sources with the suffix _events", "models whose names contain orders", "is anything stale?", "what data is late?",
    "are all the feeds up to date?", "any stale tables?", "what didn't load on time?",
    "what has not been refreshed today?", "which metrics are affected by stale data?",
    "is any model built on late sources?", "which dashboards read stale tables?", "is any metric stale?",
    "which models are deprecated?", "are any metrics without an owner?", "show me all dashboards",
    "what metrics do we track?", "are there any churn metrics", "what is the churn rate?",
    "who owns net revenue?", "Is accounts payable fresh?", "what changed in net revenue since 2024?",
    "show me the drafts that haven't been approved yet", "list the drafts", "which documents are awaiting approval?"]


def _questions() -> list[str]:
    found: set[str] = set()

    def walk(x):
        if isinstance(x, dict):
            for k, v in x.items():
                found.add(v) if k == "q" and isinstance(v, str) else walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)
    for path in sorted(QUESTIONS_DIR.glob("*.yaml")):
        walk(yaml.safe_load(path.read_text()))
    return sorted(found) + LISTINGS


GATED = {"name_pattern.LISTED": name_pattern.LISTED, "name_pattern.NAME_PART": name_pattern.NAME_PART,
         "listing_filter.CONDITION": listing_filter.CONDITION,
         **{f"intent.INTENTS[{i}]": p for i, (_, p) in enumerate(intent.INTENTS) if isinstance(p, Gated)}}


def test_the_listing_patterns_are_gated():
    # LISTED, the two listing patterns and drafts listed (intent.DRAFTS_LISTED)
    assert len([n for n in GATED if n.startswith("intent.")]) == 4


@pytest.mark.parametrize("name", sorted(GATED))
def test_a_gated_pattern_finds_what_the_compiled_one_finds(name):
    pattern, questions = GATED[name], _questions()
    assert len(questions) > 500
    matched = 0
    for q in questions:
        plain = pattern.compiled.search(q)
        gated = pattern.search(q)
        assert (gated and (gated.span(), gated.group())) == (plain and (plain.span(), plain.group())), q
        assert [m.span() for m in pattern.finditer(q)] == [m.span() for m in pattern.compiled.finditer(q)], q
        matched += plain is not None
    assert matched >= 3  # the family reaches the pattern, so a gate that refused a match would show


def test_a_question_that_names_no_kind_compiles_no_listing_pattern():
    fresh = Gated(name_pattern.LISTED.pattern, name_pattern.LISTED.flags,
                  needs=r"(?:metrics|kpis|measures|models|sources|tables|datasets|documents|docs|pages|dashboards"
                        r"|exposures|reports)")
    assert fresh.search("what is the churn rate?") is None and not fresh.is_compiled
    assert fresh.search("list fct_* models") is not None and fresh.is_compiled
