"""A steward decides on review items (core/answer/decide.py): the decision is recorded, applied as a new catalog
revision, cited by answers, invisible "as recorded" before it, refused whole when it breaks a rule, and kept over
later ingests until the source says the same (carried) or contradicts it (back in the queue, both sides said).
Built on a library's catalog (tests/library_catalog.py), none of the demo's names."""
from __future__ import annotations

import shutil
import threading
from datetime import date, datetime

import pytest
import yaml
from conftest import cli
from library_catalog import AT, READER, RENEWALS, STEWARD, STEWARD_PRINCIPAL, VISITORS, write

from core.answer.ask import Question, ask
from core.answer.decide import Decider, Refused, Request, decide, read_queue
from core.catalog import history
from core.catalog.envelope import Behavior
from core.catalog.store import Store
from core.ingest.decision_file import decisions_path, read_records

NOW = datetime.fromisoformat(AT.replace("Z", "+00:00"))
STEWARD_ID = Decider(principal=STEWARD_PRINCIPAL, role=STEWARD, identity="command line")


@pytest.fixture(scope="module")
def ingested(tmp_path_factory):
    root = tmp_path_factory.mktemp("library")
    source = write(root / "catalog")
    db = root / "library.duckdb"
    r = cli("ingest", str(source), "--db", str(db))
    assert r.returncode == 0, r.stderr
    return root


@pytest.fixture
def lib(tmp_path, ingested):
    """A private copy: source folder, database and index."""
    shutil.copytree(ingested / "catalog", tmp_path / "catalog")
    shutil.copy(ingested / "library.duckdb", tmp_path / "library.duckdb")
    shutil.copytree(ingested / "library.lance", tmp_path / "library.lance")
    return tmp_path


def _item(db, category, entity=None):
    store = Store(db)
    try:
        q = read_queue(store)
        return next(i for i in q.open if i.item.category == category
                    and (entity is None or i.item.entity_id == entity)), q.revision
    finally:
        store.close()


def _decide(db, embedder, item, action, reason="Lending board minutes of 12 Feb", decider=STEWARD_ID, **kw):
    return decide(db, decider, Request(item=item, action=action, reason=reason, **kw), embedder)


def _ask(db, text, role=READER, recorded_at=None):
    store = Store(db)
    try:
        return ask(store, Question(role=role, text=text, at=NOW, recorded_at=recorded_at))
    finally:
        store.close()


def _close_renewals(db, embedder):
    item, rev = _item(db, "overlap", RENEWALS)
    d = _decide(db, embedder, item.id, "close_overlap", governs=f"{RENEWALS}.v2", from_day=date(2025, 6, 1),
                seen_revision=rev)
    return item, d


def test_closing_an_overlap_is_recorded_applied_and_cited(lib, embedder):
    db = lib / "library.duckdb"
    before = _ask(db, "What are loan renewals on 2025-07-01?")
    assert before.behavior is Behavior.human_review
    item, d = _close_renewals(db, embedder)
    # The record: who, how that identity was known, when, why, which item, what it changed, which revision it read.
    rec = yaml.safe_load_all(decisions_path(db).read_text())
    rec = next(r for r in rec if r.get("decision") == d.decision)
    assert rec["by"] == STEWARD_PRINCIPAL and rec["identity"] == "command line" and rec["item"] == item.id
    assert rec["reason"] == "Lending board minutes of 12 Feb" and rec["action"] == "close_overlap"
    assert rec["objects"] == {f"{RENEWALS}.v1": {"valid_through": "2025-05-31"}}
    assert rec["before"] == {f"{RENEWALS}.v1": {"valid_through": None}}
    assert rec["read_revision"] != rec["revision"]
    # The next question by any role answers under it, and cites it.
    after = _ask(db, "What are loan renewals on 2025-07-01?")
    assert after.behavior is Behavior.answer
    assert [s.evidence_id for s in after.selected if s.entity_id == RENEWALS] == [f"{RENEWALS}.v2"]
    assert f"v2 governs from 2025-06-01, by a steward decision of {d.day()}: Lending board minutes of 12 Feb" in after.notes
    assert _ask(db, "What were loan renewals on 2025-03-01?").selected[0].evidence_id == f"{RENEWALS}.v1"
    # "As recorded" a moment before the decision: the overlap, as it was, and no citation.
    store = Store(db)
    first = history.ingests(store)[0].ingested_at
    store.close()
    assert first < d.at
    then = _ask(db, "What are loan renewals on 2025-07-01?", recorded_at=first + (d.at - first) / 2)
    assert then.behavior is Behavior.human_review, (then.verdict, then.recorded)
    assert not any("steward decision" in n for n in then.notes)
    # The queue shows it closed with who and why, no longer open.
    store = Store(db)
    q = read_queue(store)
    store.close()
    assert item.id not in {i.id for i in q.open}
    closed = next(i for i in q.closed if i.id == item.id)
    assert closed.decision.by == STEWARD_PRINCIPAL and closed.decision.reason == "Lending board minutes of 12 Feb"


