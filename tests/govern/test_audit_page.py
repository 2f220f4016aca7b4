"""The Audit page lists a steward decision and replays it against the catalog's history (AppTest, no browser)."""
from __future__ import annotations

import os
from datetime import date

from conftest import cli
from library_catalog import RENEWALS, STEWARD, write
from streamlit.testing.v1 import AppTest

from core.answer.decide import Decider, Request, decide, read_queue
from core.catalog.store import Store
from core.serve.decision_audit import record_decision


def test_the_audit_page_replays_a_decision(tmp_path, embedder, monkeypatch):
    source = write(tmp_path / "catalog")
    db = tmp_path / "library.duckdb"
    assert cli("ingest", str(source), "--db", str(db)).returncode == 0
    store = Store(db)
    item = next(i for i in read_queue(store).open if i.item.category == "overlap" and i.item.entity_id == RENEWALS)
    store.close()
    who = Decider(role=STEWARD, identity="demo picker")
    req = Request(item=item.id, action="close_overlap", governs=f"{RENEWALS}.v2", from_day=date(2025, 6, 1),
                  reason="Lending board")
    record_decision(db, decide(db, who, req, embedder), req, who, "app")
    monkeypatch.setitem(os.environ, "ASOF_DB", str(db))
    from conftest import ROOT
    at = AppTest.from_file(str(ROOT / "pages" / "5_Audit.py"), default_timeout=120)
    at.session_state["role"] = STEWARD
    at.run()
    assert not at.exception, at.exception
    at.button(key="audit_replay_decision").click().run()
    assert not at.exception, at.exception
    assert any("Reproduced" in s.value for s in at.success), [e.value for e in at.error]
    assert "v2 governs from 2025-06-01" in at.code[0].value
