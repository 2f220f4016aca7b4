"""A steward's review queue is dated by the catalog's own clock on every surface: the app, `python -m core ask`,
`steward_answer` and the MCP tools. A ferry company's catalog (none of the demo's names) runs on a clock in 2019;
a superseded fares page stops being retrievable at the start of 2020, so it is in the queue on the catalog's day
and gone from it on any real calendar this test runs on. The page and the fare it was replaced by are hidden from
the steward's own ACL: only its queue lets the steward read them, so a surface on the wrong day says not-found."""
import json
from datetime import datetime, timezone

import pytest
import yaml
from conftest import build, cli

from core.answer.ask import Question
from core.answer.steward import steward_answer
from core.catalog.envelope import NOT_FOUND
from core.serve import mcp_tools as tools
from core.serve.mcp_auth import Identity
from core.settings.config import Settings

AT = datetime(2019, 6, 1, 9, 0, tzinfo=timezone.utc)
STEWARD = "harbourmaster"
QUESTION = "what are foot passenger fares?"
FARE = "metric.foot_passenger_fares"
PAGE = "wiki.foot_passenger_fares.old"

EVIDENCE = [
    {"evidence_id": f"{FARE}.v1", "entity_id": FARE, "kind": "metric_definition", "title": "Foot passenger fares v1",
     "version": "1", "authority": "authoritative", "lifecycle": "current", "authority_class": "semantic_registry",
     "valid_from": "2018-01-01", "acl": ["purser"], "owner": "Ticketing (Aino Laine)",
     "metric": {"formula": "SUM(ticket_price_eur)", "grain": "one row per ticket", "unit": "EUR"},
     "text": "Foot passenger fares are ticket prices paid by passengers without a vehicle, in EUR."},
    {"evidence_id": PAGE, "entity_id": "doc.foot_passenger_fares", "kind": "documentation", "authority_class": "wiki",
     "title": "Foot passenger fares (old crew page)", "version": "legacy", "authority": "non_authoritative",
     "lifecycle": "superseded", "superseded_by": f"{FARE}.v1", "expires_at": "2020-01-01", "acl": ["purser"],
     "text": "Foot passenger fares used to include the harbour levy."},
    {"evidence_id": "policy.berthing.v1", "entity_id": "policy.berthing", "kind": "policy", "title": "Berthing rules",
     "authority": "authoritative", "lifecycle": "current", "acl": ["purser", STEWARD],
     "text": "Ferries berth at the north quay."},
]


@pytest.fixture(scope="module")
def ferry(tmp_path_factory, embedder):
    root = tmp_path_factory.mktemp("ferry_queue")
    folder = root / "catalog"
    folder.mkdir()
    (folder / "00_roles.yaml").write_text(yaml.safe_dump({
        "settings": {"evaluation_time": AT.isoformat().replace("+00:00", "Z")},
        "roles": [{"name": "purser"}, {"name": STEWARD, "steward": True}]}))
    (folder / "10_evidence.yaml").write_text(yaml.safe_dump({"evidence": EVIDENCE}, sort_keys=False))
    store, searcher = build(root, "ferry", folder, embedder)
    assert datetime.now(timezone.utc).date().year > 2019  # the wall clock is past the page's expiry
    return store, searcher


def test_the_apps_queue_holds_the_page_on_the_catalogs_day(ferry):
    from ui.steward import scope_for
    scope = scope_for(ferry[0], STEWARD)
    assert {PAGE, f"{FARE}.v1"} <= scope.evidence_ids


def test_the_cli_answers_a_steward_from_the_same_queue_as_the_app(ferry):
    r = cli("ask", "--db", str(ferry[0].path), "--role", STEWARD, "--json", QUESTION)
    assert r.returncode == 0, r.stderr
    env = json.loads(r.stdout)
    assert env["entity_id"] == FARE, env["verdict"]
    assert any(n.startswith("Steward view") for n in env["notes"])


def test_steward_answer_by_default_uses_the_same_queue_as_the_app(ferry):
    store, searcher = ferry
    env, widened = steward_answer(store, Question(role=STEWARD, text=QUESTION), searcher=searcher)
    assert env.entity_id == FARE and env.verdict != NOT_FOUND
    assert widened


def test_the_mcp_tools_use_the_same_queue_as_the_app(ferry):
    store, searcher = ferry
    cat = tools.Catalog(store, searcher, Settings())
    who = Identity(principal="ilse", role=STEWARD, steward=True, resolved=f"test runs as {STEWARD}")
    queue, _ = tools.review_queue_tool(cat, who, None)
    assert [i["title"] for i in queue["items"]] == ["'Foot passenger fares (old crew page)' is superseded but "
                                                    "still retrievable"]
    (asked, _), _ = tools.ask_tool(cat, who, QUESTION, None, None, None, None)
    assert asked["envelope"]["entity_id"] == FARE, asked["headline"]


def test_the_mcp_definition_of_a_queue_object_answers_it_for_the_steward(ferry):
    """get_definition finds the name through the steward's queue, so it answers from the queue too."""
    store, searcher = ferry
    cat = tools.Catalog(store, searcher, Settings())
    who = Identity(principal="ilse", role=STEWARD, steward=True, resolved=f"test runs as {STEWARD}")
    (definition, env), inputs = tools.get_definition_tool(cat, who, "foot passenger fares", None, None)
    assert definition["entity_id"] == FARE, definition["verdict"]
    assert any(n.startswith("Steward view") for n in definition["notes"])