def test_refusals_change_nothing(lib, embedder):
    db = lib / "library.duckdb"
    item, rev = _item(db, "overlap", RENEWALS)
    ok = dict(governs=f"{RENEWALS}.v2", from_day=date(2025, 6, 1), seen_revision=rev)
    bytes_before = db.read_bytes()
    cases = [
        (dict(decider=Decider(principal="olaf", role=READER, identity="command line")), "not a steward"),
        (dict(decider=Decider(principal="olaf", role=STEWARD, identity="command line")), "does not hold role"),
        (dict(decider=Decider(role=READER, identity="demo picker")), "not a steward"),
        (dict(reason="   "), "a reason is required"),
        (dict(reason="x" * 5000), "at most 2000"),
        (dict(action="set_owner", owner="Ops\n- evidence_id: forged"), "one line"),
        (dict(action="approve"), "does not offer 'approve'"),
        (dict(seen_revision="0123456789abcdef"), "stale"),
        (dict(governs=f"{RENEWALS}.v1"), "cannot end on 2025-05-31"),
    ]
    for change, words in cases:
        args = {"action": "close_overlap", **ok, **change}
        with pytest.raises(Refused, match=words):
            _decide(db, embedder, item.id, **args)
    assert db.read_bytes() == bytes_before and not decisions_path(db).exists()


def test_a_new_overlap_or_a_gap_is_refused_naming_the_days(lib, embedder):
    db = lib / "library.duckdb"
    draft, _ = _item(db, "draft_conflict", VISITORS)
    assert "approve" in draft.actions
    # Approved from 1 March 2025, the draft (open-ended) would overlap v2 from v2's first day on.
    with pytest.raises(Refused, match=r"new overlap: .*v2 \(metric.visitor_count.v2\) would both be in effect from "
                                      r"2025-06-01 onward"):
        _decide(db, embedder, draft.id, "approve", from_day=date(2025, 3, 1))
    fines, _ = _item(db, "draft_conflict", "metric.fines_collected")
    # The fines draft ends on 30 June 2026: approving it would leave no version in effect after it.
    with pytest.raises(Refused, match="a gap: no version would be in effect from 2026-07-01 onward"):
        _decide(db, embedder, fines.id, "approve", from_day=date(2026, 1, 1))
    assert not decisions_path(db).exists()


def test_a_second_steward_is_told_it_was_decided(lib, embedder):
    db = lib / "library.duckdb"
    item, rev = _item(db, "overlap", RENEWALS)
    _decide(db, embedder, item.id, "close_overlap", governs=f"{RENEWALS}.v2", from_day=date(2025, 6, 1),
            seen_revision=rev)
    other = Decider(principal="tove", role=STEWARD, identity="command line")
    with pytest.raises(Refused, match=f"already decided by {STEWARD_PRINCIPAL} .*Lending board minutes"):
        _decide(db, embedder, item.id, "retire", object=f"{RENEWALS}.v1", seen_revision=rev, decider=other)
    # Any other item read at the old revision is stale now.
    note, _ = _item(db, "untrusted_instructions")
    with pytest.raises(Refused, match="stale"):
        _decide(db, embedder, note.id, "retire", seen_revision=rev, decider=other)
    assert len(read_records(db).decisions) == 1


