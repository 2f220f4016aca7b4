"""Intents the catalog answers without a definition (discover, compare, owner, downstream, document, upcoming),
the two resolver gaps (no date: expand as of today; a period with no version: abstain), and, for every role and
every object it may not see, that no intent answer lists, counts or names it.

Catalogs are written without a search index: these intents read the catalog only, and skipping embeddings keeps
this file fast.
"""
import json
import os
from datetime import date, datetime, timezone

import pytest
from conftest import DEMO, ROOT, cli
from streamlit.testing.v1 import AppTest

from core.answer.ask import Question, ask
from core.catalog.access import visible
from core.catalog.entities import id_phrases
from core.catalog.evidence import Kind
from core.catalog.store import Store, write_catalog
from core.explain.explain import deterministic
from core.explain.render import render_text
from core.ingest.ingest import read_inputs
from core.ingest.load import load_catalog
from core.read.intents.intent import intent_kind
from ui.intents import md

REAL = ROOT / "tests" / "fixtures" / "realworld"
SUITE_B = ROOT / "tests" / "suites" / "suite_b.catalog.json"
AT = datetime(2026, 11, 29, 12, 0, tzinfo=timezone.utc)
DEMO_CATALOG = load_catalog(DEMO)


def _write(catalog, path) -> Store:
    write_catalog(catalog, path)
    return Store(path)


