"""The verbs of an inclusion question ("leave out", "omit") end the name before them, and only there: on a credit
union's catalog the test writes (its own names), "leave" and "left" that are no inclusion verb keep naming something
this role does not see, and a "leave ... out" whose particle belongs to another clause asks no inclusion question.
Found in review of the change that made "does AOV leave out shipping costs?" an inclusion question."""
from datetime import datetime, timezone

import pytest
from conftest import asker

from core.catalog.envelope import Behavior
from core.explain.headline import headline

AT = datetime(2031, 2, 1, 9, 0, tzinfo=timezone.utc)
ROLES = ["teller", "auditor"]


def _metric(key: str, title: str, formula: str, text: str, acl: list[str], exclusions=()) -> dict:
    return {"evidence_id": f"metric.{key}.v1", "entity_id": f"metric.{key}", "kind": "metric_definition",
            "title": f"{title} v1", "version": "1", "authority": "authoritative", "lifecycle": "current",
            "authority_class": "semantic_registry", "valid_from": "2030-01-01", "acl": acl,
            "metric": {"formula": formula, "exclusions": list(exclusions)}, "text": text}


EVIDENCE = [
    _metric("deposits", "Deposits", "SUM(credited_amount)", "Money credited to member accounts. Pending transfers are "
            "left out.", ROLES, ["pending transfers"]),
    _metric("account_balance", "Account balance", "SUM(credits) - SUM(debits)", "Credits minus debits per account.",
            ROLES),
    _metric("leave_balance", "Leave balance", "SUM(leave_days_granted) - SUM(leave_days_taken)",
            "Staff leave days still to take.", ["auditor"]),
]


@pytest.fixture(scope="module")
def union(tmp_path_factory, embedder):
    return asker(tmp_path_factory, embedder, "union", ROLES, EVIDENCE, AT)


@pytest.mark.parametrize("text,lead", [
    ("does deposits leave out pending transfers?", "Yes: Deposits v1 excludes pending transfers"),
    ("do deposits omit pending transfers?", "Yes: Deposits v1 excludes pending transfers"),
    ("does deposits leave pending transfers out?", "Yes: Deposits v1 excludes pending transfers"),
])
def test_an_inclusion_verb_after_a_one_word_name_ends_it(union, text, lead):
    env = union(text, "teller")
    assert env.entity_id == "metric.deposits" and env.inclusion is not None, (text, env.verdict)
    assert headline(env).startswith(lead), (text, headline(env))


@pytest.mark.parametrize("text", ["what is the leave balance?", "how is leave balance calculated?",
                                  "what is left balance?"])
def test_leave_as_a_word_of_a_hidden_name_is_not_stood_in_for(union, text):
    # The teller may not see Leave balance: Account balance must not answer for it, as for a made-up name.
    env = union(text, "teller")
    made_up = union(text.replace("leave", "quorn").replace("left", "quorn"), "teller")
    assert env.behavior is made_up.behavior is Behavior.not_found_or_not_authorized, (text, env.verdict)
    assert env.verdict == made_up.verdict
    if "leave" in text:  # the auditor, who may see it, is answered about it
        assert union(text, "auditor").entity_id == "metric.leave_balance", text


@pytest.mark.parametrize("text", ["does deposits leave customers who opted out?",
                                  "when did deposits leave draft and roll out?"])
def test_a_particle_of_another_clause_asks_no_inclusion(union, text):
    assert union(text, "teller").inclusion is None, text
