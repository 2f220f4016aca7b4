""""How many ...?" leads a listing as "which ...?" does: the same rows, counted in the headline. A stranger's pass got
"None for “many”: listed below" (the word read as a topic), "Nothing you have access to matches" for "how many metrics
can I see?", and a value of the previous subject for "how many drafts are there?". The rule: core/read/intents/intent.py
`_WHICH` and `_LIST_LEAD`; "many" is an asking word (core/catalog/text.py ASKING_WORDS), never a topic. "How many
sources does X read?" asks for X's lineage, as "which sources does X read?" now does too. On the orchard catalog."""
from __future__ import annotations

import pytest
from orchard_catalog import DRAFTS, ROLES, ask_orchard  # noqa: F401  (ask_orchard is the fixture)

from core.catalog.envelope import Behavior
from core.explain.headline import headline

SAME = [("how many drafts are there?", "which drafts are there?"),
        ("how many drafts are awaiting approval?", "which drafts are awaiting approval?"),
        ("how many metrics can I see?", "which metrics can I see?"),
        ("how many metrics do we have?", "which metrics do we have?"),
        ("how many documents are still drafts?", "which documents are still drafts?"),
        ("how many models are there?", "what models are there?"),
        ("how many sources are stale?", "which sources are stale?"),
        # A count in other words is no topic ("total" beside a kind, "in total", "the number of"), and the asker as
        # reader is access, not lineage ("can I read" is "can I see").
        ("how many metrics are there in total?", "which metrics are there?"),
        ("how many metrics can I see altogether?", "which metrics can I see?"),
        ("what is the total number of metrics I can see?", "which metrics can I see?"),
        ("number of models?", "what models are there?"),
        ("the count of sources", "which sources are there?"),
        ("how many total models do we have?", "which models do we have?"),
        ("which metrics can I read?", "which metrics can I see?"),
        ("what metrics can we use?", "which metrics can I see?"),
        # "every" or "each" with one kind in the singular lists them all
        ("list every metric", "which metrics can I see?"),
        ("show me each model", "what models are there?"),
        ("list each source", "which sources are there?"),
        # every document the asker may see is a listing, never a request to step outside the rules
        ("list every document", "which documents can I see?"),
        ("list all documents", "which documents can I see?")]


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("counted, listed", SAME)
def test_how_many_lists_what_which_lists_and_counts_it(ask_orchard, counted, listed, role):
    env, plain = ask_orchard(counted, role), ask_orchard(listed, role)
    assert env.behavior is Behavior.answer and env.intent == "discover", (counted, env.behavior, env.verdict)
    assert [i.evidence_id for i in env.listing.items] == [i.evidence_id for i in plain.listing.items], counted
    assert env.listing.topic == [] and env.verdict == plain.verdict, (counted, env.listing.topic, env.verdict)
    assert str(len(env.listing.items)) in env.verdict or env.verdict.startswith("None"), env.verdict


@pytest.mark.parametrize("role", ROLES)
def test_the_drafts_counted_are_the_roles_own(ask_orchard, role):
    env = ask_orchard("how many drafts are there?", role)
    assert {i.title for i in env.listing.items} == DRAFTS[role]
    assert env.verdict.startswith(f"{len(DRAFTS[role])} of the"), env.verdict


@pytest.mark.parametrize("text", ["how many sources does harvest yield read?", "which sources does harvest yield read?",
                                  "show me the sources behind harvest yield", "list every source behind harvest yield"])
def test_sources_a_metric_reads_are_its_lineage_not_a_listing(ask_orchard, text):
    env = ask_orchard(text + " on 2027-09-30", "grower")
    assert env.intent != "discover" and env.entity_id == "metric.harvest_yield", (text, env.intent, env.verdict)
    assert "comes from raw_field.picks" in headline(env), headline(env)
