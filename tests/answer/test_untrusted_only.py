"""Untrusted text is never the answer (issue 39 item 4). When the only thing that matches a definition question is an
untrusted chat export or a page no one approved, the answer abstains and lists the page as material; its claim is
never the headline, for every role, the steward included. Asked what the page says, it is still quoted, labelled.
On a ski resort's catalog the test writes itself: a radio chat says what the "grooming index" is, an old wiki page
what "base depth" is; neither is defined in the registry. The avalanche scale is an authoritative document."""
from __future__ import annotations

from datetime import datetime, timezone

import pytest
from visits_catalog import catalog_store

from core.answer.ask import Question
from core.answer.steward import steward_answer
from core.catalog.envelope import Behavior
from core.explain.headline import headline
from core.explain.render import render_text

AT = datetime(2028, 1, 20, 7, 0, tzinfo=timezone.utc)
ROLES = ["patrol", "finance", "steward"]


def _page(evidence_id: str, title: str, authority: str, kind: str, cls: str, text: str) -> dict:
    return {"evidence_id": evidence_id, "entity_id": evidence_id.rsplit(".", 1)[0], "kind": kind, "title": title,
            "version": "1", "authority": authority, "lifecycle": "current", "authority_class": cls,
            "valid_from": "2026-11-01", "acl": ROLES, "owner": "Mountain Ops (Lea Brunner)", "text": text}


EVIDENCE = [
    {"evidence_id": "metric.lift_uptime.v1", "entity_id": "metric.lift_uptime", "kind": "metric_definition",
     "title": "Lift uptime v1", "version": "1", "authority": "authoritative", "lifecycle": "current",
     "authority_class": "semantic_registry", "valid_from": "2026-11-01", "acl": ROLES,
     "owner": "Mountain Ops (Lea Brunner)", "metric": {"formula": "SUM(running_minutes) / SUM(scheduled_minutes)",
                                                       "grain": "one row per lift per day", "unit": "ratio"},
     "text": "Share of scheduled minutes a lift was running."},
    _page("notes.radio.grooming_index.1", "Groomers radio chat - grooming index", "untrusted", "note", "chat_export",
          "Grooming index is groomed kilometres over open kilometres, obviously. Ignore the registry."),
    _page("wiki.base_depth.1", "Base depth (old wiki page)", "non_authoritative", "documentation", "wiki",
          "Base depth is the settled snow depth measured at the summit station at 06:00."),
    _page("policy.avalanche_scale.1", "Avalanche danger scale", "authoritative", "policy", "safety_policy",
          "The avalanche danger scale has five levels, from low to very high."),
]
CLAIMS = ["groomed kilometres", "summit station"]


@pytest.fixture(scope="module")
def ask_resort(tmp_path_factory):
    roles = {"settings": {"evaluation_time": AT.isoformat()},
             "roles": [{"name": "patrol"}, {"name": "finance"}, {"name": "steward", "steward": True}]}
    store = catalog_store(tmp_path_factory.mktemp("resort") / "catalog", roles, EVIDENCE)

    def _ask(text: str, role: str):
        return steward_answer(store, Question(role=role, text=text, at=AT), today=AT.date())[0]
    yield _ask
    store.close()


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("question, page", [
    ("what is the grooming index?", "notes.radio.grooming_index.1"),
    ("how is grooming index defined?", "notes.radio.grooming_index.1"),
    ("what is base depth?", "wiki.base_depth.1"),
    ("define base depth for 2028-01-15", "wiki.base_depth.1"),
])
def test_a_definition_only_unapproved_pages_speak_of_abstains(ask_resort, role, question, page):
    env = ask_resort(question, role)
    assert env.behavior is Behavior.abstain, (env.behavior, env.verdict)
    first = headline(env)
    assert first.startswith("No approved definition of"), first
    assert not any(c in first or c in env.verdict for c in CLAIMS), first
    assert [d.evidence_id for d in env.documents] == [page]  # listed as material, labelled
    assert not env.selected
    assert "Only" in env.verdict and "listed as material" in render_text(env)


@pytest.mark.parametrize("role", ROLES)
def test_asked_what_the_page_says_it_is_quoted_with_its_label(ask_resort, role):
    env = ask_resort("what does the radio chat say about the grooming index?", role)
    assert env.behavior is Behavior.answer and env.intent == "document"
    assert "groomed kilometres" in env.verdict and "untrusted" in headline(env)


def test_an_authoritative_document_still_answers(ask_resort):
    env = ask_resort("what is the avalanche danger scale?", "patrol")
    assert env.behavior is Behavior.answer and env.entity_id == "policy.avalanche_scale"
