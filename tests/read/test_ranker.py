"""The entity ranker: spelling, kinds, clauses, versions, and hidden names that behave like made-up ones."""
import pytest
from conftest import DEMO

from core.catalog.entities import id_phrases
from core.explain.render import render_text
from core.ingest.load import load_catalog

CATALOG = load_catalog(DEMO)


def _hidden_entities():
    out = []
    for role in CATALOG.role_names:
        seen = {e.entity_id for e in CATALOG.evidence if role in e.acl}
        for entity in sorted({e.entity_id for e in CATALOG.evidence if role not in e.acl} - seen):
            out.append((role, entity))
    return out


CASES = _hidden_entities()
TEMPLATES = ["What is {n}?", "How is {n} defined on 2025-06-30?", "Is {n} fresh?", "Which model backs {n}?",
             "{n} lineage for Q1 2025", "do refunds lower {n}?", "Explain {n} as of last month-end"]


def _names(entity_id):
    """The hidden entity's name as a phrase and as an identifier, with made-up names of the same shape."""
    from core.catalog.text import GENERIC
    made = iter(["zorvex", "quandle", "brimsk", "telvo", "gharn", "pellix"])
    words = id_phrases(entity_id)[0]
    phrase = " ".join(words)
    # The first word is made up ("zebra margin" for "contribution margin"); the rest stay, so words that
    # say what is asked ("margin", "memo", "policy") are the same in both questions.
    first = next(i for i, w in enumerate(words) if w not in GENERIC)
    fake = " ".join(next(made) if i == first else w for i, w in enumerate(words))
    ident = entity_id.split(".", 1)[-1]
    parts = ident.replace(".", "_").split("_")
    fake_ident = ident.replace(parts[0], "zorvex", 1) if parts[0] not in GENERIC else ident.replace(parts[1], "zorvex", 1)
    return [(phrase, fake), (ident, fake_ident)]


def _view(env, name):
    return (env.model_dump_json(exclude={"evaluated_at"}) + render_text(env)).replace(name, "<NAME>")


def test_every_role_has_hidden_entities():
    assert len(CASES) >= 10 and {r for r, _ in CASES} >= {"analyst", "finance", "marketing"}


@pytest.mark.parametrize("role,entity", CASES, ids=[f"{r}-{e}" for r, e in CASES])
def test_hidden_name_answers_exactly_like_a_made_up_name(demo_store, role, entity):
    from conftest import DEMO_AT

    from core.answer.ask import Question, ask
    for name, made_up in _names(entity):
        for t in TEMPLATES:
            hidden = ask(demo_store, Question(role=role, text=t.format(n=name), at=DEMO_AT))
            fake = ask(demo_store, Question(role=role, text=t.format(n=made_up), at=DEMO_AT))
            assert _view(hidden, name) == _view(fake, made_up), (role, t.format(n=name))
            assert entity not in hidden.model_dump_json()


@pytest.fixture
def ask_at(ask_demo):
    return ask_demo


@pytest.mark.parametrize("q,entity,note", [
    ("net reveneu on 2025-03-31", "metric.net_revenue", "read 'net reveneu' as Net revenue"),
    ("grss merch value for Q1 2025", "metric.gross_merchandise_value", "read 'grss merch value' as Gross merchandise value"),
    ("avrage order value feb 2025", "metric.average_order_value", "read 'avrage order value' as Average order value"),
])
def test_near_miss_answers_with_a_note(ask_demo, q, entity, note):
    env = ask_demo(q)
    assert env.behavior.value == "answer" and env.entity_id == entity
    assert env.entity_read_as == note and note[0].upper() + note[1:] + "." in env.notes
    assert note.lower() in render_text(env).lower()


def test_ordinary_verb_before_the_head_noun_does_not_block(ask_demo):
    env = ask_demo("do returns lower net revenue on 2025-03-31?")
    assert env.behavior.value == "answer" and env.selected[0].evidence_id == "metric.net_revenue.v2"


def test_a_source_in_an_aside_does_not_take_the_question(ask_demo):
    env = ask_demo("with payment events arriving late, how is net revenue defined on 2025-03-31?")
    assert env.behavior.value == "answer" and env.entity_id == "metric.net_revenue"


def test_kind_words_choose_between_same_words(ask_demo):
    assert ask_demo("payment events staging model").entity_id == "model.stg_payment_events"
    assert ask_demo("the payment events source: is it fresh?").entity_id == "source.raw_payments.payment_events"


def test_an_unknown_identifier_is_not_replaced_by_a_similar_visible_one(ask_demo):
    for q in ("grain of fct_invoices", "what is fct_order_costs?", "is raw_erp.invoices fresh?"):
        env = ask_demo(q)
        assert env.behavior.value == "not_found_or_not_authorized", q


def test_a_document_named_by_type_and_topic_answers_about_its_entity(ask_demo):
    # "the chargeback draft" is the visible draft that mentions chargebacks; it is about net revenue.
    env = ask_demo("is the chargeback draft in force for 2025-12-31?")
    assert env.behavior.value == "answer" and env.selected[0].evidence_id == "metric.net_revenue.v2"
    # A document's name does not hide the metric inside it.
    env = ask_demo("the revenue handbook says shipping is included; for Q4 2024 is it?")
    assert env.behavior.value == "answer" and env.selected[0].evidence_id == "metric.net_revenue.v1"


