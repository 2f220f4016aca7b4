"""As-recorded answers read the catalog's history in place: a past state is views over the file with today's
permissions, never a copy rebuilt in memory. A catalog of its own (a sales pipeline), re-ingested with a changed
definition, a removed page and a narrowed ACL, answers every role from the past content with today's ACL."""
import copy
import json
from datetime import datetime, timezone

import duckdb
import pytest

from core.answer.ask import Question, ask
from core.catalog import history
from core.catalog.access import visible
from core.catalog.store import Store, write_catalog
from core.explain.render import render_text
from core.ingest.load import load_catalog

AT = datetime(2026, 3, 2, 9, tzinfo=timezone.utc)
ROLES = ["revops", "sales", "board"]
OLD_FORMULA = "SUM(closed_won_amount_eur)"
NEW_FORMULA = "SUM(closed_won_amount_eur) - SUM(clawback_eur)"
QUESTIONS = ["What does booked pipeline mean on 2025-06-30?", "Is raw_crm.opportunities fresh?",
             "What does forecast accuracy mean on 2025-06-30?", "Which model backs booked pipeline for 2025-06-30?"]


def _ev(evidence_id, entity_id, kind, title, acl, **kw):
    return {"evidence_id": evidence_id, "entity_id": entity_id, "kind": kind, "title": title,
            "authority": kw.pop("authority", "authoritative"), "lifecycle": kw.pop("lifecycle", "current"),
            "acl": acl, **kw}


FIRST = {"roles": ROLES, "evidence": [
    _ev("source.raw_crm.opportunities", "source.raw_crm.opportunities", "source", "raw_crm.opportunities",
        ["revops", "sales", "board"], text="Opportunities exported nightly from the CRM."),
    _ev("freshness.raw_crm.opportunities", "source.raw_crm.opportunities", "freshness_policy",
        "Freshness of raw_crm.opportunities", ["revops", "sales", "board"],
        freshness={"warn_after_hours": 12, "error_after_hours": 48, "loaded_at": "2026-03-02T01:00:00Z"}),
    _ev("model.fct_pipeline.v1", "model.fct_pipeline", "model", "fct_pipeline v1", ["revops", "sales", "board"],
        version="1", valid_from="2024-01-01", model={"grain": "one row per opportunity"},
        text="One row per opportunity with its stage and amount."),
    _ev("metric.booked_pipeline.v1", "metric.booked_pipeline", "metric_definition", "Booked pipeline v1",
        ["revops", "sales", "board"], version="1", valid_from="2024-01-01", aliases=["bookings pipeline"],
        links={"implemented_by": ["model.fct_pipeline.v1"]},
        metric={"formula": OLD_FORMULA, "grain": "one row per opportunity", "unit": "EUR"},
        text="Booked pipeline is the value of opportunities closed won in the period."),
    _ev("lineage.booked_pipeline.v1", "lineage.booked_pipeline", "lineage", "Lineage of booked pipeline",
        ["revops", "sales", "board"], version="1", valid_from="2024-01-01",
        edges=[["source.raw_crm.opportunities", "model.fct_pipeline.v1"],
               ["model.fct_pipeline.v1", "metric.booked_pipeline.v1"]]),
    _ev("metric.forecast_accuracy.v1", "metric.forecast_accuracy", "metric_definition", "Forecast accuracy v1",
        ["revops", "sales", "board"], version="1", valid_from="2024-01-01",
        metric={"formula": "1 - ABS(forecast_eur - booked_eur) / booked_eur", "grain": "one row per quarter"},
        text="Forecast accuracy compares the quarter's forecast with what was booked."),
    _ev("draft.booked_pipeline.clawbacks", "metric.booked_pipeline", "documentation",
        "Draft: booked pipeline net of clawbacks", ["revops", "sales"], authority="non_authoritative",
        lifecycle="draft", valid_from="2025-01-01", text="DRAFT. Booked pipeline should subtract clawbacks."),
]}


