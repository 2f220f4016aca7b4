""""Who can see <it>?" is answered from its access list (issue 38, item 5), on the tram operator's catalog
(tests/tram_catalog.py): a document named in the question is the subject, not the metric it is about; a role
that may not see it gets the same not-found as for a made-up name; the steward, reading a queue object no role
may see, is told that the list is empty and that it reads it only through its review queue."""
from __future__ import annotations

import pytest
from tram_catalog import AT, build

from core.answer.ask import Question
from core.answer.steward import steward_answer
from core.catalog.envelope import NOT_FOUND, Behavior
from core.explain.headline import headline


@pytest.fixture(scope="module")
def ask_tram(tmp_path_factory):
    store, _ = build(tmp_path_factory.mktemp("tram_access"))

    def _ask(text: str, role: str = "controller"):
        return steward_answer(store, Question(role=role, text=text, at=AT))[0]
    return _ask


def test_who_can_see_a_document_reads_its_access_list(ask_tram):
    env = ask_tram("who can see the depot handbook?", "depot")
    assert env.behavior is Behavior.answer and env.entity_id == "doc.depot_handbook"
    assert headline(env) == "Depot handbook: roles controller and depot can see it (its access list)."
    env = ask_tram("which roles have access to the fare policy memo?")
    assert headline(env) == "Fare policy memo: role controller can see it (its access list)."


def test_a_metric_too_and_versions_listed_alike(ask_tram):
    assert headline(ask_tram("who can see fare takings?", "depot")) == (
        "Fare takings: roles controller and depot can see it (its access list).")


def test_a_role_that_may_not_see_it_is_told_nothing_of_it(ask_tram):
    hidden = ask_tram("who can see the fare policy memo?", "depot")
    made_up = ask_tram("who can see the tram polka memo?", "depot")
    assert hidden.behavior is made_up.behavior is Behavior.not_found_or_not_authorized
    assert hidden.verdict == made_up.verdict == NOT_FOUND


def test_the_steward_is_told_the_list_is_empty_and_how_it_reads_it(ask_tram):
    env = ask_tram("who can see the timetable glossary export?", "auditor")
    assert env.verdict == ("Timetable glossary export: no role can see it (its access list is empty). Your role "
                           "auditor is not on it: you see it only through your review queue, read-only.")
