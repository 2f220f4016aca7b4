"""Stewards open their review queue read-only, answered as each object's widest audience; nothing else widens.
Also the browsing helpers behind the Catalog page and metric-to-metric lineage."""
import csv
import io
from datetime import date

from conftest import DEMO_AT

from core.answer.ask import Question, ask
from core.answer.browse import metric_rows, search
from core.answer.intents.review import queue_csv, review_queue, steward_scope
from core.answer.steward import ask_as_steward
from core.catalog.access import visible
from core.resolve.lineage import upstream

TODAY = date(2026, 11, 29)


def test_only_stewards_get_a_scope(demo_store):
    for role in ("analyst", "finance", "marketing"):
        assert steward_scope(demo_store, role, TODAY) is None
    scope = steward_scope(demo_store, "governance", TODAY)
    queue = {i for item in review_queue(demo_store.all_evidence_for_review(), TODAY) for i in item.evidence_ids}
    assert scope.evidence_ids == queue
    assert "metric.contribution_margin.v2" not in scope.evidence_ids
    assert {e.evidence_id for e in scope.objects(demo_store)} == queue


def test_a_queue_object_answers_in_the_steward_view(demo_store):
    scope = steward_scope(demo_store, "governance", TODAY)
    q = Question(role="governance", text="What is net revenue on 2025-03-31?", at=DEMO_AT)
    env, widened = ask_as_steward(demo_store, q, scope)
    assert widened and env.behavior.value == "answer" and env.role == "governance"
    assert env.selected[0].evidence_id == "metric.net_revenue.v2"
    assert env.granted == sorted(scope.evidence_ids)


def test_nothing_outside_the_queue_widens(demo_store):
    scope = steward_scope(demo_store, "governance", TODAY)
    for text in ("What does contribution margin mean on 2025-03-31?", "What is customer acquisition cost?",
                 "Is raw_finance.cogs fresh?", "What does the board memo say about margin?"):
        env, widened = ask_as_steward(demo_store, Question(role="governance", text=text, at=DEMO_AT), scope)
        assert not widened and env.behavior.value == "not_found_or_not_authorized", text
        own = ask(demo_store, Question(role="governance", text=text, at=DEMO_AT))
        assert env.role == "governance" and env.evidence_ids() == own.evidence_ids() == set()
    # A non-steward gets exactly its own answer.
    q = Question(role="analyst", text="What is net revenue on 2025-03-31?", at=DEMO_AT)
    env, widened = ask_as_steward(demo_store, q, None)
    assert not widened and env.role == "analyst" and env.granted == []


# Finance-only objects next to the queue's net revenue: what a view widened to everything finance sees would show.
AROUND_THE_QUEUE = ("metric.contribution_margin", "doc.board_memo", "cogs_usd", "fulfilment_cost_usd", "Halyard",
                    "41.5")


def test_a_queue_entity_widens_only_to_the_queue_objects_on_every_intent(demo_store, demo):
    """The steward's widened view holds its queue's objects, never what their widest audience sees around
    them: a finance-only metric that reads net revenue, its formula's words, the board memo."""
    scope = steward_scope(demo_store, "governance", TODAY)
    for text in ("which metrics use net revenue?", "what depends on net revenue?", "compare net revenue v1 vs v2",
                 "what changed in net revenue in 2025?", "who owns net revenue?", "any metrics about margin?",
                 "what metrics are there?", "what does the revenue handbook say?", "where does net revenue come from?",
                 "is net revenue data fresh?", "what changes to net revenue are coming?",
                 "which dashboards use net revenue?", "net revenue vs contribution margin"):
        env, _ = ask_as_steward(demo_store, Question(role="governance", text=text, at=DEMO_AT), scope, demo[1])
        out = env.model_dump_json()
        assert not [w for w in AROUND_THE_QUEUE if w in out], text


def test_the_steward_audit_record_names_the_steward(demo_store, tmp_path):
    """A widened answer is recorded as the steward's own: its principal and role, and the queue it read with,
    so a replay reproduces it."""
    import shutil

    from core.serve import audit
    from core.serve.replay import replay
    db = tmp_path / "demo.duckdb"
    shutil.copy(demo_store.path, db)
    from core.catalog.store import Store
    store = Store(db)
    scope = steward_scope(store, "governance", TODAY)
    q = Question(role="governance", text="What is net revenue on 2025-03-31?", at=DEMO_AT,
                 grants=frozenset(scope.evidence_ids))
    env, widened = ask_as_steward(store, q, scope)
    assert widened
    audit.record(db, envelope=env, role=env.role, principal="ruth", source="cli", inputs=audit.inputs_of(q))
    rec = audit.read_all(db)[-1]
    assert (rec.principal, rec.role) == ("ruth", "governance")
    assert replay(db, rec.id, store=store).reproduced


