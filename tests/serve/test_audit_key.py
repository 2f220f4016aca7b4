"""A keyed audit chain (issue 40, item 5). A plain sha256 chain cannot catch someone who edits a record and
recomputes every hash after it: the log then verifies intact and replay calls the edited record verified. With
ASOF_AUDIT_KEY (or an owner-only ASOF_AUDIT_KEY_FILE) the chain is an HMAC: such a rewrite is found at the edited
record, replay says "verified" only for records the key vouches for, and verify says when no key is set. An
orchard catalog this file builds."""
from __future__ import annotations

import hashlib
import json
import os

import pytest
import yaml
from conftest import cli

from core.answer.ask import Question, ask
from core.catalog.store import Store, write_catalog
from core.ingest.load import load_catalog
from core.serve import audit
from core.serve.audit_key import AuditKeyError
from core.serve.replay import replay

KEY = "orchard-audit-key-0f9e8d7c6b5a4"
ROLE = "grower"
CATALOG = {
    "roles": [{"name": ROLE, "description": "Orchard growers"},
              {"name": "steward", "description": "Orchard catalog stewards", "steward": True}],
    "evidence": [{"evidence_id": "metric.fruit_set.v1", "entity_id": "metric.fruit_set", "kind": "metric_definition",
                  "title": "Fruit set v1", "version": "1", "authority": "authoritative", "lifecycle": "current",
                  "authority_class": "semantic_registry", "valid_from": "2021-03-01", "acl": [ROLE],
                  "owner": "Orchard Science (Tomas Reyes)", "metric": {"formula": "fruits / blossoms"},
                  "text": "Fruit set is the share of blossoms that became fruit."}]}
QUESTIONS = ["what is fruit set?", "how is fruit set defined?", "who owns fruit set?", "what does fruit set mean?"]


def _log(tmp_path, monkeypatch, key: str | None):
    src = tmp_path / "orchard.yaml"
    src.write_text(yaml.safe_dump(CATALOG, sort_keys=False))
    db = tmp_path / "orchard.duckdb"
    write_catalog(load_catalog(src), db)
    if key:
        monkeypatch.setenv("ASOF_AUDIT_KEY", key)
    else:
        monkeypatch.delenv("ASOF_AUDIT_KEY", raising=False)
    monkeypatch.delenv("ASOF_AUDIT_KEY_FILE", raising=False)
    ids = []
    for text in QUESTIONS:
        q = Question(role=ROLE, text=text)
        ids.append(audit.record(db, envelope=ask(Store(db), q), role=ROLE, principal=None, source="cli",
                                inputs=audit.inputs_of(q)))
    return db, ids


def _lines(db) -> list[dict]:
    return [json.loads(x) for x in audit.audit_path(db).read_text().splitlines() if x.strip()]


def _rechain(db, edit_at: int, hasher) -> None:
    """What someone who can write the log but has no key does: edit one record's question, then recompute its
    hash and every later prev and hash, so each record matches its own hash and chains to the one before."""
    recs = _lines(db)
    recs[edit_at]["question"] = "what is fruit set? (asked by the orchard manager)"
    for i in range(edit_at, len(recs)):
        if i:
            recs[i]["prev"] = recs[i - 1]["hash"]
        recs[i]["hash"] = hasher(recs[i])
    audit.audit_path(db).write_text("".join(json.dumps(r) + "\n" for r in recs))


def _sha256(rec: dict) -> str:
    return "sha256:" + hashlib.sha256(audit._canonical(rec)).hexdigest()


def test_without_a_key_a_rechained_edit_verifies_and_verify_says_there_is_no_key(tmp_path, monkeypatch):
    db, ids = _log(tmp_path, monkeypatch, key=None)
    _rechain(db, 1, _sha256)
    r = cli("audit", "verify", "--db", str(db))
    assert r.returncode == 0 and "intact" in r.stdout
    assert "no audit key is set" in r.stdout  # the reader is told what an unkeyed chain cannot catch
    result = replay(db, ids[1], store=Store(db))
    assert result.verified and "no audit key is set" in result.verification


