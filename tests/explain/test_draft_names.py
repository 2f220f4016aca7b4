"""How drafts are named where a reader sees them (core/explain): a stranger's pass found the drafts table's "id"
column holding the metric's id instead of the draft's own, a draft's version shown as "vdraft-2026-01", and a draft's
name cut off with "…" in a headline. A listed page or draft is its own object: its row's id is its own, and the
entity it is filed under is said beside it; a draft's version label reads "draft of 2028-05"; a headline names a draft
whole or, where it has no room, by what it is, never cut. On the orchard catalog (tests/orchard_catalog.py)."""
from __future__ import annotations

import pytest
from orchard_catalog import CIDER_DRAFT, ask_orchard  # noqa: F401  (ask_orchard is the fixture)

from core.explain.headline import headline
from core.explain.intent_render import listing_heading, listing_row
from core.explain.render import render_text
from core.resolve.versions import version_label


@pytest.mark.parametrize("version, said", [("2", "v2"), ("1.1", "v1.1"), ("draft-2028-05", "draft of 2028-05"),
                                           ("draft_2026_q1", "draft of 2026_q1"), ("2027", "v2027"),
                                           ("working", "working"), (None, "(unversioned)")])
def test_a_version_label_reads_as_words(version, said):
    assert version_label(version) == said


def test_the_drafts_table_shows_each_drafts_own_id(ask_orchard):
    env = ask_orchard("show me the drafts that haven't been approved yet", "grower")
    rows = {r["name"]: r for r in (listing_row(env.listing, it) for it in env.listing.items)}
    bruise = rows["Proposal - bruise rate after sorting"]
    assert bruise["id"] == "draft.bruise_rate.2028" and bruise["filed under"] == "metric.bruise_rate", bruise
    assert bruise["versions"].startswith("draft of 2028-05 "), bruise
    assert rows[CIDER_DRAFT]["id"] == "draft.cider_share.2028", rows[CIDER_DRAFT]
    assert all("vdraft" not in r["versions"] for r in rows.values()), rows
    assert listing_heading(env.listing) == "Documents and versions you can see that are drafts (3 of 13)", \
        listing_heading(env.listing)


def test_a_metrics_table_keeps_the_metrics_id(ask_orchard):
    env = ask_orchard("which metrics are drafts?", "packer")
    row = listing_row(env.listing, env.listing.items[0])
    assert row["id"] == "metric.frost_loss" and "filed under" not in row, row
    assert "draft of 2028-06" in row["versions"], row


def test_the_terminal_listing_names_each_draft_by_its_own_id(ask_orchard):
    text = render_text(ask_orchard("which documents are still drafts?", "grower"))
    assert "Proposal - bruise rate after sorting (draft.bruise_rate.2028)" in text, text
    assert "draft of 2028-05" in text and "vdraft" not in text, text


@pytest.mark.parametrize("text", ["the cider share draft says pressed weight, is that right for 2028-09-30?",
                                  "according to the draft, cider share counts pressed weight - correct on 2028-09-30?"])
def test_a_headline_names_a_draft_whole_where_it_fits(ask_orchard, text):
    said = headline(ask_orchard(text, "grower"))
    assert said == f"No: {CIDER_DRAFT} is an unapproved draft; Cider share v1 governs on 30 Sep 2028", said


@pytest.mark.parametrize("text", ["the cider share draft says pressed weight, is that right for Q3 2028?",
                                  "according to the draft, cider share counts pressed weight - correct for Q3 2028?"])
def test_a_headline_never_cuts_a_drafts_name(ask_orchard, text):
    env = ask_orchard(text, "grower")
    # The draft's title is too long for the headline beside what governs over a quarter: it is named by what it is,
    # and in full below
    assert headline(env) == ("No: the draft of 2028-02 is unapproved; Cider share v1 governs for 1 Jul 2028 to "
                             "30 Sep 2028"), headline(env)
    assert CIDER_DRAFT in render_text(env)


def test_a_short_drafts_name_is_said_whole(ask_orchard):
    said = headline(ask_orchard("the bruise rate proposal says sorted fruit only, right for 2028-09-30?", "packer"))
    assert said.startswith("No: Proposal - bruise rate after sorting is an unapproved draft"), said


def test_drafts_that_disagree_are_never_cut_in_the_headline(ask_orchard):
    said = headline(ask_orchard("are there drafts that contradict how cider share is defined for Q3 2028?", "grower"))
    assert "…" not in said and said.startswith("Yes, 1 draft disagrees: the draft of 2028-02;"), said
