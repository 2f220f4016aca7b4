"""A subject no visible name matches is not found, whatever the question asks of it (issue 24, item 6): "does
<made-up or hidden metric> include X?" and "what does <made-up or hidden document> say?" must not be answered with
another object that shares a word with the question (a metric whose head noun is in X, a source similar in
meaning). The hidden and the made-up name read the same, so nothing leaks. On the demo and on a clinic catalog the
test writes itself, with none of the demo's names."""
from __future__ import annotations

from datetime import datetime, timezone

import pytest
from conftest import asker

from core.catalog.envelope import Behavior
from core.explain.headline import headline

AT = datetime(2027, 3, 1, 9, 0, tzinfo=timezone.utc)
ROLES = ["desk", "billing"]


def _metric(name: str, title: str, formula: str, acl: list[str], exclusions: list[str] = ()) -> dict:
    return {"evidence_id": f"metric.{name}.v1", "entity_id": f"metric.{name}", "kind": "metric_definition",
            "title": f"{title} v1", "version": "1", "authority": "authoritative", "lifecycle": "current",
            "authority_class": "semantic_registry", "valid_from": "2025-01-01", "acl": acl,
            "owner": "Clinic Analytics (Ines Kova)",
            "metric": {"formula": formula, "grain": "one row per visit", "unit": "EUR", "exclusions": list(exclusions)},
            "text": f"{title}: {formula}."}


def _document(name: str, title: str, acl: list[str], text: str) -> dict:
    return {"evidence_id": f"doc.{name}.1", "entity_id": f"doc.{name}", "kind": "documentation", "title": title,
            "version": "1", "authority": "non_authoritative", "lifecycle": "current", "authority_class": "wiki",
            "valid_from": "2025-01-01", "acl": acl, "owner": "Clinic Operations (Pia Lund)", "text": text}


EVIDENCE = [
    # "cost" is this metric's head noun: a question whose term says "cost of supplies" must not land on it.
    _metric("patient_intake_cost", "Patient intake cost", "SUM(intake_staff_eur) / COUNT(patients)", ROLES),
    # Billing only: for the desk it does not exist, exactly like a name nobody ever wrote.
    _metric("treatment_margin", "Treatment margin", "SUM(fee_eur) - SUM(supply_cost_eur)", ["billing"],
            ["cost of supplies"]),
    {"evidence_id": "source.raw_clinic.visits.table", "entity_id": "source.raw_clinic.visits", "kind": "source",
     "title": "raw_clinic.visits (source table)", "version": "1", "authority": "authoritative", "lifecycle": "current",
     "authority_class": "dbt_manifest", "valid_from": "2025-01-01", "acl": ROLES, "owner": "Clinic IT (Oren Falk)",
     "text": "Every visit and its checklist items, exported nightly from the booking system."},
    _document("triage_checklist", "Triage checklist export", ["billing"],
              "The nurses' triage checklist as exported in 2024."),
]


@pytest.fixture(scope="module")
def ask_clinic(tmp_path_factory, embedder):
    return asker(tmp_path_factory, embedder, "clinic", ROLES, EVIDENCE, AT)


def _not_found(env) -> str:
    assert env.behavior is Behavior.not_found_or_not_authorized, (env.behavior, env.entity_id, env.verdict)
    assert env.entity_id is None and not env.selected and env.inclusion is None
    return headline(env)


# ---- the demo ------------------------------------------------------------------------------------------------

def test_demo_inclusion_about_a_hidden_or_made_up_metric_is_not_found(ask_demo):
    hidden = _not_found(ask_demo("does contribution margin include cost of goods sold?", role="marketing"))
    made_up = _not_found(ask_demo("does gizmo margin include cost of goods sold?", role="marketing"))
    assert hidden == made_up
    assert "Customer acquisition cost" not in hidden


def test_demo_inclusion_about_a_visible_metric_is_still_answered(ask_demo):
    env = ask_demo("does contribution margin include cost of goods sold?", role="finance")
    assert env.behavior is Behavior.answer and env.entity_id == "metric.contribution_margin"
    assert env.inclusion is not None


def test_demo_document_nobody_may_see_is_not_found_not_a_source(ask_demo):
    # The KPI glossary export's ACL is empty (data/demo/50_documents.yaml): finance may not see it.
    env = ask_demo("what does the kpi glossary export say?", role="finance")
    assert "raw_finance" not in _not_found(env)
    assert headline(env) == _not_found(ask_demo("what does the zorblax glossary export say?", role="finance"))


# ---- a catalog with other names ------------------------------------------------------------------------------

@pytest.mark.parametrize("hidden, made_up", [
    ("does treatment margin include cost of supplies?", "does surgery margin include cost of supplies?"),
    ("what does the triage checklist export say?", "what does the gurney checklist export say?"),
], ids=["metric", "document"])
def test_a_hidden_or_made_up_subject_is_not_found_alike(ask_clinic, hidden, made_up):
    assert _not_found(ask_clinic(hidden, "desk")) == _not_found(ask_clinic(made_up, "desk"))


def test_inclusion_about_a_visible_metric_is_answered_from_its_fields(ask_clinic):
    env = ask_clinic("does treatment margin include cost of supplies?", "billing")
    assert env.entity_id == "metric.treatment_margin"
    assert env.inclusion is not None and env.inclusion.verdict == "no"


def test_a_visible_document_named_by_its_title_is_the_answer(ask_clinic):
    env = ask_clinic("what does the triage checklist export say?", "billing")
    assert env.behavior is Behavior.answer
    assert [d.evidence_id for d in env.documents][:1] == ["doc.triage_checklist.1"]
