"""Stewards open their review queue read-only, answered as each object's widest audience; nothing else widens.
Also the browsing helpers behind the Catalog page and metric-to-metric lineage."""
import csv
import io
from datetime import date

from conftest import DEMO_AT

from core.ask import Question, ask
from core.browse import metric_rows, search
from core.lineage import upstream
from core.review import queue_csv, review_queue, steward_scope, widest_audience
from core.steward import ask_as_steward

TODAY = date(2026, 11, 29)


def test_only_stewards_get_a_scope(demo_store):
    for role in ("analyst", "finance", "marketing"):
        assert steward_scope(demo_store, role, TODAY) is None
    scope = steward_scope(demo_store, "governance", TODAY)
    queue = {i for item in review_queue(demo_store.all_evidence_for_review(), TODAY) for i in item.evidence_ids}
    assert scope.evidence_ids == queue
    assert "metric.contribution_margin.v2" not in scope.evidence_ids
    assert {e for e in scope.audiences} == {e.entity_id for e in scope.objects(demo_store)}


def test_widest_audience_is_the_role_that_sees_most():
    counts = {"analyst": 40, "finance": 50, "marketing": 38}
    assert widest_audience(["analyst", "finance"], counts) == "finance"
    assert widest_audience(["marketing", "analyst"], counts) == "analyst"
    assert widest_audience([], counts) is None


def test_a_queue_object_answers_as_its_audience(demo_store):
    scope = steward_scope(demo_store, "governance", TODAY)
    q = Question(role="governance", text="What is net revenue on 2025-03-31?", at=DEMO_AT)
    env, audience = ask_as_steward(demo_store, q, scope)
    assert audience == "finance" and env.behavior.value == "answer"
    assert env.selected[0].evidence_id == "metric.net_revenue.v2"


def test_nothing_outside_the_queue_widens(demo_store):
    scope = steward_scope(demo_store, "governance", TODAY)
    for text in ("What does contribution margin mean on 2025-03-31?", "What is customer acquisition cost?",
                 "Is raw_finance.cogs fresh?", "What does the board memo say about margin?"):
        env, audience = ask_as_steward(demo_store, Question(role="governance", text=text, at=DEMO_AT), scope)
        assert audience is None and env.behavior.value == "not_found_or_not_authorized", text
        own = ask(demo_store, Question(role="governance", text=text, at=DEMO_AT))
        assert env.role == "governance" and env.evidence_ids() == own.evidence_ids() == set()
    # A non-steward gets exactly its own answer.
    q = Question(role="analyst", text="What is net revenue on 2025-03-31?", at=DEMO_AT)
    env, audience = ask_as_steward(demo_store, q, None)
    assert audience is None and env.role == "analyst"


def test_queue_csv_has_one_row_per_item(demo_store):
    items = review_queue(demo_store.all_evidence_for_review(), TODAY)
    rows = list(csv.reader(io.StringIO(queue_csv(items))))
    assert rows[0] == ["kind", "problem", "detail", "since", "owner", "what to do", "evidence"]
    assert len(rows) == len(items) + 1
    assert all(r[5] for r in rows[1:])  # every item says what to do


def test_catalog_search_finds_a_metric_by_alias(demo_store):
    view = demo_store.visible("analyst")
    assert search(view, "repurchase rate")[0] == "metric.repeat_purchase_rate"
    assert search(demo_store.visible("finance"), "cm")[0] == "metric.contribution_margin"
    assert "metric.contribution_margin" not in search(view, "cm margin after variable costs")


def test_metric_table_shows_what_is_in_effect_today(demo_store):
    rows = {r.entity_id: r for r in metric_rows(demo_store.visible("analyst"), DEMO_AT)}
    assert rows["metric.net_revenue"].in_effect_today == "v2"
    assert rows["metric.net_revenue"].freshness in ("pass", "warn", "error")
    assert rows["metric.conversion_rate"].freshness == "error"  # raw_web.sessions is past its error threshold
    assert rows["metric.repeat_purchase_rate"].status == "overlap: needs review"
    assert "metric.contribution_margin" not in rows