def second(first: dict) -> dict:
    """The next ingest: booked pipeline gets a new formula, the draft is removed, forecast accuracy becomes the
    board's alone."""
    cat = copy.deepcopy(first)
    by_id = {e["evidence_id"]: e for e in cat["evidence"]}
    by_id["metric.booked_pipeline.v1"]["metric"]["formula"] = NEW_FORMULA
    by_id["metric.booked_pipeline.v1"]["text"] = "Booked pipeline is closed-won value net of clawbacks."
    by_id["metric.forecast_accuracy.v1"]["acl"] = ["board"]
    cat["evidence"] = [e for e in cat["evidence"] if e["evidence_id"] != "draft.booked_pipeline.clawbacks"]
    return cat


def _write(tmp_path, name: str, *catalogs: dict):
    db = tmp_path / f"{name}.duckdb"
    for i, cat in enumerate(catalogs):
        src = tmp_path / f"{name}-{i}.json"
        src.write_text(json.dumps(cat))
        write_catalog(load_catalog(src), db)
    return db


def today_acl_on_past_content(first: dict, now: dict) -> dict:
    """The oracle, built without the history: the first ingest's content with each object's ACL of today (an
    object removed since keeps the ACL it last had)."""
    acl = {e["evidence_id"]: e["acl"] for e in now["evidence"]}
    cat = copy.deepcopy(first)
    for e in cat["evidence"]:
        e["acl"] = acl.get(e["evidence_id"], e["acl"])
    return cat


