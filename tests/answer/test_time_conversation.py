"""A conversation about time (issue 45), on a lido's catalog and warehouse the test builds (tests/lido_catalog.py),
through core, the CLI's --batch with follows_on and MCP conversations: one answer on every surface (the envelope
carries the page's headline; MCP `ask` computes values with the server's warehouse)."""
from __future__ import annotations

import json

import pytest
from conftest import cli
from lido_catalog import AT, build

from core.answer.conversation import Conversations
from core.explain.headline import headline


@pytest.fixture(scope="module")
def lido(tmp_path_factory):
    return build(tmp_path_factory.mktemp("lido_talk"))


@pytest.fixture(scope="module")
def mcp(lido):
    from core.serve import mcp_tools as tools
    from core.serve.mcp_auth import Identity
    from core.serve.mcp_server import CatalogHolder
    from core.settings.config import Settings
    store, wh = lido
    cat = CatalogHolder(store.path, Settings(warehouse_path=wh)).current()
    memory = Conversations()
    who = Identity(principal="maren", role="lifeguard", resolved="test")

    def ask_in(text, conversation="c1"):
        (body, env), _ = tools.ask_tool(cat, who, text, None, None, AT, None, conversation, memory)
        return body, env
    return ask_in


def _batch(lido, tmp_path, lines):
    store, wh = lido
    batch = tmp_path / "b.jsonl"
    batch.write_text("\n".join(json.dumps({"role": "lifeguard", **x}) for x in lines))
    r = cli("ask", "--db", str(store.path), "--batch", str(batch), "--at", AT.isoformat(), "--warehouse", str(wh))
    assert r.returncode == 0, r.stderr
    return [json.loads(x) for x in r.stdout.splitlines()]


def test_the_json_envelope_carries_the_pages_headline(lido, tmp_path):
    out = _batch(lido, tmp_path, [{"question": "ticket sales in Q2 2027"},
                                  {"question": "and in Q3 2027?", "follows_on": True}])
    assert out[0]["headline"] == "Ticket sales was $150.00 in Q2 2027 under v1"
    assert out[1]["headline"] == "Ticket sales was $240.00 in Q3 2027 under v1"
    store, wh = lido
    r = cli("ask", "--db", str(store.path), "--role", "lifeguard", "--json", "--at", AT.isoformat(),
            "--warehouse", str(wh), "pass holders in 2027 by month")
    assert json.loads(r.stdout)["headline"] == "Pass holders was 219 customers at the end of 2027 under v2; 12 months below"


def test_mcp_ask_computes_values_with_the_servers_warehouse(mcp):
    body, env = mcp("ticket sales in Q2 2027")
    assert [v.value for v in env.values.values] == [150.0]
    assert body["headline"] == body["envelope"]["headline"] == headline(env) == \
        "Ticket sales was $150.00 in Q2 2027 under v1"


@pytest.fixture(scope="module")
def ask_lido(lido):
    from core.answer.ask import Question, ask
    from core.compute.engine import DuckDBEngine
    store, wh = lido
    engine = DuckDBEngine(wh)

    def _ask(text, role="lifeguard"):
        return ask(store, Question(role=role, text=text, at=AT), engine=engine)
    return _ask


def test_the_catalogs_own_changes_list_the_versions_starting_in_the_span(ask_lido):
    env = ask_lido("which metrics changed definition in 2027?")
    assert env.behavior.value == "answer" and [i.label for i in env.listing.items] == ["Pass holders"]
    assert "Pass holders v2 from 1 Jan 2027, after v1" in env.verdict
    assert env.listing.checked == 4  # the lifeguard's four metrics: the cashier's till float is not counted
    assert "Till float" not in env.verdict and "till" not in headline(env).lower()
    assert [i.label for i in ask_lido("which metrics changed definition in 2027?", "cashier").listing.items] == \
        ["Pass holders", "Till float"]
    coming = ask_lido("what changes are coming?")
    assert [i.label for i in coming.listing.items] == ["Pool temperature", "Ticket sales"]
    assert "Pool temperature v2 from 1 Jun 2028 (still to come), after v1" in coming.verdict
    assert "Ticket sales draft v2 proposed from 1 Sep 2028" in coming.verdict  # proposed, not approved
    assert headline(coming).startswith("2 of the 9 definitions you can see will change after 8 Mar 2028")
    since = ask_lido("what changed since last month?")
    assert since.behavior.value == "answer" and not since.listing.items
    assert headline(since) == "None of the 9 definitions you can see changed from 1 Feb 2028 to 8 Mar 2028"
    assert [i.label for i in ask_lido("what has changed since 2026?").listing.items] == ["Pass holders"]
    # naming a subject of its own is that subject's comparison, not the catalog's changes
    assert ask_lido("what changed in pass holders in 2027?").comparison is not None