def test_a_metric_used_in_a_formula_brings_its_sources(demo_store):
    lin = upstream(demo_store.visible("finance"), ["metric.contribution_margin.v2", "model.fct_order_costs.v1"],
                   date(2025, 6, 1))
    assert ("metric.net_revenue.v2", "metric.contribution_margin.v2") in {(e.upstream, e.downstream) for e in lin.edges}
    assert {"source.raw_finance.cogs", "source.raw_payments.payment_events"} <= set(lin.raw_sources)


def test_the_catalog_lists_every_queue_object_and_how_it_opens(demo_store):
    from core.browse import queue_rows
    scope = steward_scope(demo_store, "governance", TODAY)
    rows = queue_rows(demo_store, scope, TODAY)
    assert {r.evidence_id for r in rows} == scope.evidence_ids
    by_id = {r.evidence_id: r for r in rows}
    assert by_id["doc.kpi_glossary.2022"].may_see == "nobody (empty ACL)"
    assert by_id["doc.kpi_glossary.2022"].read_as == "read-only, as recorded"
    assert by_id["draft.net_revenue.2025-02"].read_as == f"role {scope.audiences['metric.net_revenue']}"
    assert "Drafts that contradict" in by_id["draft.net_revenue.2025-02"].problem
    # The queue's metrics, as their audience sees them: what the steward's Catalog table adds.
    audience = scope.audiences["metric.net_revenue"]
    rows = metric_rows(demo_store.visible(audience), DEMO_AT, only={"metric.net_revenue"})
    assert [r.entity_id for r in rows] == ["metric.net_revenue"] and rows[0].in_effect_today == "v2"


def test_a_widened_answer_says_steward_view(demo_store):
    scope = steward_scope(demo_store, "governance", TODAY)
    env, audience = ask_as_steward(demo_store, Question(role="governance", text="What is net revenue on 2025-03-31?",
                                                        at=DEMO_AT), scope)
    assert any(n.startswith("Steward view (read-only): answered as role finance") for n in env.notes)


def test_a_question_naming_a_queue_object_nobody_may_see_offers_to_open_it(demo_store):
    from core.steward import queue_matches
    scope = steward_scope(demo_store, "governance", TODAY)
    objs = scope.objects(demo_store)
    assert [o.evidence_id for o in queue_matches(objs, "What is the KPI glossary 2022?")] == ["doc.kpi_glossary.2022"]
    # Objects outside the queue are never offered, however well the question names them.
    assert queue_matches(objs, "What does the board memo say about Project Halyard margin targets?") == []
    assert queue_matches(objs, "Who owns contribution margin?") == []


def test_a_steward_question_naming_a_queue_object_says_so_instead_of_nothing(demo_store):
    """The steward's own view has nothing on the KPI glossary (an empty ACL, so no role can answer about it),
    but its queue has it: the answer says which queue object matches and how it is read, and the headline the
    Ask page shows names it (not "nothing matches" above the very object that matches)."""
    from core.steward import matching_queue_items, queue_headline, steward_answer
    q = Question(role="governance", text="kpi glossary 2022", at=DEMO_AT)
    env, audience = steward_answer(demo_store, q, today=TODAY)
    assert audience is None
    note = next(n for n in env.notes if n.startswith("Steward view (read-only): nothing your own role may see"))
    assert "KPI glossary export (2022)" in note and "nobody may see it" in note
    matches = matching_queue_items(demo_store, steward_scope(demo_store, "governance", TODAY), q.text)
    assert [(m.evidence_id, m.audience) for m in matches] == [("doc.kpi_glossary.2022", None)]
    assert "KPI glossary export (2022)" in queue_headline(matches)
    # Nothing in the queue named: the steward's own "not found" stands, without a queue note.
    env, _ = steward_answer(demo_store, Question(role="governance", text="board memo halyard", at=DEMO_AT), today=TODAY)
    assert not any(n.startswith("Steward view") for n in env.notes)
    # Not a steward: no queue, ever.
    assert matching_queue_items(demo_store, steward_scope(demo_store, "analyst", TODAY), q.text) == []
