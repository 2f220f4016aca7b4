"""Transaction time: every ingest keeps what it replaced, and `ask --recorded-at` answers from the catalog as it
stood then, with today's permissions."""
import json
import shutil
from datetime import timedelta

import duckdb
import pytest
from conftest import DEMO, DEMO_AT, cli

from core.answer.ask import Question, ask
from core.catalog import history
from core.catalog.access import visible
from core.catalog.store import Store, write_catalog
from core.explain.render import render_text
from core.ingest.load import load_catalog
from core.read.dates.recorded import recorded_in_text

QUESTION = "What is net revenue on 2025-03-31, and is its data fresh?"
V1_FORMULA = "SUM(captured_payment_usd) - SUM(refund_amount_usd) - SUM(chargeback_amount_usd)"
V2_FORMULA = V1_FORMULA + " - SUM(fx_fee_usd)"
V2_ID = "metric.net_revenue.v2"


def edit(path, old, new):
    text = path.read_text()
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, 1))


@pytest.fixture(scope="module")
def three_ingests(tmp_path_factory):
    """Ingest 1: the demo. Ingest 2: net revenue v2 gets a new formula and text, and a later load of
    raw_shop.orders is recorded. Ingest 3: marketing loses access to net revenue v2."""
    tmp = tmp_path_factory.mktemp("history")
    src = tmp / "catalog"
    shutil.copytree(DEMO, src)
    db = tmp / "catalog.duckdb"
    write_catalog(load_catalog(src), db)
    edit(src / "10_metrics.yaml", "SUM(chargeback_amount_usd)\n", "SUM(chargeback_amount_usd) - SUM(fx_fee_usd)\n")
    edit(src / "10_metrics.yaml", "we keep after refunds and chargebacks.", "we keep after refunds, chargebacks and FX fees.")
    edit(src / "30_sources.yaml", 'loaded_at: "2026-11-29T07:00:00Z"', 'loaded_at: "2026-11-29T11:00:00Z"')
    write_catalog(load_catalog(src), db)
    edit(src / "10_metrics.yaml", "valid_from: 2025-01-01\n    acl: [analyst, finance, marketing]",
         "valid_from: 2025-01-01\n    acl: [analyst, finance]")
    write_catalog(load_catalog(src), db)
    store = Store(db)
    yield db, store, history.ingests(store)
    store.close()


def formulas(env):
    return [s.metric.formula for s in env.selected if s.metric]


def test_every_revision_is_kept_with_the_ingests_that_introduced_and_replaced_it(three_ingests):
    db, store, ingests = three_ingests
    assert [i.number for i in ingests] == [1, 2, 3]
    assert len({i.revision for i in ingests}) == 3
    rows = store.con.execute("SELECT recorded_from, recorded_to, acl FROM evidence_history WHERE evidence_id = ? "
                             "ORDER BY recorded_from", [V2_ID]).fetchall()
    assert rows == [(1, 2, ["analyst", "finance", "marketing"]), (2, 3, ["analyst", "finance", "marketing"]),
                    (3, None, ["analyst", "finance"])]
    # Untouched objects keep one open revision from the first ingest.
    assert store.con.execute("SELECT recorded_from, recorded_to FROM evidence_history WHERE evidence_id = "
                             "'metric.net_revenue.v1'").fetchall() == [(1, None)]
    r = cli("history", "--db", str(db))
    assert r.returncode == 0 and "ingest 3" in r.stdout and "(current)" in r.stdout


@pytest.mark.parametrize("n,formula", [(1, V1_FORMULA), (2, V2_FORMULA), (3, V2_FORMULA)])
def test_recorded_at_each_ingest_time_returns_that_states_answer(three_ingests, n, formula):
    db, store, ingests = three_ingests
    at = ingests[n - 1]
    r = cli("ask", "--db", str(db), "--role", "analyst", "--recorded-at", at.ingested_at.isoformat(),
            "--at", DEMO_AT.isoformat(), "--json", QUESTION)
    assert r.returncode == 0, r.stderr
    env = json.loads(r.stdout)
    assert env["behavior"] == "answer"
    assert [s["metric"]["formula"] for s in env["selected"] if s.get("metric")] == [formula]
    state = env["recorded"]
    assert state["ingest"] == n and state["revision"] == env["catalog_revision"] and state["catalog_only"]
    # Revisions are the role's own: marketing losing access (ingest 3) changes nothing analyst sees.
    assert state["current_revision"] == visible(store, "analyst").revision
    assert (state["revision"] == state["current_revision"]) == (n > 1)
    assert env["reporting_date"] == "2025-03-31" and env["index"] is None
    # The freshness observation known then: the 07:00 load before ingest 2, the 11:00 one after.
    orders = next(f for f in env["freshness"] if f["source"] == "source.raw_shop.orders")
    assert orders["loaded_at"].startswith("2026-11-29T07:00" if n == 1 else "2026-11-29T11:00")


def test_just_before_an_ingest_is_the_previous_state(three_ingests):
    _, store, ingests = three_ingests
    env = ask(store, Question(role="analyst", text=QUESTION, at=DEMO_AT,
                              recorded_at=ingests[1].ingested_at - timedelta(microseconds=1)))
    assert formulas(env) == [V1_FORMULA] and env.recorded.ingest == 1
    before = ask(store, Question(role="analyst", text=QUESTION, at=DEMO_AT,
                                 recorded_at=ingests[0].ingested_at - timedelta(seconds=1)))
    assert before.behavior.value == "not_found_or_not_authorized" and "history starts" in before.verdict