@pytest.mark.parametrize("hasher", [_sha256, lambda rec: audit.record_hash(rec, b"a-key-that-is-not-the-orchards")],
                         ids=["rehashed-without-key", "rehashed-with-another-key"])
def test_with_a_key_a_rechained_edit_is_found_at_the_edited_record(tmp_path, monkeypatch, hasher):
    db, ids = _log(tmp_path, monkeypatch, key=KEY)
    assert all(r["hash"].startswith("hmac-sha256:") for r in _lines(db))
    _rechain(db, 1, hasher)
    r = cli("audit", "verify", "--db", str(db))
    assert r.returncode == 1, r.stdout
    assert f"BROKEN at line 2 (record {ids[1]})" in r.stdout and "edited" in r.stdout
    assert "no audit key" not in r.stdout
    said = {i: replay(db, i, store=Store(db)) for i in ids}
    assert said[ids[0]].verified and said[ids[0]].verification == "verified"
    assert not said[ids[1]].verified and said[ids[1]].verification.startswith("FAILED verification: edited")
    assert not said[ids[2]].verified and not said[ids[3]].verified
    assert "did not pass audit log verification" in cli("audit", "replay", ids[1], "--db", str(db)).stdout


def test_an_unkeyed_record_after_keyed_ones_is_a_rewrite(tmp_path, monkeypatch):
    db, ids = _log(tmp_path, monkeypatch, key=KEY)
    recs = _lines(db)
    recs[3]["hash"] = _sha256(recs[3])  # the last record rewritten without the key; nothing after it to rechain
    audit.audit_path(db).write_text("".join(json.dumps(r) + "\n" for r in recs))
    r = cli("audit", "verify", "--db", str(db))
    assert r.returncode == 1 and "BROKEN at line 4" in r.stdout and "unkeyed after keyed ones" in r.stdout


def test_records_from_before_the_key_are_not_called_verified(tmp_path, monkeypatch):
    db, ids = _log(tmp_path, monkeypatch, key=None)
    monkeypatch.setenv("ASOF_AUDIT_KEY", KEY)
    q = Question(role=ROLE, text=QUESTIONS[0])
    later = audit.record(db, envelope=ask(Store(db), q), role=ROLE, principal=None, source="cli",
                         inputs=audit.inputs_of(q))
    r = cli("audit", "verify", "--db", str(db))
    assert r.returncode == 0 and "1 keyed with the audit key, 4 unkeyed" in r.stdout
    assert replay(db, later, store=Store(db)).verified
    old = replay(db, ids[0], store=Store(db))
    assert not old.verified and "written before the audit key was set" in old.verification
    # and a keyed log read without the key cannot be called intact
    monkeypatch.delenv("ASOF_AUDIT_KEY")
    r = cli("audit", "verify", "--db", str(db))
    assert r.returncode == 1 and "set ASOF_AUDIT_KEY" in r.stdout


def test_a_key_file_must_be_the_owners_alone(tmp_path, monkeypatch):
    db, _ = _log(tmp_path, monkeypatch, key=None)
    key_file = tmp_path / "audit.key"
    key_file.write_text(KEY + "\n")
    os.chmod(key_file, 0o644)
    monkeypatch.setenv("ASOF_AUDIT_KEY_FILE", str(key_file))
    r = cli("audit", "verify", "--db", str(db))
    assert r.returncode == 2 and "mode 0644" in r.stderr and f"chmod 600 {key_file}" in r.stderr
    before = audit.audit_path(db).read_bytes()
    r = cli("ask", "--db", str(db), "--role", ROLE, QUESTIONS[0])
    assert r.returncode == 2 and "mode 0644" in r.stderr and "Traceback" not in r.stderr
    assert audit.audit_path(db).read_bytes() == before  # nothing appended under a key others can read
    os.chmod(key_file, 0o600)
    assert cli("ask", "--db", str(db), "--role", ROLE, QUESTIONS[0]).returncode == 0
    assert _lines(db)[-1]["hash"] == audit.record_hash(_lines(db)[-1], KEY.encode())
    monkeypatch.setenv("ASOF_AUDIT_KEY", KEY)
    assert "set only one" in cli("audit", "verify", "--db", str(db)).stderr
    monkeypatch.delenv("ASOF_AUDIT_KEY_FILE")
    monkeypatch.setenv("ASOF_AUDIT_KEY", "short")
    assert "at least 16" in cli("audit", "verify", "--db", str(db)).stderr


