"""`asof review list|decide|export|replay` on a library's catalog (tests/library_catalog.py): the same rules and
records as the page, every decision and refusal in the keyed audit chain with replay, the export a patch that
applies to the team's files and, once ingested, reads as carried; MCP cannot decide."""
from __future__ import annotations

import json
import shutil
import subprocess

import anyio
import pytest
import yaml
from conftest import cli
from library_catalog import READER_PRINCIPAL, RENEWALS, STEWARD_PRINCIPAL, write
from mcp import Client

from core.catalog.store import Store
from core.ingest.decision_file import decisions_path, read_records
from core.serve.audit import read_all, verify
from core.serve.mcp_server import CatalogHolder, Principal, build_server
from core.settings.config import Settings


@pytest.fixture
def lib(tmp_path, monkeypatch):
    monkeypatch.setenv("ASOF_AUDIT_KEY", "k" * 64)  # the keyed chain
    source = write(tmp_path / "repo" / "catalog")
    db = tmp_path / "library.duckdb"
    assert cli("ingest", str(source), "--db", str(db)).returncode == 0
    return tmp_path, source, db


def _listed(db, principal=STEWARD_PRINCIPAL):
    r = cli("review", "list", "--db", str(db), "--principal", principal, "--json")
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def _overlap(listed):
    return next(i for i in listed["open"] if i["item"]["category"] == "overlap" and i["item"]["entity_id"] == RENEWALS)


def test_list_decide_refuse_audit_and_replay(lib):
    _, _, db = lib
    listed = _listed(db)
    item = _overlap(listed)
    assert item["id"] == _overlap(_listed(db, "INES"))["id"]  # stable; the principal matched as `ask` matches it
    assert "close_overlap" in item["actions"]
    # A non-steward is refused and nothing is listed or changed.
    r = cli("review", "list", "--db", str(db), "--principal", READER_PRINCIPAL)
    assert r.returncode == 2 and "no steward role" in r.stderr and not r.stdout
    r = cli("review", "decide", "--db", str(db), "--principal", READER_PRINCIPAL, "--item", item["id"],
            "--action", "close_overlap", "--governs", f"{RENEWALS}.v2", "--from", "2025-06-01", "--reason", "x")
    assert r.returncode == 2 and not decisions_path(db).exists()
    base = ["review", "decide", "--db", str(db), "--principal", STEWARD_PRINCIPAL, "--item", item["id"],
            "--seen", listed["revision"]]
    r = cli(*base, "--action", "close_overlap", "--governs", f"{RENEWALS}.v2", "--from", "2025-06-01", "--reason", " ")
    assert r.returncode == 2 and "a reason is required" in r.stderr
    r = cli(*base, "--action", "set_roles", "--roles", "desk", "--reason", "why not")
    assert r.returncode == 2 and "does not offer 'set_roles'" in r.stderr
    r = cli(*base, "--action", "close_overlap", "--governs", f"{RENEWALS}.v2", "--from", "2025-06-01",
            "--reason", "Lending board, 12 Feb")
    assert r.returncode == 0, r.stderr
    assert "v2 governs from 2025-06-01" in r.stdout
    # Closed items with who and why, filterable.
    closed = _listed(db)["closed"]
    assert [(c["id"], c["decision"]["by"], c["decision"]["reason"]) for c in closed] == [
        (item["id"], STEWARD_PRINCIPAL, "Lending board, 12 Feb")]
    r = cli("review", "list", "--db", str(db), "--principal", STEWARD_PRINCIPAL, "--closed")
    assert "Lending board, 12 Feb" in r.stdout and "close_overlap by ines" in r.stdout
    # The same decision again: already decided.
    r = cli(*base, "--action", "close_overlap", "--governs", f"{RENEWALS}.v2", "--from", "2025-06-01", "--reason", "y")
    assert r.returncode == 2 and "already decided by ines" in r.stderr
    # Every decision and refusal is in the keyed chain; the chain verifies; the decision replays.
    recs = read_all(db)
    assert [r.behavior for r in recs] == ["refused", "refused", "refused", "decision", "refused"]
    assert recs[0].principal == READER_PRINCIPAL and "no steward role" in recs[0].message
    decision = recs[3]
    assert decision.hash.startswith("hmac-sha256:") and decision.principal == STEWARD_PRINCIPAL
    assert decision.inputs["reason"] == "Lending board, 12 Feb" and decision.inputs["identity"] == "command line"
    assert verify(db).intact
    r = cli("review", "replay", decision.id, "--db", str(db))
    assert r.returncode == 0 and "REPRODUCED" in r.stdout, r.stdout
    r = cli("audit", "replay", decision.id, "--db", str(db))  # the audit command replays it the same way
    assert r.returncode == 0 and "REPRODUCED" in r.stdout and "v2 governs from 2025-06-01" in r.stdout
    assert cli("audit", "list", "--db", str(db), "--behavior", "decision").stdout.count("review decide") == 1
    # An edited decisions file no longer replays.
    path = decisions_path(db)
    path.write_text(path.read_text().replace("Lending board, 12 Feb", "Lending board, 13 Feb"))
    r = cli("review", "replay", decision.id, "--db", str(db))
    assert r.returncode == 1 and "no longer matches" in r.stdout


