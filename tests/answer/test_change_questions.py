"""Wordings near the change, inclusion, trouble and review-queue families that must NOT be read as them, and the
version rules a yes or no to "has it changed?" must keep, on a catalog of canal locks (its own names, roles, dates):

- "the change to X" and "was X changed to exclude Y?" use the word otherwise: no yes or no about a version change;
- two approved versions in effect at once did not replace one another: a governance reviewer decides, never "Yes";
- two changes inside the period asked are both said, never one made-up step from the first to the last;
- "broken down by day", "off by one", "not loaded by any model" are not trouble with the data or late loads;
- a short word in capitals that names nothing visible ("in the UK", "I mean") does not stop a question back.
"""
from datetime import datetime, timezone

import pytest
from builders import watched_source
from conftest import asker

from core.catalog.envelope import Behavior
from core.explain.headline import headline

AT = datetime(2026, 3, 1, 9, 0, tzinfo=timezone.utc)
ROLES = ["lockkeeper"]
OWNER = "Waterways Office (Rune Hale)"


def _metric(name: str, title: str, version: str, formula: str, since: str, until: str | None = None,
            exclusions: tuple[str, ...] = ()) -> dict:
    out = {"evidence_id": f"metric.{name}.v{version}", "entity_id": f"metric.{name}", "kind": "metric_definition",
           "title": f"{title} v{version}", "version": version, "authority": "authoritative", "lifecycle": "current",
           "authority_class": "semantic_registry", "valid_from": since, "acl": ROLES, "owner": OWNER,
           "metric": {"formula": formula, "grain": "one row per passage", "unit": "EUR",
                      "exclusions": list(exclusions)},
           "text": f"{title}: {formula}."}
    if until:
        out["valid_to"] = until
    return out


EVIDENCE = [
    _metric("lock_fees", "Lock fees", "1", "SUM(fee_eur)", "2024-01-01", "2024-07-01", ("pilotage",)),
    _metric("lock_fees", "Lock fees", "2", "SUM(fee_eur) - SUM(rebate_eur)", "2024-07-01", "2026-01-01", ("pilotage",)),
    _metric("lock_fees", "Lock fees", "3", "SUM(fee_eur) - SUM(rebate_eur) - SUM(waiver_eur)", "2026-01-01",
            exclusions=("pilotage",)),
    # Two approved versions, both open: they overlap from 2025-06-01 on.
    _metric("berth_hours", "Berth hours", "1", "SUM(moored_hours)", "2024-01-01"),
    _metric("berth_hours", "Berth hours", "2", "SUM(moored_hours) - SUM(idle_hours)", "2025-06-01"),
    _metric("pilot_fees", "Pilot fees", "1", "SUM(pilot_eur)", "2024-01-01"),
    *watched_source("raw_lock.passages", ROLES, "2026-03-01T07:00:00Z", owner=OWNER, since="2024-01-01",
                    text="Vessel passages through the locks."),
]


@pytest.fixture(scope="module")
def canal(tmp_path_factory, embedder):
    return asker(tmp_path_factory, embedder, "canal", ROLES, EVIDENCE, AT)


@pytest.mark.parametrize("text", ["did the change to lock fees affect berth hours?",
                                  "has the recent change to lock fees been approved?"])
def test_the_change_as_a_noun_is_no_version_change_asked(canal, text):
    env = canal(text, "lockkeeper")
    assert not headline(env).startswith(("Yes:", "No:")), (text, headline(env))


def test_changed_to_exclude_asks_what_the_definition_excludes(canal):
    env = canal("was the lock fees formula changed to exclude pilotage?", "lockkeeper")
    assert env.inclusion is not None and env.inclusion.verdict == "no", (env.verdict, env.inclusion)


def test_a_change_asked_beside_lineage_keeps_the_lineage_question(canal):
    env = canal("what feeds lock fees, and did they change in 2025?", "lockkeeper")
    assert env.comparison is None and env.entity_id == "metric.lock_fees", env.verdict


def test_overlapping_approved_versions_go_to_a_reviewer_not_a_yes(canal):
    env = canal("did berth hours change in 2025?", "lockkeeper")
    assert env.behavior is Behavior.human_review, (env.behavior, headline(env))


def test_two_changes_in_the_period_are_both_said(canal):
    env = canal("did lock fees change between 2024 and 2026?", "lockkeeper")
    assert headline(env).startswith("Yes: Lock fees changed on 1 Jul 2024 and again by 1 Jan 2026, v1 to v3"), (
        headline(env))


def test_a_comparison_with_no_draft_says_so(canal):
    env = canal("how does the proposal for pilot fees differ from the current definition?", "lockkeeper")
    assert headline(env).startswith("Pilot fees has no draft you can see"), headline(env)


@pytest.mark.parametrize("text", ["is the passages table broken down by day?", "is the passages data broken out by lock?",
                                  "which column of the passages table is off by one?"])
def test_how_data_is_cut_is_no_trouble_with_it(canal, text):
    env = canal(text, "lockkeeper")
    assert not headline(env).startswith(("Yes:", "No:", "No,")), (text, headline(env))


@pytest.mark.parametrize("text", ["is the raw_lock.passages feed broken?", "anything look off with the raw_lock.passages data?"])
def test_trouble_with_data_is_still_a_yes_or_no(canal, text):
    assert headline(canal(text, "lockkeeper")).startswith("No:"), headline(canal(text, "lockkeeper"))


@pytest.mark.parametrize("text", ["which sources are not loaded by any model?", "which sources never ran?"])
def test_not_loaded_by_is_no_late_load(canal, text):
    env = canal(text, "lockkeeper")
    assert env.intent != "discover" or "stale" not in env.verdict.lower(), (text, env.verdict)


@pytest.mark.parametrize("text", ["fees on 2025-03-31 in the UK", "fees for 2025-03-31, I mean"])
def test_a_capital_word_naming_nothing_still_asks_which_fees(canal, text):
    env = canal(text, "lockkeeper")
    assert env.behavior is Behavior.clarify, (text, env.behavior, env.entity_id)
    assert {o.entity_id for o in env.clarify.options} == {"metric.lock_fees", "metric.pilot_fees"}


def test_reviewing_to_understand_a_metric_is_about_the_metric(canal):
    env = canal("what should I review to understand lock fees?", "lockkeeper")
    assert env.intent != "review" and env.entity_id == "metric.lock_fees", (env.intent, env.entity_id)


def test_an_abbreviation_names_no_subject_and_a_plural_kind_does(canal):
    env = canal("is it current, e.g. today?", "lockkeeper")
    assert env.behavior is Behavior.clarify and "doesn't name one" in env.verdict, env.verdict
    env = canal("which sources are not loaded by any model?", "lockkeeper")
    assert "doesn't name one" not in env.verdict, env.verdict


@pytest.mark.parametrize("text", ["lock fees H1 vs H2 2024", "compare lock fees Q2 and Q3 2024",
                                  "lock fees Q2 versus Q3 2024 - what changed?"])
def test_a_bare_part_compared_with_a_dated_one_is_of_the_same_year(canal, text):
    # H1 and Q2 alone would be the clock's year (2026, under v3): said beside "H2 2024" they are 2024's.
    env = canal(text, "lockkeeper")
    assert env.comparison is not None, (text, env.verdict)
    assert (env.comparison.left.evidence_id, env.comparison.right.evidence_id) == (
        "metric.lock_fees.v1", "metric.lock_fees.v2"), (text, env.verdict)