def test_without_a_key_a_record_rehashed_in_place_is_not_called_verified(tmp_path, monkeypatch):
    """The record after it no longer chains to it: before, the edited record itself still replayed as verified."""
    db, ids = _log(tmp_path, monkeypatch, key=None)
    recs = _lines(db)
    recs[1]["question"] = "what is fruit set? (asked by the orchard manager)"
    recs[1]["hash"] = _sha256(recs[1])
    audit.audit_path(db).write_text("".join(json.dumps(r) + "\n" for r in recs))
    assert cli("audit", "verify", "--db", str(db)).returncode == 1
    assert replay(db, ids[0], store=Store(db)).verified
    edited = replay(db, ids[1], store=Store(db))
    assert not edited.verified and "may have been edited and rehashed" in edited.verification


def test_a_loose_key_file_is_said_by_the_app_and_stops_the_mcp_server(tmp_path, monkeypatch):
    from conftest import ROOT
    from streamlit.testing.v1 import AppTest
    db, _ = _log(tmp_path, monkeypatch, key=None)
    key_file = tmp_path / "audit.key"
    key_file.write_text(KEY)
    os.chmod(key_file, 0o640)
    monkeypatch.setenv("ASOF_AUDIT_KEY_FILE", str(key_file))
    monkeypatch.setenv("ASOF_DB", str(db))
    before = audit.audit_path(db).read_bytes()
    for page, role, link in (("app.py", ROLE, {"q": QUESTIONS[0]}), ("pages/5_Audit.py", "steward", {})):
        at = AppTest.from_file(str(ROOT / page), default_timeout=120)
        at.session_state["role"] = role
        for k, v in link.items():
            at.query_params[k] = v
        at.run()
        assert not at.exception, (page, [e.value for e in at.exception])
        assert any("mode 0640" in e.value and "chmod 600" in e.value for e in at.error), (page, at.error)
    assert audit.audit_path(db).read_bytes() == before
    r = cli("mcp", "--db", str(db), "--principal", "nobody")
    assert r.returncode == 2 and "mode 0640" in r.stderr


def test_a_process_without_the_key_never_appends_to_a_keyed_log(tmp_path, monkeypatch):
    """Issue 47 item 4: started without ASOF_AUDIT_KEY (or with another key), a process is refused with an error
    naming the key setting, before it answers; the log is left as it was and still verifies."""
    db, _ = _log(tmp_path, monkeypatch, key=KEY)
    before = audit.audit_path(db).read_bytes()
    q = Question(role=ROLE, text=QUESTIONS[0])
    for key in (None, "another-orchard-key-1a2b3c4d5e"):
        if key:
            monkeypatch.setenv("ASOF_AUDIT_KEY", key)
        else:
            monkeypatch.delenv("ASOF_AUDIT_KEY")
        with pytest.raises(AuditKeyError, match="ASOF_AUDIT_KEY"):
            audit.record(db, envelope=ask(Store(db), q), role=ROLE, principal=None, source="cli",
                         inputs=audit.inputs_of(q))
        with pytest.raises(AuditKeyError, match="ASOF_AUDIT_KEY"):
            audit.record_refusal(db, role=ROLE, principal=None, source="cli", inputs={}, message="no")
        r = cli("ask", "--db", str(db), "--role", ROLE, QUESTIONS[0])
        assert r.returncode == 2 and ("keyed audit log" in r.stderr or "another audit key" in r.stderr), r.stderr
        assert "Fruit set" not in r.stdout, "refused before answering"
        assert audit.audit_path(db).read_bytes() == before
    monkeypatch.setenv("ASOF_AUDIT_KEY", KEY)
    assert audit.verify(db).intact
    audit.record(db, envelope=ask(Store(db), q), role=ROLE, principal=None, source="cli", inputs=audit.inputs_of(q))
    check = audit.verify(db)
    assert check.intact and check.keyed == len(QUESTIONS) + 1