def test_each_kind_of_item_is_decided(lib, embedder):
    db = lib / "library.duckdb"
    for category, action, kw in (("untrusted_instructions", "retire", {}),
                                 ("superseded_surfaced", "expire", {"from_day": date(2026, 3, 1)}),
                                 ("empty_acl", "set_roles", {"roles": [READER]}),
                                 ("draft_conflict", "withdraw", {})):
        item, rev = _item(db, category, VISITORS if category == "draft_conflict" else None)
        _decide(db, embedder, item.id, action, seen_revision=rev, **kw)
        store = Store(db)
        assert item.id not in {i.id for i in read_queue(store).open}, category
        store.close()
    # The page nobody could see is the reader's now.
    assert "Closed stacks map" in _ask(db, "What does the closed stacks map say?").verdict


def test_a_decision_is_reversed_by_another(lib, embedder):
    db = lib / "library.duckdb"
    item, d = _close_renewals(db, embedder)
    _decide(db, embedder, item.id, "reverse", reason="Board reopened the question")
    assert _ask(db, "What are loan renewals on 2025-07-01?").behavior is Behavior.human_review
    store = Store(db)
    assert item.id in {i.id for i in read_queue(store).open}
    store.close()
    records = read_records(db)
    assert [x.action for x in records.decisions] == ["close_overlap", "reverse"]  # never deleted


def _set_through(folder, evidence_id, value):
    path = folder / "10_metrics.yaml"
    data = yaml.safe_load(path.read_text())
    for e in data["evidence"]:
        if e["evidence_id"] == evidence_id:
            e["valid_through"] = value
    path.write_text(yaml.safe_dump(data, sort_keys=False))


def test_later_ingests_keep_carry_or_reopen_the_decision(lib, embedder):
    db, source = lib / "library.duckdb", lib / "catalog"
    item, d = _close_renewals(db, embedder)
    # The source unchanged: the decision stays in force.
    assert cli("ingest", str(source), "--db", str(db)).returncode == 0
    assert _ask(db, "What are loan renewals on 2025-07-01?").behavior is Behavior.answer
    # The source now says the same: carried.
    _set_through(source, f"{RENEWALS}.v1", "2025-05-31")
    r = cli("ingest", str(source), "--db", str(db))
    assert r.returncode == 0 and "carried" in r.stderr
    store = Store(db)
    closed = next(i for i in read_queue(store).closed if i.id == item.id)
    store.close()
    assert closed.status == "carried into the source"
    # The source contradicts it: back in the queue with both sides, and no longer applied or cited.
    _set_through(source, f"{RENEWALS}.v1", "2025-03-31")
    r = cli("ingest", str(source), "--db", str(db))
    assert r.returncode == 0 and "contradicts steward decision" in r.stderr
    store = Store(db)
    q = read_queue(store)
    store.close()
    back = next(i for i in q.open if i.item.category == "decision_contradicted")
    assert "2025-05-31" in back.item.detail and "2025-03-31" in back.item.detail
    assert back.decision.decision == d.decision and item.id not in {i.id for i in q.closed}
    env = _ask(db, "What were loan renewals on 2025-04-15?")
    assert f"{RENEWALS}.v1" not in [s.evidence_id for s in env.selected]  # the source's statement stands
    assert not any("steward decision" in n for n in env.notes)
    # Keeping the decision applies it over the source again, and closes the item the source reopened.
    _decide(db, embedder, back.id, "reapply", reason="The board's date stands")
    env = _ask(db, "What were loan renewals on 2025-05-15?")
    assert [s.evidence_id for s in env.selected][:1] == [f"{RENEWALS}.v1"]
    store = Store(db)
    assert back.id not in {i.id for i in read_queue(store).open}
    store.close()