def test_as_recorded_in_the_question_text(three_ingests):
    _, store, ingests = three_ingests
    day = ingests[0].ingested_at.date()
    for phrase in (f"as recorded on {day}", f"as we knew it on {day}"):
        env = ask(store, Question(role="analyst", text=f"What was net revenue on 2025-03-31, {phrase}?", at=DEMO_AT))
        # End of that day: the last ingest of the day answers, and the phrase's date is not the reporting date.
        assert env.recorded.recorded_at.date() == day and env.recorded.ingest == 3
        assert env.reporting_date.isoformat() == "2025-03-31" and env.behavior.value == "answer"
        assert "as recorded at" in render_text(env)


def test_current_answer_is_unchanged_and_states_its_revision(three_ingests):
    _, store, ingests = three_ingests
    env = ask(store, Question(role="analyst", text=QUESTION, at=DEMO_AT))
    assert formulas(env) == [V2_FORMULA]
    assert env.recorded.recorded_at is None and env.recorded.ingest == 3 and not env.recorded.catalog_only
    assert env.recorded.revision == env.recorded.current_revision == env.catalog_revision


def test_a_role_that_lost_access_sees_nothing_at_any_recorded_time(three_ingests):
    db, store, ingests = three_ingests
    texts = [r[0] for r in store.con.execute("SELECT json_extract_string(doc, '$.text') FROM evidence_history "
                                             "WHERE evidence_id = ?", [V2_ID]).fetchall()]
    for at in ingests:
        env = ask(store, Question(role="marketing", text=QUESTION, at=DEMO_AT, recorded_at=at.ingested_at))
        out = env.model_dump_json() + render_text(env)
        assert V2_ID not in out and "fx_fee" not in out and "chargeback_amount_usd" not in out
        assert all(t[:60] not in out for t in texts)
        assert env.behavior.value != "answer"
        # Everything it shows, it may see today.
        assert not store.hidden_ids("marketing", env.evidence_ids())


def test_a_failed_ingest_leaves_the_database_and_its_history_untouched(three_ingests, tmp_path, monkeypatch):
    db, _, ingests = three_ingests
    copy = tmp_path / "copy.duckdb"
    shutil.copy(db, copy)
    before = copy.read_bytes()
    import core.catalog.store as store_mod

    def boom(*a, **k):
        raise RuntimeError("disk full")
    monkeypatch.setattr(store_mod, "_record_ingest", boom)
    with pytest.raises(RuntimeError):
        write_catalog(load_catalog(DEMO), copy)
    assert copy.read_bytes() == before
    assert not list(tmp_path.glob(".copy.duckdb.tmp-*"))


def test_an_older_database_without_history_becomes_ingest_one(tmp_path):
    db = tmp_path / "old.duckdb"
    write_catalog(load_catalog(DEMO), db)
    con = duckdb.connect(str(db))
    con.execute("DROP TABLE ingests")
    con.execute("DROP TABLE evidence_history")
    con.close()
    write_catalog(load_catalog(DEMO), db)
    store = Store(db)
    try:
        assert [i.number for i in history.ingests(store)] == [1, 2]
        assert store.con.execute("SELECT count(*) FROM evidence_history WHERE recorded_to IS NOT NULL").fetchone()[0] == 0
    finally:
        store.close()


@pytest.mark.parametrize("text,recorded,rest", [
    ("What was net revenue on 2025-03-31, as recorded on 2025-04-30?", "2025-04-30T23:59:59.999999+00:00",
     "What was net revenue on 2025-03-31?"),
    ("As we knew it on April 30, 2025, what did churn mean in Q1 2025?", "2025-04-30T23:59:59.999999+00:00",
     "what did churn mean in Q1 2025?"),
    ("Net revenue as recorded at 2026-11-29T10:00:00Z for 2025-03-31", "2026-11-29T10:00:00+00:00",
     "Net revenue for 2025-03-31"),
    ("What was net revenue as of 2025-03-31?", None, "What was net revenue as of 2025-03-31?"),
    ("Which revenue is recorded on 2025-03-31?", None, "Which revenue is recorded on 2025-03-31?"),
])
def test_recorded_phrase_is_a_transaction_time_not_a_reporting_date(text, recorded, rest):
    at, left = recorded_in_text(text)
    assert (at.isoformat() if at else None, left) == (recorded, rest)


def test_an_as_recorded_explanation_cites_what_was_removed_since(tmp_path):
    db = tmp_path / "removed.duckdb"
    catalog = load_catalog(DEMO)
    write_catalog(catalog, db)
    draft = "draft.net_revenue.2025-02"
    write_catalog(catalog.model_copy(update={"evidence": [e for e in catalog.evidence if e.evidence_id != draft]}), db)
    store = Store(db)
    first = history.ingests(store)[0].ingested_at.isoformat()
    store.close()
    r = cli("ask", "--db", str(db), "--role", "analyst", "--recorded-at", first, "--at", DEMO_AT.isoformat(),
            "--explain", "--json", "What is net revenue on 2025-03-31?")
    env = json.loads(r.stdout)
    assert draft in {c["evidence_id"] for c in env["conflicts"]}
    # Checked against the state that answered, so the citation of the since-removed draft stands.
    assert env["explanation"]["validation"]["passed"] and draft in env["explanation"]["citations"]
    today = json.loads(cli("ask", "--db", str(db), "--role", "analyst", "--at", DEMO_AT.isoformat(), "--json",
                           "What is net revenue on 2025-03-31?").stdout)
    assert draft not in {c["evidence_id"] for c in today["conflicts"]}
