"""On screen (issue 45, item 8), the words under the pages, on a lido's catalog the test builds
(tests/lido_catalog.py): the status line never says "No draft disagrees" beside a draft the answer lists nor on an
access answer; a steward's headline is cut where a clause ends, never mid-sentence; the Lineage page opens on an
entity with lineage in effect."""
from __future__ import annotations

import pytest
from lido_catalog import AT, build

from core.answer.ask import Question
from core.answer.lineage_start import first_with_lineage
from core.answer.steward import scope_today, steward_answer, steward_view
from core.explain.headline import MAX_WORDS, headline, status_line


@pytest.fixture(scope="module")
def lido(tmp_path_factory):
    return build(tmp_path_factory.mktemp("lido_screen"))[0]


def _ask(store, text, role="lifeguard"):
    return steward_answer(store, Question(role=role, text=text, at=AT))[0]


def _said(env) -> list[str]:
    return [s.text for s in status_line(env)]


def test_no_draft_disagrees_is_never_said_beside_a_draft_or_on_an_access_answer(lido):
    listed = _ask(lido, "what was ticket sales on 2027-05-01?")  # the unapproved v2 is listed, not yet in effect
    assert any(c.lifecycle == "draft" for c in listed.conflicts)
    assert "No draft disagrees" not in _said(listed)
    access = _ask(lido, "who can see ticket sales?")
    assert access.intent == "access" and "No draft disagrees" not in _said(access)
    # a definition with no draft at all still says so
    assert "No draft disagrees" in _said(_ask(lido, "what is pool temperature?"))


def test_a_stewards_headline_ends_where_a_clause_ends(lido):
    env = _ask(lido, "what is waiting for my review?", role="office")
    said = headline(env)
    assert len(said.split()) <= MAX_WORDS and "…" not in said
    assert said == ("4 items wait in the review queue you can see (open items): Ticket sales: draft 'Ticket sales v2 "
                    "proposal'; and more below")
    # the first item too long to fit whole: cut before the list, never after an item's own name
    from core.explain.headline import _whole
    long = ("7 items wait in the review queue you can see (open items): Slide count: draft 'Draft - slide rides "
            "counted per descent instead of per ticket scan'; Ticket sales: v1 and v2 overlap; and 4 more.")
    assert _whole(long, MAX_WORDS) == "7 items wait in the review queue you can see (open items): listed below"


def test_the_lineage_page_opens_on_an_entity_with_lineage(lido):
    view = steward_view(lido, "office", scope_today(lido, "office"))
    ids = sorted(e for e, ent in view.entities.items() if ent.role in ("metric", "model", "source"))
    assert ids[0] == "metric.ticket_sales"  # first by name: a queued draft, no lineage edge in the office's view
    assert first_with_lineage(view, ids, AT.date()) == "model.fct_passes"