def test_approving_a_draft_and_setting_an_owner(lib, embedder):
    db = lib / "library.duckdb"
    draft, rev = _item(db, "draft_conflict", VISITORS)
    d = _decide(db, embedder, draft.id, "approve", from_day=date(2025, 9, 1), seen_revision=rev)
    assert d.objects == {"draft.visitor_count.sensors": {"lifecycle": "current", "authority": "authoritative",
                                                          "valid_from": "2025-09-01"},
                         f"{VISITORS}.v2": {"valid_through": "2025-08-31"}}
    env = _ask(db, "What is visitor count on 2025-10-01?")
    assert [s.evidence_id for s in env.selected][:1] == ["draft.visitor_count.sensors"]
    assert any("governs from 2025-09-01, by a steward decision of" in n for n in env.notes)
    assert _ask(db, "What is visitor count on 2025-08-01?").selected[0].evidence_id == f"{VISITORS}.v2"
    note, _ = _item(db, "untrusted_instructions")
    with pytest.raises(Refused, match="set_owner needs owner"):
        _decide(db, embedder, note.id, "set_owner")
    _decide(db, embedder, note.id, "set_owner", owner="Reference Desk (Aada Nieminen)")
    store = Store(db)
    assert next(e for e in store.all_evidence_for_review()
                if e.evidence_id == "note.circulation.chat").owner == "Reference Desk (Aada Nieminen)"
    q = read_queue(store)
    store.close()
    assert note.id in {i.id for i in q.open}  # an owner leaves the problem open
    assert any(i.status == "owner set" for i in q.closed)


def test_two_stewards_at_once_one_decides_the_other_is_told(lib, embedder):
    db = lib / "library.duckdb"
    item, rev = _item(db, "overlap", RENEWALS)
    outcomes: list = []

    def steward(name):
        who = Decider(principal=name, role=STEWARD, identity="command line")
        try:
            outcomes.append(_decide(db, embedder, item.id, "close_overlap", governs=f"{RENEWALS}.v2",
                                    from_day=date(2025, 6, 1), seen_revision=rev, decider=who).by)
        except Refused as exc:
            outcomes.append(str(exc))

    threads = [threading.Thread(target=steward, args=(n,)) for n in (STEWARD_PRINCIPAL, "tove")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    winners = [o for o in outcomes if o in (STEWARD_PRINCIPAL, "tove")]
    assert len(winners) == 1 and len(read_records(db).decisions) == 1
    told = next(o for o in outcomes if o not in winners)
    assert f"already decided by {winners[0]}" in told


def test_accepting_the_source_settles_the_item_and_is_not_checked_again(lib, embedder):
    db, source = lib / "library.duckdb", lib / "catalog"
    _close_renewals(db, embedder)
    _set_through(source, f"{RENEWALS}.v1", "2025-03-31")
    assert cli("ingest", str(source), "--db", str(db)).returncode == 0
    store = Store(db)
    back = next(i for i in read_queue(store).open if i.item.category == "decision_contradicted")
    store.close()
    _decide(db, embedder, back.id, "accept_source", reason="The source's March date is right")
    r = cli("ingest", str(source), "--db", str(db))
    assert r.returncode == 0 and "steward decision" not in r.stderr  # nothing carried, nothing contradicted
    store = Store(db)
    q = read_queue(store)
    store.close()
    assert not [i for i in q.open if i.item.category == "decision_contradicted"]
    assert back.id in {i.id for i in q.closed}


def test_an_ingest_refused_after_reading_its_source_reopens_nothing(lib, embedder):
    db, source = lib / "library.duckdb", lib / "catalog"
    _close_renewals(db, embedder)
    # Every object gone from the files: the decision's objects read as missing, and the ingest is refused.
    path = source / "10_metrics.yaml"
    path.write_text(yaml.safe_dump({"evidence": [{
        "evidence_id": "doc.opening_hours", "entity_id": "doc.opening_hours", "kind": "documentation",
        "title": "Opening hours", "authority": "non_authoritative", "lifecycle": "current", "acl": [READER],
        "text": "Open 9 to 8."}]}))
    r = cli("ingest", str(source), "--db", str(db))
    assert r.returncode == 2 and "would remove all" in r.stderr
    store = Store(db)
    q = read_queue(store)
    store.close()
    assert not [i for i in q.open if i.item.category == "decision_contradicted"]
    assert _ask(db, "What are loan renewals on 2025-07-01?").behavior is Behavior.answer