def test_export_is_a_patch_that_applies_and_reads_as_carried(lib, tmp_path):
    root, source, db = lib
    item = _overlap(_listed(db))
    r = cli("review", "decide", "--db", str(db), "--principal", STEWARD_PRINCIPAL, "--item", item["id"], "--action",
            "close_overlap", "--governs", f"{RENEWALS}.v2", "--from", "2025-06-01", "--reason", "Lending board")
    assert r.returncode == 0, r.stderr
    note = next(i for i in _listed(db)["open"] if i["item"]["category"] == "untrusted_instructions")
    assert cli("review", "decide", "--db", str(db), "--principal", STEWARD_PRINCIPAL, "--item", note["id"],
               "--action", "retire", "--reason", "Chat exports are not documentation").returncode == 0
    original = (source / "10_metrics.yaml").read_text()
    r = cli("review", "export", "--db", str(db), "--since", "2026-01-01", "--source", str(source))
    assert r.returncode == 0, r.stderr
    patch = r.stdout
    assert "Lending board" in patch and "+  valid_through: 2025-05-31" in patch.replace("  ", " ", 1) or \
        "valid_through: 2025-05-31" in patch
    assert (source / "10_metrics.yaml").read_text() == original  # never written into their files
    # It applies to a copy of their repository, with git and with patch.
    copy = tmp_path / "copy"
    shutil.copytree(source, copy)
    (tmp_path / "decisions.patch").write_text(patch)
    subprocess.run(["git", "init", "-q", str(copy)], check=True)
    done = subprocess.run(["git", "apply", "--check", str(tmp_path / "decisions.patch")], cwd=copy,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    done = subprocess.run(["patch", "-p1", "-i", str(tmp_path / "decisions.patch")], cwd=copy, capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    edited = {e["evidence_id"]: e for e in yaml.safe_load((copy / "10_metrics.yaml").read_text())["evidence"]}
    assert str(edited[f"{RENEWALS}.v1"]["valid_through"]) == "2025-05-31"
    assert edited["note.circulation.chat"]["lifecycle"] == "retired"
    # Ingesting the patched files: both decisions are carried into the source.
    r = cli("ingest", str(copy), "--db", str(db))
    assert r.returncode == 0, r.stderr
    assert r.stderr.count("carried") == 2
    listed = _listed(db)
    assert {c["status"] for c in listed["closed"]} == {"carried into the source"}
    check = read_records(db).checks[-1]
    assert len(check.carried) == 2 and not check.contradicted


def test_mcp_cannot_decide(lib):
    _, _, db = lib
    before = db.read_bytes()
    holder = CatalogHolder(db, Settings())
    holder.ready.set()
    server = build_server(holder, Principal(name=STEWARD_PRINCIPAL))

    async def main():
        async with Client(server) as c:
            listed = (await c.list_tools()).tools
            attempt = await c.call_tool("decide", {"item": "x", "action": "close_overlap", "reason": "r"})
            asked = await c.call_tool("ask", {"question": "Close the loan renewals overlap: v2 governs from "
                                                          "2025-06-01"})
            return listed, attempt, asked

    listed, attempt, asked = anyio.run(main)
    assert all(t.annotations.read_only_hint and not t.annotations.destructive_hint for t in listed)
    assert not {t.name for t in listed} & {"decide", "review_decide", "close_overlap"}
    assert attempt.is_error and not asked.is_error
    assert not decisions_path(db).exists() and db.read_bytes() == before
    store = Store(db)
    assert store.revision and len(list(store.roles())) == 3
    store.close()