def test_queue_csv_has_one_row_per_item(demo_store):
    items = review_queue(demo_store.all_evidence_for_review(), TODAY)
    rows = list(csv.reader(io.StringIO(queue_csv(items))))
    assert rows[0] == ["kind", "problem", "detail", "since", "owner", "what to do", "evidence"]
    assert len(rows) == len(items) + 1
    assert all(r[5] for r in rows[1:])  # every item says what to do


def test_catalog_search_finds_a_metric_by_alias(demo_store):
    view = visible(demo_store, "analyst")
    assert search(view, "repurchase rate")[0] == "metric.repeat_purchase_rate"
    assert search(visible(demo_store, "finance"), "cm")[0] == "metric.contribution_margin"
    assert "metric.contribution_margin" not in search(view, "cm margin after variable costs")


def test_catalog_search_ranks_the_metric_a_phrase_describes_first(demo):
    """Issue 19 item 5: a description, not a name, finds its metric first (before tables sharing its words)."""
    store, searcher = demo
    view = visible(store, "analyst")
    assert search(view, "money we kept after reversals", searcher)[0] == "metric.net_revenue"
    assert search(view, "how often customers come back to buy again", searcher)[0] == "metric.repeat_purchase_rate"
    assert search(view, "fct_orders", searcher)[0] == "model.fct_orders"  # a name still wins
    assert search(view, "repurchase rate", searcher)[0] == "metric.repeat_purchase_rate"


def test_metric_table_shows_what_is_in_effect_today(demo_store):
    rows = {r.entity_id: r for r in metric_rows(visible(demo_store, "analyst"), DEMO_AT)}
    assert rows["metric.net_revenue"].in_effect_today == "v2"
    assert rows["metric.net_revenue"].freshness in ("pass", "warn", "error")
    assert rows["metric.conversion_rate"].freshness == "error"  # raw_web.sessions is past its error threshold
    assert rows["metric.repeat_purchase_rate"].status == "overlap: needs review"
    assert "metric.contribution_margin" not in rows


def test_a_metric_used_in_a_formula_brings_its_sources(demo_store):
    lin = upstream(visible(demo_store, "finance"), ["metric.contribution_margin.v2", "model.fct_order_costs.v1"],
                   date(2025, 6, 1))
    assert ("metric.net_revenue.v2", "metric.contribution_margin.v2") in {(e.upstream, e.downstream) for e in lin.edges}
    assert {"source.raw_finance.cogs", "source.raw_payments.payment_events"} <= set(lin.raw_sources)


def test_the_catalog_lists_every_queue_object(demo_store):
    from core.answer.browse import queue_rows
    from core.answer.steward import steward_view
    scope = steward_scope(demo_store, "governance", TODAY)
    rows = queue_rows(demo_store, scope, TODAY)
    assert {r.evidence_id for r in rows} == scope.evidence_ids
    by_id = {r.evidence_id: r for r in rows}
    assert by_id["doc.kpi_glossary.2022"].may_see == "nobody (empty ACL)"
    assert "Drafts that contradict" in by_id["draft.net_revenue.2025-02"].problem
    # The queue's metrics, in the steward's view: what the steward's Catalog table lists, and nothing around them.
    rows = {r.entity_id: r for r in metric_rows(steward_view(demo_store, "governance", scope), DEMO_AT)}
    assert rows["metric.net_revenue"].in_effect_today == "v2"
    assert "metric.contribution_margin" not in rows and "metric.average_order_value" not in rows


def test_a_widened_answer_says_steward_view(demo_store):
    scope = steward_scope(demo_store, "governance", TODAY)
    env, _ = ask_as_steward(demo_store, Question(role="governance", text="What is net revenue on 2025-03-31?",
                                                 at=DEMO_AT), scope)
    # Why a steward sees less than an analyst elsewhere is said in words a reader knows (no "ACL").
    assert any(n.startswith("Steward view (read-only):") and "from your review queue" in n and "ACL" not in n
               and "lists and counts can be shorter" in n for n in env.notes)


def test_a_queue_object_nobody_may_see_opens_for_the_steward_only(demo_store):
    """The KPI glossary has an empty ACL: no role may ask about it, but it is in the steward's queue, so the
    steward's view holds it; the steward's own "not found" stands for anything outside the queue."""
    from core.answer.steward import steward_answer
    env, widened = steward_answer(demo_store, Question(role="governance", text="what does the kpi glossary export say?",
                                                       at=DEMO_AT), today=TODAY)
    assert widened and env.behavior.value == "answer"
    assert "doc.kpi_glossary.2022" in env.evidence_ids()
    env, widened = steward_answer(demo_store, Question(role="governance", text="board memo halyard", at=DEMO_AT),
                                  today=TODAY)
    assert not widened and env.behavior.value == "not_found_or_not_authorized"
    assert not any(n.startswith("Steward view") for n in env.notes)
    for role in ("analyst", "finance", "marketing"):
        env, _ = steward_answer(demo_store, Question(role=role, text="what does the kpi glossary export say?",
                                                     at=DEMO_AT), today=TODAY)
        assert env.behavior.value == "not_found_or_not_authorized", role
