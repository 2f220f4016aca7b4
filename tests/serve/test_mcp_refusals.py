"""Calls the MCP SDK refuses before any AsOf tool runs leave an audit record and a server log line (issue 40,
item 4): an unknown tool, arguments that fail the input schema, and HTTP requests without a valid bearer token
(401). Before, none of them was recorded anywhere (the SDK logged at INFO, under the server's WARNING level),
although the server's own comment promised every refused call was. A lighthouse catalog this file builds."""
from __future__ import annotations

import anyio
import httpx
import pytest
import yaml
from mcp import Client

from core.catalog.store import write_catalog
from core.ingest.load import load_catalog
from core.serve.audit import read_all
from core.serve.mcp_auth import add_token
from core.serve.mcp_refusals import refusing_unauthorized
from core.serve.mcp_server import CatalogHolder, Principal, build_server, refusal_recorder
from core.settings.config import Settings

CATALOG = {
    "roles": [{"name": "keeper", "description": "Lighthouse keepers"}],
    "principals": [{"name": "ines", "roles": ["keeper"]}],
    "evidence": [{"evidence_id": "metric.lamp_hours.v1", "entity_id": "metric.lamp_hours", "kind": "metric_definition",
                  "title": "Lamp hours v1", "version": "1", "authority": "authoritative", "lifecycle": "current",
                  "authority_class": "semantic_registry", "valid_from": "2022-04-01", "acl": ["keeper"],
                  "owner": "Coastal Lights (Ines Varga)", "metric": {"formula": "SUM(lit_minutes) / 60"},
                  "text": "Lamp hours are the hours the main lamp was lit."}]}


@pytest.fixture
def holder(tmp_path):
    src = tmp_path / "lights.yaml"
    src.write_text(yaml.safe_dump(CATALOG, sort_keys=False))
    db = tmp_path / "lights.duckdb"
    write_catalog(load_catalog(src), db)
    h = CatalogHolder(db, Settings())
    h.ready.set()  # no search index: nothing to warm
    return h


def _refused(db):
    return [r for r in read_all(db) if r.behavior == "refused"]


def test_unknown_tools_and_schema_failures_are_recorded(holder, capfd):
    server = build_server(holder, Principal(name="ines"))

    async def main():
        async with Client(server) as c:
            made_up = await c.call_tool("export_all_metrics", {"role": "admin"})
            bad_date = await c.call_tool("get_freshness", {"entity": "metric.lamp_hours", "at": "last tuesday"})
            bad_depth = await c.call_tool("get_lineage", {"entity": "metric.lamp_hours", "depth": "deep"})
            fine = await c.call_tool("list_metrics", {})
        return made_up, bad_date, bad_depth, fine

    made_up, bad_date, bad_depth, fine = anyio.run(main)
    assert made_up.is_error and bad_date.is_error and bad_depth.is_error and not fine.is_error
    records = _refused(holder.db_path)
    assert [r.inputs["tool"] for r in records] == ["export_all_metrics", "get_freshness", "get_lineage"]
    assert all(r.source == "mcp" and r.principal == "ines" and r.role == "keeper" for r in records)
    assert "unknown tool 'export_all_metrics'" in records[0].message
    assert records[0].inputs["arguments"] == ["role"]
    assert records[1].inputs["invalid"] == ["at"] and records[2].inputs["invalid"] == ["depth"]
    # the caller's values are not kept: they are its data
    assert not any("last tuesday" in r.model_dump_json() or "deep\"" in r.model_dump_json() for r in records)
    err = capfd.readouterr().err
    assert "refused: unknown tool 'export_all_metrics'" in err and "refused: tool get_lineage" in err


def test_requests_without_a_valid_token_are_recorded(holder, tmp_path, capfd):
    tokens = tmp_path / "tokens.json"
    good = add_token(tokens, "ines")
    principal = Principal(tokens_path=tokens)
    server = build_server(holder, principal, auth_url="http://127.0.0.1:9")
    app = refusing_unauthorized(server.streamable_http_app(streamable_http_path="/mcp"),
                                refusal_recorder(holder, principal))
    hello = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}

    async def main():
        transport = httpx.ASGITransport(app=app, client=("203.0.113.7", 4711))
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:9") as c:
            none = await c.post("/mcp", json=hello)
            guessed = await c.post("/mcp", json=hello, headers={"Authorization": "Bearer asof_guessed"})
        return none, guessed

    none, guessed = anyio.run(main)
    assert none.status_code == 401 and guessed.status_code == 401
    records = _refused(holder.db_path)
    assert [r.message for r in records] == [
        "HTTP 401 for POST /mcp from 203.0.113.7: no bearer token",
        "HTTP 401 for POST /mcp from 203.0.113.7: a bearer token this server does not hold"]
    assert all(r.principal is None and r.inputs["peer"] == "203.0.113.7" for r in records)
    assert not any("asof_guessed" in r.model_dump_json() or good in r.model_dump_json() for r in records)
    err = capfd.readouterr().err
    assert err.count("AsOf MCP: refused: HTTP 401") == 2 and "asof_guessed" not in err
