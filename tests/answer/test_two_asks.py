"""A question with two asks, one of them the owner ("who owns X, and what changed in its last version?", "what changed
in X and who owns it?", "who owns X and when did its definition change?"), answers both: the owner (read from the
versions the role can see, worded as the definition answer words it) and what changed. A role that sees one version
is told the owner and that this is the only version it can see, since when; never the owner of a version it cannot
see. First on an orchard catalog the test writes itself (none of the demo's names), then on the demo."""
from __future__ import annotations

from datetime import datetime, timezone

import pytest
from conftest import DEMO_AT, asker

from core.answer.ask import Question
from core.answer.intents.review import steward_scope
from core.answer.steward import ask_as_steward
from core.catalog.envelope import Behavior
from core.explain.explain import deterministic
from core.explain.headline import headline
from core.explain.render import render_text

AT = datetime(2026, 6, 15, 8, 0, tzinfo=timezone.utc)
ROLES = ["agronomist", "picker"]
NOW_OWNER = "Orchard Analytics (Tove Lind)"
OLD_OWNER = "Field Operations (Ines Ruiz)"  # v1's owner: the picker may not see v1


def _metric(name, title, version, formula, acl, valid_from, valid_to=None, owner=NOW_OWNER, text=""):
    out = {"evidence_id": f"metric.{name}.v{version}", "entity_id": f"metric.{name}", "kind": "metric_definition",
           "title": f"{title} v{version}", "version": version, "authority": "authoritative", "lifecycle": "current",
           "authority_class": "semantic_registry", "valid_from": valid_from, "acl": acl, "owner": owner,
           "metric": {"formula": formula, "grain": "one row per tree", "unit": "kg"},
           "text": text or f"{title}: {formula}."}
    if valid_to:
        out["valid_to"] = valid_to
    return out


EVIDENCE = [
    _metric("harvest_yield", "Harvest yield", "1", "SUM(picked_kg)", ["agronomist"], "2023-01-01", "2025-03-01",
            owner=OLD_OWNER, text="Harvest yield is the fruit picked per tree, in kilograms."),
    _metric("harvest_yield", "Harvest yield", "2", "SUM(picked_kg) - SUM(culled_kg)", ROLES, "2025-03-01",
            text="Harvest yield is the fruit picked per tree minus culled fruit, in kilograms."),
    _metric("crate_count", "Crate count", "1", "COUNT(crate_id)", ROLES, "2024-01-01",
            owner="Packhouse Team (Aziz Noor)", text="Crates filled at the packhouse, per tree row."),
]

WORDINGS = [
    "who owns harvest yield, and what changed in its last version?",
    "what changed in harvest yield's last version and who owns it?",
    "who owns harvest yield and when did its definition change?",
    "who owns harvest yield and when did it change?",
    "who owns harvest yield and how has it changed?",
    "who is the owner of harvest yield, and has it been redefined?",
    "compare the versions of harvest yield and tell me who owns it",
]


@pytest.fixture(scope="module")
def ask_orchard(tmp_path_factory, embedder):
    return asker(tmp_path_factory, embedder, "orchard", ROLES, EVIDENCE, AT)


def _said(env) -> str:
    """What a user reads: the headline, the terminal answer and the explanation's sentences."""
    sentences = deterministic(env, lambda ids: set(ids)).sentences
    return headline(env) + "\n" + render_text(env) + "\n" + "\n".join(s.text for s in sentences)


@pytest.mark.parametrize("text", WORDINGS)
def test_owner_and_what_changed_are_both_answered(ask_orchard, text):
    env = ask_orchard(text, "agronomist")
    assert env.behavior is Behavior.answer and env.entity_id == "metric.harvest_yield", (text, env.verdict)
    # the owner of the version in effect today, as the owner question and the definition answer say it
    assert f"Harvest yield is owned by {NOW_OWNER}" in env.verdict, (text, env.verdict)
    assert headline(env).startswith(f"Harvest yield is owned by {NOW_OWNER}; v1 and v2 differ in "), headline(env)
    assert "formula" in headline(env) and "SUM(picked_kg) - SUM(culled_kg)" in _said(env)


@pytest.mark.parametrize("text", WORDINGS[:6])
def test_one_visible_version_gives_the_owner_and_since_when(ask_orchard, text):
    """The picker sees v2 only: the owner, and that v2 is the only version it can see, in effect since 1 Mar 2025.
    Nothing of v1 (its owner, its dates) is told."""
    env = ask_orchard(text, "picker")
    assert env.behavior is Behavior.answer and env.entity_id == "metric.harvest_yield", (text, env.verdict)
    assert headline(env) == (f"Harvest yield is owned by {NOW_OWNER}; v2 is the only approved version you can see, "
                             "in effect from 1 Mar 2025"), (text, headline(env))
    assert f"owned by {NOW_OWNER}" in env.verdict and "from 2025-03-01 onward" in env.verdict
    shown = env.model_dump_json() + _said(env)
    assert OLD_OWNER not in shown and "harvest_yield.v1" not in shown and "2023-01-01" not in shown


def test_two_metrics_compared_each_with_its_owner(ask_orchard):
    env = ask_orchard("compare harvest yield and crate count, and who owns each?", "agronomist")
    assert env.comparison is not None and env.comparison.right_label == "Crate count", env.verdict
    assert (f"Harvest yield is owned by {NOW_OWNER}" in env.verdict
            and "Crate count is owned by Packhouse Team (Aziz Noor)" in env.verdict), env.verdict


# ---- the demo: the questions as asked ---------------------------------------------------------------------------

@pytest.mark.parametrize("text, role, label, owner, versions", [
    ("who owns net revenue, and what changed in its last version?", "finance", "Net revenue",
     "Revenue Analytics (Priya Shah)", "v1 and v2 differ in formula"),
    ("what changed in churn's last version and who owns it?", "analyst", "Churn rate",
     "Growth Analytics (Jonas Berg)", "v1 and v2 differ in exclusions"),
])
def test_demo_owner_and_change(ask_demo, text, role, label, owner, versions):
    env = ask_demo(text, role)
    assert env.behavior is Behavior.answer, (text, env.verdict)
    assert f"{label} is owned by {owner}" in env.verdict, (text, env.verdict)
    assert headline(env).startswith(f"{label} is owned by {owner}; {versions}"), (text, headline(env))


def test_demo_governance_owner_and_when_churn_changed(demo):
    """Governance reads churn through its review queue, which holds v2 only: the owner, and since when v2 is the only
    version it can see, as the answer to "when"."""
    store, searcher = demo
    scope = steward_scope(store, "governance", DEMO_AT.date())
    env, _ = ask_as_steward(store, Question(role="governance", text="who owns churn and when did its definition change",
                                            at=DEMO_AT), scope, searcher)
    assert env.behavior is Behavior.answer and env.entity_id == "metric.churn_rate", env.verdict
    assert headline(env) == ("Churn rate is owned by Growth Analytics (Jonas Berg); v2 is the only approved version "
                             "you can see, in effect from 1 Oct 2025"), headline(env)