@pytest.fixture(scope="module")
def stores(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("intents")
    jaffle, _ = read_inputs(tmp / "j.duckdb", dbt=REAL / "jaffle-shop", overlay=ROOT / "data/dbt/jaffle-shop.overlay.yml")
    evaluator, _ = read_inputs(tmp / "e.duckdb", dbt=REAL / "dbt-project-evaluator-versions",
                               overlay=ROOT / "data/dbt/dbt-project-evaluator-versions.overlay.yml")
    out = {"demo": (_write(DEMO_CATALOG, tmp / "demo.duckdb"), DEMO_CATALOG),
           "jaffle": (_write(jaffle, tmp / "jaffle.duckdb"), jaffle),
           "evaluator": (_write(evaluator, tmp / "evaluator.duckdb"), evaluator),
           "suite_b": (_write(load_catalog(SUITE_B), tmp / "b.duckdb"), load_catalog(SUITE_B))}
    yield out
    for store, _ in out.values():
        store.close()


def run(stores, name, question, role="analyst", day=None, period=None, entity=None):
    return ask(stores[name][0], Question(role=role, text=question, day=day, period=period, at=AT, entity=entity))


def explained(stores, name, env):
    x = deterministic(env, visible(stores[name][0], env.role).visible_ids)
    assert x.validation.passed, x.validation.problems
    return x


@pytest.mark.parametrize("question,kind", [
    ("what metrics can I see?", "discover"), ("list the revenue metrics", "discover"),
    ("which models can I see about orders", "discover"), ("compare v1 and v2 of net revenue", "compare"),
    ("what changed in net revenue between 2024 and 2025?", "compare"), ("who owns net revenue?", "owner"),
    ("which dashboards use fct_orders?", "downstream"), ("which models depend on stg_orders", "downstream"),
    ("what does the board memo say about margin?", "document"), ("what are the upcoming changes to churn?", "upcoming"),
    # ordinary definition questions keep the definition flow
    ("which models does net revenue depend on", None), ("which upstream tables does net rev depend on for Q1 2025?", None),
    ("The old wiki says revenue includes shipping and tax. Is that right for 2025-03-31?", None),
    ("Which model backs GMV on 2024-06-30?", None), ("Summarize the partner rebate policy.", None),
    # as people type them
    ("which metrics are about customers?", "discover"), ("what models can marketing see?", "discover"),
    ("any metrics on refunds?", "discover"), ("what kpis do we track", "discover"),
    ("whats different about churn rate v2", "compare"), ("what's new in net revenue v2?", "compare"),
    ("what does the slack export say?", "document"), ("is any change to churn coming?", "upcoming"),
    ("any drafts about revenue?", "upcoming"),
])
def test_intent_kind(question, kind):
    assert intent_kind(question)[0] == kind


# ---- discover ----------------------------------------------------------------------------------------------

def _visible_metric_entities(catalog, role):
    return {e.entity_id for e in catalog.evidence if e.kind is Kind.metric_definition and role in e.acl}


@pytest.mark.parametrize("name,role", [("demo", "analyst"), ("demo", "finance"), ("demo", "marketing"),
                                       ("jaffle", "analyst"), ("jaffle", "finance")])
def test_discover_lists_exactly_the_visible_metrics(stores, name, role):
    env = run(stores, name, "what metrics can I see?", role)
    assert env.intent == "discover" and env.behavior.value == "answer"
    listed = {i.entity_id for i in env.listing.items}
    assert listed == _visible_metric_entities(stores[name][1], role)
    assert f"You can see {len(listed)} metrics" in env.verdict
    explained(stores, name, env)


def test_discover_topic_owner_status_versions(stores):
    finance = run(stores, "demo", "list the revenue metrics", "finance")
    rows = {i.entity_id: i for i in finance.listing.items}
    assert finance.listing.topic == ["revenue"]
    assert {"metric.net_revenue", "metric.contribution_margin"} <= set(rows)
    assert "metric.churn_rate" not in rows
    nr = rows["metric.net_revenue"]
    assert nr.owner == "Revenue Analytics (Priya Shah)" and nr.status == "current version v2 on 2026-11-29"
    assert [v.version for v in nr.versions] == ["1", "2"] and nr.versions[1].in_effect
    analyst = run(stores, "demo", "list the revenue metrics", "analyst")
    assert "metric.contribution_margin" not in {i.entity_id for i in analyst.listing.items}
    clv = {i.entity_id: i for i in run(stores, "demo", "what metrics can I see?").listing.items}
    assert clv["metric.customer_lifetime_value"].status == "draft only"
    models = run(stores, "jaffle", "which models can I see about orders")
    assert models.listing.kind == "model"
    assert {"model.orders", "model.order_items", "model.stg_orders"} <= {i.entity_id for i in models.listing.items}
    assert all("order" in (i.label + i.description).lower() for i in models.listing.items)


def test_discover_as_people_ask_it(stores):
    about = run(stores, "demo", "which metrics are about customers?")
    assert about.intent == "discover" and about.listing.topic == ["customer"]
    assert {"metric.active_customers", "metric.churn_rate"} <= {i.entity_id for i in about.listing.items}
    assert "metric.net_revenue" not in {i.entity_id for i in about.listing.items}
    # Naming a role lists the asker's own view, never the named role's, and says so.
    other = run(stores, "demo", "what models can finance see?", "analyst")
    own = run(stores, "demo", "what models can I see?", "analyst")
    assert other.intent == "discover" and other.listing.kind == "model"
    assert [i.entity_id for i in other.listing.items] == [i.entity_id for i in own.listing.items]
    assert "model.fct_order_costs" not in other.model_dump_json()
    assert any("not what finance may see" in n for n in other.notes)
    # Words about what we do with metrics are not a topic.
    tracked = run(stores, "demo", "what kpis do we track")
    assert tracked.listing.topic == [] and {i.entity_id for i in tracked.listing.items} == _visible_metric_entities(
        stores["demo"][1], "analyst")
    assert {i.entity_id for i in run(stores, "demo", "any metrics on refunds?").listing.items} >= {"metric.refund_rate"}


# ---- compare -----------------------------------------------------------------------------------------------

def test_compare_two_named_versions_field_by_field(stores):
    env = run(stores, "demo", "compare v1 and v2 of net revenue")
    c = env.comparison
    assert env.intent == "compare" and (c.left.evidence_id, c.right.evidence_id) == (
        "metric.net_revenue.v1", "metric.net_revenue.v2")
    changed = {f.field for f in c.changed}
    assert {"formula", "grain", "time dimension", "exclusions", "backing model"} <= changed
    assert "unit" not in changed and "owner" not in changed
    assert (c.left_model, c.right_model) == ("model.fct_orders.v1", "model.fct_orders.v2")
    assert {s.evidence_id for s in env.selected} >= {"metric.net_revenue.v1", "metric.net_revenue.v2"}
    x = explained(stores, "demo", env)
    assert any("`SUM(order_total_usd) - SUM(refund_amount_usd)`" in s.text for s in x.sentences)


def test_compare_between_two_dates(stores):
    env = run(stores, "jaffle", "what changed in revenue between 2024 and 2025?")
    c = env.comparison
    assert (c.left.version, c.right.version) == ("1", "2")
    assert {f.field: (f.before, f.after) for f in c.changed}["formula"] == ("sum(order_total)", "sum(product_price)")
    explained(stores, "jaffle", env)
    churn = run(stores, "demo", "how did churn change in 2025?")
    assert (churn.comparison.left.evidence_id, churn.comparison.right.evidence_id) == (
        "metric.churn_rate.v1", "metric.churn_rate.v2")
    # One version named, no date: what is new in it is measured against the version before it.
    new = run(stores, "demo", "what's new in net revenue v2?")
    assert (new.comparison.left.evidence_id, new.comparison.right.evidence_id) == (
        "metric.net_revenue.v1", "metric.net_revenue.v2")
    first = run(stores, "demo", "whats different about churn rate v1")
    assert (first.comparison.left.evidence_id, first.comparison.right.evidence_id) == (
        "metric.churn_rate.v1", "metric.churn_rate.v2")
    # Two metrics: each as in effect on the date, field by field.
    two = run(stores, "demo", "net revenue vs gross merchandise value on 2024-06-30")
    c = two.comparison
    assert (c.left.evidence_id, c.right.evidence_id, c.right_label) == (
        "metric.net_revenue.v1", "metric.gross_merchandise_value.v1", "Gross merchandise value")
    assert "formula" in {f.field for f in c.changed} and two.verdict.startswith("Net revenue and Gross merchandise value")
    # A metric the role may not see is not compared: the answer is the one a made-up name gets.
    hidden = run(stores, "demo", "compare net revenue and contribution margin")
    fake = run(stores, "demo", "compare net revenue and zorblat margin")
    assert hidden.verdict == fake.verdict and "contribution" not in hidden.model_dump_json().lower()
    one = run(stores, "demo", "compare the versions of gross merchandise value")
    assert one.behavior.value == "abstain" and "only one approved version" in one.verdict


# ---- owner -------------------------------------------------------------------------------------------------

def test_owner_of_the_governing_version(stores):
    env = run(stores, "demo", "who owns contribution margin?", "finance")
    assert env.intent == "owner" and env.ownership.owner == "FP&A (Farah Nasser)"
    assert env.ownership.evidence_id == "metric.contribution_margin.v2"
    then = run(stores, "demo", "who owns contribution margin?", "finance", day=date(2024, 6, 30))
    assert then.ownership.evidence_id == "metric.contribution_margin.v1"
    explained(stores, "demo", env)
    j = run(stores, "jaffle", "who is the owner of order_items?")
    assert j.ownership.owner == "Data Platform (Sam Okafor)"
    # the asking verb is not read as a qualifier of the one-word metric name
    assert run(stores, "jaffle", "who owns revenue?").ownership.owner == "Finance (Dana Ruiz)"
    draft = run(stores, "demo", "who owns customer lifetime value?")
    assert draft.ownership.from_draft and draft.ownership.owner == "Growth Analytics (Jonas Berg)"


def test_owner_of_a_document_named_by_its_title(stores):
    env = run(stores, "demo", "who owns the board memo", "finance")
    assert env.intent == "owner" and env.ownership.owner == "FP&A (Farah Nasser)"
    assert env.ownership.evidence_id == "finance.board_memo.margin_2026" and not env.ownership.from_draft
    # The analyst may not read it: the same answer as for a memo that does not exist.
    hidden = run(stores, "demo", "who owns the board memo")
    fake = run(stores, "demo", "who owns the zorblat memo")
    assert hidden.behavior.value == fake.behavior.value == "not_found_or_not_authorized"
    assert hidden.verdict == fake.verdict and "Farah" not in hidden.model_dump_json()


# ---- downstream --------------------------------------------------------------------------------------------

def test_downstream_models_metrics_and_exposures(stores):
    env = run(stores, "demo", "which models depend on stg_orders?")
    ids = {i.id for i in env.downstream.items}
    assert {"model.fct_orders.v2", "model.dim_customers.v2", "metric.net_revenue.v2"} <= ids
    assert "model.fct_orders.v1" not in ids  # not in effect today
    old = run(stores, "demo", "which models depend on stg_orders?", day=date(2024, 6, 30))
    assert "model.fct_orders.v1" in {i.id for i in old.downstream.items}
    explained(stores, "demo", env)
    dash = run(stores, "evaluator", "which dashboards use fct_model_6?")
    exposures = [i for i in dash.downstream.items if i.kind == "exposure"]
    assert [(i.id, i.exposure_type) for i in exposures] == [
        ("exposure.dbt_project_evaluator_integration_tests.exposure_1", "dashboard")]
    assert "dashboard" in dash.verdict
    j = run(stores, "jaffle", "which metrics use order_items?")
    assert "metric.jaffle_shop.revenue" in {i.id for i in j.downstream.items}
    # A metric whose formula reads another is downstream of it, though no lineage edge says so.
    nr = run(stores, "demo", "what depends on net revenue?")
    assert "metric.average_order_value" in {i.id for i in nr.downstream.items}
    assert "metric.contribution_margin" not in nr.model_dump_json()  # finance only
    assert "metric.contribution_margin" in {i.id for i in run(stores, "demo", "what depends on net revenue?",
                                                                "finance").downstream.items}
    # ... and through a metric reached by lineage: fct_orders -> net revenue -> contribution margin (formula).
    deep = {i.id: i.depth for i in run(stores, "demo", "what depends on fct_orders?", "finance").downstream.items}
    assert deep["metric.contribution_margin"] > deep["metric.net_revenue.v2"]


def test_list_the_dashboards(stores):
    env = run(stores, "evaluator", "list the dashboards")
    assert env.intent == "discover" and env.listing.kind == "exposure"
    assert "exposure.exposure_1" in {i.entity_id for i in env.listing.items}
    assert env.verdict.startswith("You can see") and "dashboard" in env.verdict
    models = run(stores, "evaluator", "list the models")
    assert not [i for i in models.listing.items if i.entity_id.startswith("exposure.")]


# ---- document ----------------------------------------------------------------------------------------------

def test_document_answers_with_the_document_as_evidence(stores):
    env = run(stores, "demo", "what does the board memo say about margin?", "finance")
    d = env.documents[0]
    assert env.intent == "document" and d.evidence_id == "finance.board_memo.margin_2026"
    assert d.label == "AUTHORITATIVE DOCUMENT" and "41.5 percent" in d.quote
    assert not [s for s in env.selected if s.role_in_answer == "definition"]  # it never governs
    assert "never governs a metric definition" in env.verdict
    x = explained(stores, "demo", env)
    assert x.citations == ["finance.board_memo.margin_2026"]
    wiki = run(stores, "jaffle", "what does the old wiki page say about revenue?")
    assert wiki.documents[0].evidence_id == "wiki.revenue.2024" and wiki.documents[0].label == "SUPERSEDED"
    assert not wiki.documents[0].quote.startswith("#")


# ---- upcoming ----------------------------------------------------------------------------------------------

def test_later_draft_is_a_not_yet_in_effect_conflict(stores):
    env = run(stores, "suite_b", "Should shipping be in revenue on 2025-03-31?", "analytics")
    later = {c.evidence_id: c for c in env.conflicts if c.label == "NOT YET IN EFFECT"}
    assert "draft.revenue_management_definition" in later
    assert "2025-06-01" in later["draft.revenue_management_definition"].why
    assert env.selected[0].evidence_id == "metric.standard_revenue.v1"
    explained(stores, "suite_b", env)
    demo = run(stores, "demo", "What is net revenue on 2025-01-15?")
    assert "draft.net_revenue.2025-02" in {c.evidence_id for c in demo.conflicts if c.label == "NOT YET IN EFFECT"}
    after = run(stores, "demo", "What is net revenue on 2025-03-31?")
    assert {c.label for c in after.conflicts if c.evidence_id == "draft.net_revenue.2025-02"} == {"DRAFT"}
    coming = run(stores, "demo", "what are the upcoming changes to active customers?", day=date(2025, 3, 31))
    assert coming.intent == "upcoming"
    assert "metric.active_customers.v3" in {c.evidence_id for c in coming.conflicts if c.label == "NOT YET IN EFFECT"}
    explained(stores, "demo", coming)


# ---- resolver gaps -----------------------------------------------------------------------------------------

def test_no_date_expands_a_single_open_version_as_of_today(stores):
    env = run(stores, "demo", "Which model backs GMV?")
    models = [s.evidence_id for s in env.selected if s.role_in_answer == "model"]
    assert models == ["model.fct_orders.v2"]
    assert any("as of today (2026-11-29" in n for n in env.notes)
    explained(stores, "demo", env)


def test_period_with_no_version_abstains_with_the_versions(stores):
    env = run(stores, "demo", "How was contribution margin defined in 2023?", "finance")
    assert env.behavior.value == "abstain" and not env.splits
    assert {c.evidence_id: c.label for c in env.conflicts} == {
        "metric.contribution_margin.v1": "NOT IN EFFECT", "metric.contribution_margin.v2": "NOT IN EFFECT"}
    assert "2024-01-01" in env.verdict and "2025-04-01" in env.verdict
    explained(stores, "demo", env)


# ---- permissions: nothing hidden is listed, counted or named -----------------------------------------------

def _marks(catalog, role, ev) -> list[str]:
    visible = " ".join(f"{e.evidence_id} {e.entity_id} {e.title} {e.text}" for e in catalog.evidence
                       if role in e.acl).lower()
    out = [ev.evidence_id]
    out += [m for m in (ev.title, ev.entity_id) if m.lower() not in visible]
    return out


def _intent_questions(ev) -> list[str]:
    name = " ".join(id_phrases(ev.entity_id)[0])
    return [f"list the {name} metrics", f"which models can I see about {name}", f"who owns {name}?",
            f"who is the owner of {ev.title}?", f"which dashboards use {name}?", f"which models depend on {name}?",
            f"what does the {ev.title} memo say?", f"what does the {name} document say about {name}?",
            f"compare v1 and v2 of {name}", f"what are the upcoming changes to {name}?"]


def _cases():
    for name, catalog in (("demo", DEMO_CATALOG),):
        for role in catalog.role_names:
            for ev in catalog.evidence:
                if role not in ev.acl:
                    yield name, role, ev


CASES = list(_cases())


def test_every_role_has_hidden_objects():
    assert {r for _, r, _ in CASES} == set(DEMO_CATALOG.role_names) and len(CASES) > 60


@pytest.mark.parametrize("role", DEMO_CATALOG.role_names)
def test_no_intent_output_names_a_hidden_object(stores, role):
    """Every role x every object it may not see, through every intent (and the generic listings)."""
    store, catalog = stores["demo"]
    hidden = [ev for ev in catalog.evidence if role not in ev.acl]
    generic = ["what metrics can I see?", "what models can I see?", "what sources can I see?",
               "what documents can I see?"]
    listings = [render_text(run(stores, "demo", q, role)) + run(stores, "demo", q, role).model_dump_json()
                for q in generic]
    for ev in hidden:
        marks = _marks(catalog, role, ev)
        outputs = listings + [run(stores, "demo", q, role).model_dump_json() for q in _intent_questions(ev)]
        for out in outputs:
            leaked = [m for m in marks if m.lower() in out.lower()]
            assert not leaked, (role, ev.evidence_id, leaked)


def test_jaffle_hidden_metrics_never_appear(stores):
    store, catalog = stores["jaffle"]
    hidden = [e for e in catalog.evidence if "analyst" not in e.acl]
    assert hidden
    for q in ["what metrics can I see?", "list the profit metrics", "which metrics use order_items?",
              "who owns order gross profit?", "which dashboards use orders?", "what models can I see?"]:
        out = run(stores, "jaffle", q).model_dump_json()
        assert not [e.evidence_id for e in hidden if e.evidence_id in out], q


def test_hidden_name_answers_like_a_made_up_name(stores):
    def same(a, b):
        da, db = a.model_dump(exclude={"trace"}), b.model_dump(exclude={"trace"})
        return da == db
    pairs = [("who owns contribution margin?", "who owns zorblax margin?"),
             ("what does the board memo say about margin?", "what does the zorblax memo say about margin?"),
             ("which dashboards use contribution margin?", "which dashboards use zorblax margin?"),
             ("compare v1 and v2 of contribution margin", "compare v1 and v2 of zorblax margin")]
    for hidden, made_up in pairs:
        assert same(run(stores, "demo", hidden, "marketing"), run(stores, "demo", made_up, "marketing")), hidden


# ---- ask --json and the Ask page ---------------------------------------------------------------------------

def test_ask_json_carries_the_intent_fields(stores):
    db = str(stores["demo"][0].path)
    r = cli("ask", "--db", db, "--role", "analyst", "--at", "2026-11-29T12:00:00Z", "--json",
            "compare v1 and v2 of net revenue")
    body = json.loads(r.stdout)
    assert r.returncode == 0 and body["intent"] == "compare"
    assert body["comparison"]["right"]["evidence_id"] == "metric.net_revenue.v2"
    r = cli("ask", "--db", db, "--role", "analyst", "--at", "2026-11-29T12:00:00Z", "what metrics can I see?")
    assert "metrics visible to analyst" in r.stdout and "Net revenue (metric.net_revenue)" in r.stdout


def test_markdown_escaping_is_inert():
    text = md("**bold** [link](http://x) :red[badge] $x$ `code` # head <b>")
    for raw in ("**", "](", ":red[", "$x$", "`code`"):
        assert raw not in text


@pytest.fixture
def app_db(stores):
    os.environ["ASOF_DB"] = str(stores["demo"][0].path)
    yield
    os.environ.pop("ASOF_DB", None)


def _ask_page(question, role):
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.session_state["role"] = role
    at.session_state["date_mode"] = "No date"
    at.run()
    at.text_input(key="question").input(question)  # inside the form: sent with the submit
    at.button(key="ask").click().run()
    assert not at.exception, at.exception
    return at


def _table(at) -> "object":
    """An intent's table (a wrapping st.table whose cells are Markdown-escaped), with the escapes removed."""
    import re
    frame = at.table[0].value
    frame = frame.rename(columns=lambda c: re.sub(r"\\(.)", r"\1", str(c)))
    return frame.map(lambda v: re.sub(r"\\(.)", r"\1", v) if isinstance(v, str) else v)


def test_ask_page_shows_intents(app_db):
    at = _ask_page("list the revenue metrics", "finance")
    table = _table(at)
    assert "metric.contribution_margin" in set(table["id"])
    at = _ask_page("what does the board memo say about margin?", "finance")
    assert any("41.5 percent" in t.value for t in at.text)
    assert any("AUTHORITATIVE DOCUMENT" in m.value for m in at.markdown)
    at = _ask_page("compare v1 and v2 of net revenue", "analyst")
    rows = _table(at)
    assert dict(zip(rows["field"], rows["changed"]))["formula"] == "changed"


def test_a_modifier_phrase_after_a_name_keeps_the_name(stores):
    # "net of refunds" says something about revenue; it does not make "revenue net" a name of its own.
    env = run(stores, "jaffle", "is revenue net of refunds in 2026?")
    assert env.entity_id == "metric.revenue" and "metric.jaffle_shop.revenue" in {s.evidence_id for s in env.selected}


def test_compare_two_named_things_read_each_side_on_its_own(stores):
    typo = run(stores, "demo", "net revnue vs gmv on 2025-03-31")
    assert typo.comparison.right_label == "Gross merchandise value"
    assert typo.comparison.left.evidence_id == "metric.net_revenue.v2"
    assert any("net revnue" in n for n in typo.notes), typo.notes
    # A side the role may not see: not found, exactly as for a side that names nothing.
    hidden = run(stores, "demo", "net revenue vs contribution margin on 2025-06-30")
    fake = run(stores, "demo", "net revenue vs zorblat margin on 2025-06-30")
    assert hidden.behavior.value == "not_found_or_not_authorized" and hidden.verdict == fake.verdict
    # Dates compared keep comparing versions.
    years = run(stores, "demo", "net revenue 2024 vs 2025")
    assert (years.comparison.left.evidence_id, years.comparison.right.evidence_id) == (
        "metric.net_revenue.v1", "metric.net_revenue.v2")
    x = explained(stores, "demo", typo)
    assert any("Net revenue's formula is" in s.text and "Gross merchandise value's is" in s.text for s in x.sentences)
