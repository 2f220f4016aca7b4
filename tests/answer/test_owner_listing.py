""""Which metrics does <person or team> own?": the visible objects whose owner is the one named, on a library's catalog
the test writes (none of the demo's names), and on the demo. An owner the role sees on nothing reads exactly like a
made-up name, so asking never tells a role that someone owns something it may not see."""
from __future__ import annotations

from datetime import date, datetime, timezone

import pytest
from conftest import build
from visits_catalog import write_yaml_catalog

from core.answer.ask import Question, ask
from core.catalog.envelope import Behavior
from core.explain.headline import headline

AT = datetime(2027, 3, 1, 9, 0, tzinfo=timezone.utc)
ROLES = ["reader", "curator"]


def _metric(name: str, title: str, owner: str, acl: list[str], version: str = "1", valid_from: str = "2024-01-01",
            valid_to: str | None = None) -> dict:
    return {"evidence_id": f"metric.{name}.v{version}", "entity_id": f"metric.{name}", "kind": "metric_definition",
            "title": f"{title} v{version}", "version": version, "authority": "authoritative", "lifecycle": "current",
            "authority_class": "semantic_registry", "valid_from": valid_from, "valid_to": valid_to, "acl": acl,
            "owner": owner, "metric": {"formula": "COUNT(*)", "grain": "one row per loan", "unit": "count"},
            "text": f"{title}, counted over the branch network."}


EVIDENCE = [
    # Loans changed hands: Amara Okafor's desk until mid-2025, Circulation since.
    _metric("loans", "Loans", "Lending Desk (Amara Okafor)", ROLES, "1", "2024-01-01", "2025-06-30"),
    _metric("loans", "Loans", "Circulation (Tomas Rey)", ROLES, "2", "2025-07-01"),
    _metric("overdue_rate", "Overdue rate", "Circulation (Tomas Rey)", ROLES),
    _metric("visitor_count", "Visitor count", "Front Desk (Ines Moreau)", ROLES),
    # Only curators see the acquisitions budget, and so only they may learn whose it is.
    _metric("acquisitions_spend", "Acquisitions spend", "Archive Board (Noor Haddad)", ["curator"]),
    {"evidence_id": "model.fct_loans.v1", "entity_id": "model.fct_loans", "kind": "model", "title": "fct_loans",
     "version": "1", "authority": "authoritative", "lifecycle": "current", "authority_class": "dbt_manifest",
     "valid_from": "2024-01-01", "acl": ROLES, "owner": "Circulation (Tomas Rey)",
     "model": {"relation": "analytics.fct_loans", "grain": "one row per loan"}, "text": "fct_loans: one row per loan."},
    {"evidence_id": "doc.outreach_plan", "entity_id": "doc.outreach_plan", "kind": "documentation",
     "title": "Outreach plan", "authority": "non_authoritative", "lifecycle": "current", "authority_class": "wiki",
     "valid_from": "2024-01-01", "acl": ROLES, "owner": "Outreach (Kofi Mensah)",
     "text": "How the branches reach new readers."},
]


@pytest.fixture(scope="module")
def ask_library(tmp_path_factory, embedder):
    root = tmp_path_factory.mktemp("library")
    store, searcher = build(root, "library", write_yaml_catalog(root / "catalog", ROLES, EVIDENCE, AT), embedder)

    def _ask(text: str, role: str = "reader", day: date | None = None):
        return ask(store, Question(role=role, text=text, day=day, at=AT), searcher=searcher)
    return _ask


def _listed(env) -> list[str]:
    assert env.behavior is Behavior.answer and env.listing is not None, (env.behavior, env.verdict)
    return [i.entity_id for i in env.listing.items]


@pytest.mark.parametrize("text", [
    "which metrics does Tomas Rey own?", "what metrics does Circulation own?", "list Tomas Rey's metrics",
    "metrics owned by Tomas", "which metrics are owned by the circulation team?", "show me Tomas's metrics",
    "which metrics does rey maintain?", "What does Circulation own?"])
def test_the_metrics_a_named_owner_owns_are_listed(ask_library, text):
    env = ask_library(text)
    assert _listed(env) == ["metric.loans", "metric.overdue_rate"], (text, env.verdict)
    assert headline(env).startswith("2 of the 3 metrics you can see are owned by "), headline(env)


def test_other_kinds_are_listed_by_owner_too(ask_library):
    assert _listed(ask_library("which models does Tomas Rey own?")) == ["model.fct_loans"]


def test_the_owner_is_read_from_the_version_in_effect_on_the_day(ask_library):
    assert _listed(ask_library("which metrics does Amara Okafor own?", day=date(2025, 1, 15))) == ["metric.loans"]
    now = ask_library("which metrics does Amara Okafor own?")
    # Amara Okafor owns a version the reader can see, so saying she owns none of today's is no leak.
    assert _listed(now) == [] and headline(now).startswith("None of the 3 metrics you can see is owned by Amara Okafor")


def test_an_owner_seen_only_on_other_kinds_owns_none_of_these(ask_library):
    env = ask_library("which metrics does Kofi Mensah own?")
    assert _listed(env) == [] and headline(env).startswith("None of the 3 metrics you can see is owned by Kofi Mensah")


def test_a_hidden_owner_reads_exactly_like_a_made_up_name(ask_library):
    hidden = ask_library("which metrics does Noor Haddad own?")
    made_up = ask_library("which metrics does Zeb Quill own?")
    assert hidden.behavior is Behavior.not_found_or_not_authorized, hidden.verdict
    assert (hidden.verdict, headline(hidden)) == (made_up.verdict, headline(made_up))
    assert "Acquisitions" not in hidden.verdict
    # The role that sees the metric is told whose it is.
    assert _listed(ask_library("which metrics does Noor Haddad own?", role="curator")) == ["metric.acquisitions_spend"]


def test_demo_marketing_lists_lea_dubois_metrics(ask_demo):
    env = ask_demo("which metrics does Lea Dubois own?", role="marketing")
    assert _listed(env) == ["metric.conversion_rate", "metric.customer_acquisition_cost"], env.verdict
    assert headline(env).startswith("2 of the 10 metrics you can see are owned by Lea Dubois"), headline(env)


def test_demo_an_owner_marketing_cannot_see_reads_like_a_made_up_one(ask_demo):
    hidden = ask_demo("which metrics does Farah Nasser own?", role="marketing")
    made_up = ask_demo("which metrics does Zeb Quill own?", role="marketing")
    assert hidden.behavior is Behavior.not_found_or_not_authorized, hidden.verdict
    assert (hidden.verdict, headline(hidden)) == (made_up.verdict, headline(made_up))
    assert _listed(ask_demo("which metrics does Farah Nasser own?", role="finance")) == ["metric.contribution_margin"]


def test_demo_an_owner_seen_only_on_a_policy_is_no_made_up_name(ask_demo):
    # Governance sees one policy (Ruth Adler's) and no metric: there is nothing to list, and that is said.
    env = ask_demo("which metrics does Ruth Adler own?", role="governance")
    assert env.behavior is Behavior.answer and env.listing is not None and not env.listing.items, env.verdict
