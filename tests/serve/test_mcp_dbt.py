"""A plain dbt catalog served to AI assistants (issue 46 item 1): no `principals` anywhere, as every `ingest --dbt`
without an overlay writes it. Over stdio `--role NAME` names who asks, and `answered_as` says the server runs as a
role; over HTTP a token is issued for a role (`mcp-token add --role`); an overlay may declare principals, and then
only principals are served. Driven by the Python SDK and, when node is present, by the official TypeScript SDK as
a second client from another implementation (tests/mcp_node, installed by scripts/setup.sh with `npm ci`).

The project is a fruit cooperative's, written by scripts/gen_dbt_project.py's `write_target` with names of this
test's own; the servers serve it without a search index (answers from names and rules alone), so no server loads
the embedding model.
"""
import json
import os
import shutil
import subprocess
import sys

import anyio
import httpx2
import pytest
from conftest import ROOT, cli
from dbt_project import gen, ingested
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp_http import mcp_over_http

from core.catalog.store import Store, write_catalog
from core.ingest.ingest import read_inputs
from core.ingest.load import CatalogError
from core.serve.mcp_auth import AccessDenied, load_tokens, resolve_identity

NODE_CLIENT = ROOT / "tests" / "mcp_node"
ENV = {"PYTHONPATH": str(ROOT), **{k: os.environ[k] for k in (
    "HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "LITELLM_LOCAL_MODEL_COST_MAP", "LANCEDB_LOG",
    "HF_HUB_DISABLE_PROGRESS_BARS", "PATH") if k in os.environ},
       "ASOF_WAREHOUSE": "/nonexistent/warehouse.duckdb", "ASOF_AUTH": "demo"}
P = "orchard_coop"
SPEC = {
    "project": P,
    "sources": [{"source": "harvest_db", "name": "pickings", "columns": ["picking_id", "grower_id", "crates"],
                 "loaded_at_field": "_loaded_at"}],
    "models": [
        {"name": "crate_yields", "description": "Crates picked per grower and orchard row, one row per picking.",
         "columns": [{"name": "picking_id", "description": "Key of the picking."},
                     {"name": "crates", "description": "Crates filled."}],
         "depends_on": ["source:harvest_db.pickings"]},
        {"name": "grower_payouts", "description": "What each grower is paid per season.",
         "columns": ["grower_id", "payout_eur"], "depends_on": ["model:crate_yields"]},
    ],
    "metrics": [{"name": "crates_picked", "label": "Crates picked", "model": "crate_yields", "measure": "crates",
                 "agg": "sum", "expr": "crates", "description": "All crates picked."}],
}


@pytest.fixture(scope="module")
def plain(tmp_path_factory):
    """The cooperative's dbt project ingested with no overlay: roles [analyst], no principals."""
    catalog, db = ingested(tmp_path_factory.mktemp("coop"), SPEC, name="coop")
    assert catalog.principals == [] and catalog.role_names == ["analyst"]
    return db


def _stdio(db, *args) -> Client:
    return Client(StdioServerParameters(command=sys.executable, cwd=str(ROOT), env=ENV,
                                        args=["-m", "core", "mcp", "--db", str(db), *args]))


def _json(result) -> dict:
    assert not result.is_error, result.content[0].text
    return json.loads(result.content[0].text)


def _node(plan: dict, tmp_path) -> dict:
    """The TypeScript SDK's client running `plan` (tests/mcp_node/client.mjs)."""
    if shutil.which("node") is None:
        pytest.skip("node is not installed: the TypeScript SDK client needs it (scripts/setup.sh installs the SDK)")
    if not (NODE_CLIENT / "node_modules" / "@modelcontextprotocol" / "sdk").is_dir():
        pytest.skip("tests/mcp_node/node_modules is missing: run scripts/setup.sh (npm ci there)")
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(plan))
    out = subprocess.run(["node", str(NODE_CLIENT / "client.mjs"), str(path)], capture_output=True, text=True,
                         timeout=180, cwd=NODE_CLIENT)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout)


RUNS_AS_ROLE = "runs as role analyst: this catalog declares no principals"


def test_stdio_serves_a_plain_dbt_catalog_as_the_role_it_was_started_with(plain):
    async def main():
        async with _stdio(plain, "--role", "analyst") as c:
            tools = (await c.list_tools()).tools
            assert "ask" in {t.name for t in tools}
            assert all("Runs as role analyst" in t.description for t in tools)
            listed = _json(await c.call_tool("list_metrics", {}))
            assert listed["answered_as"]["principal"] is None and listed["answered_as"]["role"] == "analyst"
            assert listed["answered_as"]["resolved"].startswith(RUNS_AS_ROLE)
            assert [m["entity_id"] for m in listed["metrics"]] == ["metric.crates_picked"]
            asked = _json(await c.call_tool("ask", {"question": "which model backs crates picked?"}))
            assert asked["envelope"]["behavior"] == "answer", asked["envelope"]["verdict"]
            assert "crate_yields" in asked["headline"] + asked["envelope"]["verdict"]
            lin = _json(await c.call_tool("get_lineage", {"entity": "model.crate_yields"}))
            assert lin["raw_sources"] == [f"source.{P}.harvest_db.pickings"]

    anyio.run(main)