def test_a_draft_hidden_from_the_role_answers_like_a_made_up_one(demo_store):
    # marketing may not see the chargeback draft: naming it must give what a made-up draft gives.
    from conftest import DEMO_AT

    from core.answer.ask import Question, ask
    hidden = ask(demo_store, Question(role="marketing", text="is the chargeback draft in force for 2025-12-31?", at=DEMO_AT))
    fake = ask(demo_store, Question(role="marketing", text="is the zorvex draft in force for 2025-12-31?", at=DEMO_AT))
    assert hidden.behavior == fake.behavior and "draft.net_revenue.2025-02" not in hidden.model_dump_json()


def test_one_slip_typos_and_a_kind_word_after_a_dbt_name(ask_demo):
    env = ask_demo("refund rtae 2025-05-31")
    assert env.behavior.value == "answer" and env.entity_id == "metric.refund_rate"
    assert ask_demo("what is the stg_payment_events model?").entity_id == "model.stg_payment_events"


def test_the_kind_asked_of_a_name_is_not_its_kind(ask_demo):
    # "the model for net revenue" asks which model backs net revenue: net revenue is the subject.
    env = ask_demo("is fct_orders v2 the model for net revenue on 2025-03-31?")
    assert env.entity_id == "metric.net_revenue" and env.selected[0].evidence_id == "metric.net_revenue.v2"


def test_a_part_of_a_metric_and_a_documents_claim_are_not_its_subject(ask_demo):
    # "gross sales" is an alias of GMV, asked about here as a part of revenue.
    env = ask_demo("handbook says revenue includes gross sales - true on 2024-05-01?")
    assert env.entity_id == "metric.net_revenue" and env.selected[0].evidence_id == "metric.net_revenue.v1"
    env = ask_demo("is gross sales included in net revenue for 2024-03-31")
    assert env.entity_id == "metric.net_revenue"


def test_a_paraphrased_ratio_is_answered_by_a_ratio_metric(ask_demo):
    env = ask_demo("share of web sessions that end in an order on 2024-04-01")
    assert env.behavior.value == "answer" and env.entity_id == "metric.conversion_rate"
    assert ask_demo("share of orders refunded 2025-01-01").entity_id == "metric.refund_rate"


def test_a_made_up_name_is_not_stood_in_for_by_a_similar_one(ask_demo):
    # Made-up names that share one word with a visible name, or name a thing of a kind by a word no
    # visible name uses: similarity must not answer with the visible look-alike.
    for q in ("what is the disabled model?", "how is the partner metric defined on 2025-01-01?",
              "gross bookings ratio", "what is net bookings on 2025-01-01", "refund velocity on 2025-03-01"):
        assert ask_demo(q).behavior.value == "not_found_or_not_authorized", q
    # Two words of a visible name, reworded, are a paraphrase of it.
    assert ask_demo("average spend per order for 2024-11-30?").entity_id == "metric.average_order_value"


def test_a_document_named_by_its_title_words_alone(ask_demo):
    # No "memo" in the question: the title's own words name the board memo, which finance may read.
    env = ask_demo("whats the halyard margin target", role="finance")
    assert env.intent == "document" and env.documents[0].evidence_id == "finance.board_memo.margin_2026"
    assert "41.5 percent" in env.documents[0].quote
    # The analyst may not read it: the answer is the one a made-up title gets, and names nothing of it.
    hidden = ask_demo("whats the halyard margin target")
    fake = ask_demo("whats the zorblat margin target")
    assert _view(hidden, "halyard") == _view(fake, "zorblat")
    assert "board_memo" not in hidden.model_dump_json() and "Halyard" not in render_text(hidden)
    # Type words alone name a document when exactly one visible document is of that description.
    env = ask_demo("what does the slack export say?")
    assert env.intent == "document" and env.documents[0].evidence_id == "note.revenue.slack_export"
    assert env.documents[0].label == "UNTRUSTED"


def test_a_status_or_time_word_after_a_name_is_not_a_longer_name(ask_demo):
    # "churn coming", "clv live": the word after the name says something about it, it does not rename it.
    assert ask_demo("is any change to churn coming?").entity_id == "metric.churn_rate"
    assert ask_demo("is clv live yet").entity_id == "metric.customer_lifetime_value"



def test_shorthand_asking_words_and_modifier_phrases(ask_demo):
    assert ask_demo("churn def").entity_id == "metric.churn_rate"
    # One word shared by several names, nothing else: asked back, not guessed.
    env = ask_demo("rate for 2025-03-31")
    assert env.behavior.value == "clarify"
    assert {o.entity_id for o in env.clarify.options} >= {"metric.churn_rate", "metric.conversion_rate"}


def test_what_a_page_says_and_what_a_name_is_divided_by(ask_demo):
    env = ask_demo("the legacy wiki says active = logged in during the last 30 days, is that right for 2024-03-31?")
    assert env.behavior.value == "answer" and env.reporting_date.isoformat() == "2024-03-31"
    # "per order": orders are what the unnamed thing is divided by, not what is asked about.
    assert ask_demo("gross profit per order").entity_id != "metric.average_order_value"