@pytest.fixture(scope="module")
def pipeline(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("past-views")
    db = _write(tmp, "pipeline", FIRST, second(FIRST))
    oracle = _write(tmp, "oracle", today_acl_on_past_content(FIRST, second(FIRST)))
    store, reference = Store(db), Store(oracle)
    yield store, reference
    store.close()
    reference.close()


def _comparable(env) -> dict:
    return env.model_dump(mode="json", exclude={"recorded"})


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("question", QUESTIONS)
def test_as_recorded_answer_is_the_past_content_with_todays_acl(pipeline, role, question):
    store, reference = pipeline
    first = history.ingests(store)[0].ingested_at
    then = ask(store, Question(role=role, text=question, at=AT, recorded_at=first))
    assert then.recorded.ingest == 1 and then.recorded.catalog_only
    expected = ask(reference, Question(role=role, text=question, at=AT))
    assert _comparable(then) == _comparable(expected)


@pytest.mark.parametrize("role", ROLES)
def test_every_role_sees_the_past_formula_and_nothing_it_may_not_see_now(pipeline, role):
    store, _ = pipeline
    first = history.ingests(store)[0].ingested_at
    env = ask(store, Question(role=role, text=QUESTIONS[0], at=AT, recorded_at=first))
    assert [s.metric.formula for s in env.selected if s.metric] == [OLD_FORMULA]
    today = ask(store, Question(role=role, text=QUESTIONS[0], at=AT))
    assert [s.metric.formula for s in today.selected if s.metric] == [NEW_FORMULA]
    # The draft removed since is part of the past, for the roles its last ACL names.
    conflicts = {c.evidence_id for c in env.conflicts}
    assert ("draft.booked_pipeline.clawbacks" in conflicts) == (role in ("revops", "sales"))
    assert "draft.booked_pipeline.clawbacks" not in {c.evidence_id for c in today.conflicts}
    # Forecast accuracy is the board's alone today: in no past state does another role learn of it.
    accuracy = ask(store, Question(role=role, text=QUESTIONS[2], at=AT, recorded_at=first))
    out = accuracy.model_dump_json() + render_text(accuracy)
    past = visible(history.past_store(store, 1), role)
    if role == "board":
        assert accuracy.behavior.value == "answer" and "forecast_eur" in out
    else:
        assert "forecast_accuracy" not in out and "forecast_eur" not in out and "Forecast accuracy" not in out
        assert not past.by_ids(["metric.forecast_accuracy.v1", "metric.forecast_accuracy"])
    # Every object the past state shows the role, the role may see today (or it was removed, with its last ACL).
    shown = {e.evidence_id for e in past.all()}
    assert not store.hidden_ids(role, shown)
    assert all(role in e.acl for e in past.all())


def test_a_replay_keeps_the_permissions_recorded_with_the_answer(pipeline):
    store, _ = pipeline
    # An answer given at ingest 1 is replayed with ingest 1's permissions; a question today gets today's.
    then_acl = visible(history.past_store(store, 1, acl_ingest=1), "sales")
    today_acl = visible(history.past_store(store, 1), "sales")
    assert [e.evidence_id for e in then_acl.by_ids(["metric.forecast_accuracy.v1"])] == ["metric.forecast_accuracy.v1"]
    assert today_acl.by_ids(["metric.forecast_accuracy.v1"]) == []
    edges = {up for (up, *_) in today_acl.upstream(["metric.booked_pipeline.v1"], None)}
    assert edges == {"model.fct_pipeline.v1", "source.raw_crm.opportunities"}


def test_a_past_state_is_views_over_the_file_not_a_copy(pipeline):
    store, _ = pipeline
    past = history.past_store(store, 1)
    kinds = dict(past.con.execute(
        "SELECT table_name, table_type FROM information_schema.tables "
        "WHERE table_catalog = current_database() AND table_schema = current_schema()").fetchall())
    for table in ("evidence", "acl", "aliases", "links", "lineage_edges", "freshness", "entities", "meta", "roles",
                  "principals"):
        assert kinds.get(table) == "VIEW", (table, kinds.get(table))
    # What a past state copies is what changed since it: the three revisions replaced after ingest 1 (booked
    # pipeline's formula, forecast accuracy's ACL, the removed draft), never the catalog.
    copied = {t: past.con.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for (t,) in past.con.execute(
        "SELECT table_name FROM information_schema.tables WHERE table_catalog = 'memory' "
        "AND table_schema = current_schema() AND table_type = 'BASE TABLE'").fetchall()}
    assert copied == {"changed_since": 2, "evidence_then": 3, "aliases_then": 1, "links_then": 1,
                      "lineage_edges_then": 0, "freshness_then": 0}
    assert past.con.execute("SELECT count(*) FROM evidence").fetchone()[0] == len(FIRST["evidence"])
    assert past.meta()["ingest"] == "1" and past.revision == history.ingests(store)[0].revision


def test_a_past_state_reads_the_file_its_store_opened(tmp_path):
    db = _write(tmp_path, "moving", FIRST, second(FIRST))
    store = Store(db)
    try:
        third = second(FIRST)
        next(e for e in third["evidence"] if e["evidence_id"] == "metric.forecast_accuracy.v1")["acl"] = ROLES
        src = tmp_path / "moving-2.json"
        src.write_text(json.dumps(third))
        write_catalog(load_catalog(src), db)  # ingest 3 renames a new file over the one the store holds open
        past = visible(history.past_store(store, 1), "sales")
        assert past.by_ids(["metric.forecast_accuracy.v1"]) == []  # ingest 2's permissions, as the store's
    finally:
        store.close()
    reopened = Store(db)
    try:
        assert visible(history.past_store(reopened, 1), "sales").by_ids(["metric.forecast_accuracy.v1"])
    finally:
        reopened.close()


def _history_rows(db) -> dict[str, list]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        tables = ["evidence_history", "aliases_history", "links_history", "lineage_edges_history", "freshness_history",
                  "latest_acl"]
        return {t: sorted(map(repr, con.execute(f"SELECT * EXCLUDE (doc) FROM {t}" if t == "evidence_history"
                                                 else f"SELECT * FROM {t}").fetchall())) for t in tables}
    finally:
        con.close()


def test_a_schema_5_file_is_converted_once_by_the_next_ingest(tmp_path):
    """A file written before the derived history rows (schema 5) keeps its history: the next ingest derives
    the rows of every recorded revision, the same rows an ingest of schema 6 writes."""
    old = _write(tmp_path, "old", FIRST)
    con = duckdb.connect(str(old))
    for table in ("aliases_history", "links_history", "lineage_edges_history", "freshness_history", "latest_acl"):
        con.execute(f"DROP TABLE {table}")
    for column in ("entity_id", "kind", "title", "text", "version", "authority", "lifecycle", "authority_class",
                   "valid_from", "valid_to", "recorded_at", "expires_at", "owner"):
        con.execute(f"ALTER TABLE evidence_history DROP COLUMN {column}")
    con.execute("UPDATE meta SET value = '5' WHERE key = 'schema_version'")
    con.close()
    with pytest.raises(FileNotFoundError, match="schema 5"):
        Store(old)
    src = tmp_path / "old-next.json"
    src.write_text(json.dumps(second(FIRST)))
    write_catalog(load_catalog(src), old)
    fresh = _write(tmp_path, "fresh", FIRST, second(FIRST))
    assert _history_rows(old) == _history_rows(fresh)
    store = Store(old)
    try:
        env = ask(store, Question(role="sales", text=QUESTIONS[0], at=AT,
                                  recorded_at=history.ingests(store)[0].ingested_at))
        assert [s.metric.formula for s in env.selected if s.metric] == [OLD_FORMULA]
    finally:
        store.close()


def test_history_grows_with_changes_not_with_ingests(tmp_path):
    db = _write(tmp_path, "steady", FIRST, FIRST, FIRST, second(FIRST))
    con = duckdb.connect(str(db), read_only=True)
    try:
        counts = {t: con.execute(f"SELECT count(*) FROM {t}_history").fetchone()[0]
                  for t in ("evidence", "aliases", "links", "lineage_edges", "freshness")}
    finally:
        con.close()
    # Three identical ingests add nothing; the fourth adds the two revisions it changed (booked pipeline's new
    # content, forecast accuracy's new ACL), each with its own rows.
    assert counts == {"evidence": len(FIRST["evidence"]) + 2, "aliases": 2, "links": 2, "lineage_edges": 2,
                      "freshness": 1}


def third(first: dict) -> dict:
    """A later ingest: forecast accuracy is everyone's again with new text, and a new metric appears."""
    cat = second(first)
    by_id = {e["evidence_id"]: e for e in cat["evidence"]}
    by_id["metric.forecast_accuracy.v1"]["acl"] = ROLES
    by_id["metric.forecast_accuracy.v1"]["text"] = "Forecast accuracy: one minus the relative forecast error."
    cat["evidence"].append(_ev("metric.win_rate.v1", "metric.win_rate", "metric_definition", "Win rate v1",
                               ["revops"], version="1", valid_from="2024-01-01", aliases=["close rate"],
                               metric={"formula": "won / (won + lost)", "grain": "one row per quarter"}))
    return cat


def _rows_of(con, schema: str, table: str) -> list:
    rows = con.execute(f"SELECT * EXCLUDE (rowid) FROM memory.{schema}.{table}" if table == "principals"
                       else f"SELECT * FROM memory.{schema}.{table}").fetchall()
    names = [d[0] for d in con.description]
    out = []
    for row in rows:
        rec = dict(zip(names, row))
        if "doc" in rec:
            rec["doc"] = json.loads(rec["doc"])
        out.append(json.dumps(rec, sort_keys=True, default=str))
    return sorted(out)


def test_reading_unchanged_objects_from_todays_tables_equals_reading_the_history(tmp_path):
    """A question's past state reads today's rows for what did not change and copies the rest; an audit
    replay's reads the history alone. Both must be the same catalog, at every ingest."""
    db = _write(tmp_path, "four", FIRST, second(FIRST), third(FIRST), third(FIRST))
    store = Store(db)
    try:
        con = store._con.cursor()
        now = history.current_ingest(store)
        for k in range(1, now + 1):
            meta = {"ingest": str(k)}
            history._define_views(con, f"fast_{k}", k, now, now, meta, in_place=True)
            history._define_views(con, f"slow_{k}", k, now, now, meta, in_place=False)
            for table in ("evidence", "acl", "aliases", "links", "lineage_edges", "freshness", "entities", "roles",
                          "principals"):
                assert _rows_of(con, f"fast_{k}", table) == _rows_of(con, f"slow_{k}", table), (k, table)
        assert len(_rows_of(con, "fast_1", "evidence")) == len(FIRST["evidence"])
        assert len(_rows_of(con, "fast_4", "evidence")) == len(third(FIRST)["evidence"])
    finally:
        store.close()