def test_stdio_refuses_a_missing_or_unknown_role_on_a_plain_catalog(plain):
    out = cli("mcp", "--db", str(plain))
    assert out.returncode == 2 and "declares no principals, so give --role NAME" in out.stderr
    out = cli("mcp", "--db", str(plain), "--role", "finance")
    assert out.returncode == 2 and "unknown role 'finance'" in out.stderr
    out = cli("mcp", "--db", str(plain), "--principal", "pat")
    assert out.returncode == 2 and "unknown principal 'pat'" in out.stderr


def test_the_typescript_sdk_drives_the_documented_stdio_config(plain, tmp_path):
    """docs/mcp.md's Claude Desktop JSON for a dbt catalog, as written there, started by another implementation."""
    doc = (ROOT / "docs" / "mcp.md").read_text()
    block = doc[doc.index("```json", doc.index("**A plain dbt project.**")) + 7:]
    config = json.loads(block[:block.index("```")])["mcpServers"]["asof"]
    args = [str(plain) if a.endswith(".duckdb") else a for a in config["args"]]
    assert args[:2] == ["-m", "core"] and "--role" in args and "--principal" not in args
    got = _node({"transport": "stdio", "command": sys.executable, "args": args, "cwd": str(ROOT),
                 "env": {**ENV, **{k: v for k, v in config.get("env", {}).items() if k != "PYTHONPATH"}},
                 "calls": [["list_metrics", {}], ["get_definition", {"entity": "crates picked"}],
                           ["review_queue", {}]]}, tmp_path)
    assert got["server"]["name"] == "asof" and "get_freshness" in got["tools"]
    listed, definition, queue = got["results"]
    assert listed["answered_as"]["role"] == "analyst" and listed["answered_as"]["principal"] is None
    assert definition["definition"][0]["entity_id"] == "metric.crates_picked"
    assert "review_queue is for catalog stewards; role analyst" in queue["error"]


@pytest.fixture(scope="module")
def http_plain(plain):
    """An HTTP server over the plain catalog, with one token issued for the role by `mcp-token add --role`."""
    tokens = plain.with_name("coop.tokens.json")
    out = cli("mcp-token", "add", "--db", str(plain), "--tokens", str(tokens), "--role", "analyst",
              "--label", "orchard team")
    assert out.returncode == 0, out.stderr
    token = out.stdout.strip()
    assert token.startswith("asof_") and token not in tokens.read_text()
    entry = load_tokens(tokens).tokens[0]
    assert (entry.principal, entry.role, entry.label) == (None, "analyst", "orchard team")
    with mcp_over_http(plain, tokens, ENV) as url:
        yield url, token


def test_http_token_for_a_role_on_a_plain_catalog(http_plain, tmp_path):
    url, token = http_plain

    async def main():
        client = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=httpx2.Timeout(30, read=120))
        async with Client(streamable_http_client(url, http_client=client)) as c:
            got = _json(await c.call_tool("get_definition", {"entity": "model.grower_payouts"}))
            assert got["answered_as"]["role"] == "analyst" and got["answered_as"]["principal"] is None
            assert got["definition"][0]["entity_id"] == "model.grower_payouts"

    anyio.run(main)
    by_node = _node({"transport": "http", "url": url, "token": token,
                     "calls": [["get_freshness", {"entity": "source.harvest_db.pickings"}]]}, tmp_path)
    assert by_node["results"][0]["answered_as"]["resolved"].startswith(RUNS_AS_ROLE)
    r = httpx2.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
                    headers={"Accept": "application/json, text/event-stream", "Authorization": f"Bearer {token}x"})
    assert r.status_code == 401


def test_an_overlay_declares_principals_and_then_only_principals_are_served(tmp_path):
    target = gen.write_target(SPEC, tmp_path / "target")
    overlay = tmp_path / "coop.overlay.yml"
    overlay.write_text("roles: [analyst, {name: stewards, steward: true}]\n"
                       "principals: [{name: ines, roles: [analyst]}, {name: theo, roles: [stewards, analyst]}]\n")
    db = tmp_path / "coop.duckdb"
    catalog, _ = read_inputs(db, dbt=target, overlay=overlay)
    write_catalog(catalog, db)
    store = Store(db)
    try:
        assert store.principals() == {"ines": ["analyst"], "theo": ["stewards", "analyst"]}
        assert resolve_identity(store, "ines").role == "analyst"
        assert resolve_identity(store, "theo", "stewards").steward
        with pytest.raises(AccessDenied, match="declares principals"):
            resolve_identity(store, None, "analyst")
    finally:
        store.close()
    out = cli("mcp-token", "add", "--db", str(db), "--tokens", str(tmp_path / "t.json"), "--role", "analyst")
    assert out.returncode == 2 and "declares principals" in out.stderr and not (tmp_path / "t.json").exists()
    out = cli("mcp-token", "add", "--db", str(db), "--tokens", str(tmp_path / "t.json"), "--principal", "ines")
    assert out.returncode == 0 and load_tokens(tmp_path / "t.json").tokens[0].principal == "ines"

    overlay.write_text("roles: [analyst]\nprincipals: [{name: ines, roles: [auditors]}]\n")
    with pytest.raises(CatalogError) as err:
        read_inputs(db, dbt=target, overlay=overlay)
    assert "unknown role 'auditors'" in str(err.value)
    overlay.write_text("roles: [analyst]\nprincipals: {ines: analyst}\n")
    with pytest.raises(CatalogError) as err:
        read_inputs(db, dbt=target, overlay=overlay)
    assert str(overlay) in str(err.value) and "principals" in str(err.value)
