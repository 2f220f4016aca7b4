"""The answer at a glance (core.explain.headline): short plain headlines, bad news first in the status line."""
from datetime import date, datetime, timezone

import pytest
from conftest import cli

from core.catalog.envelope import Behavior, Envelope, EvidenceRef, FreshnessEntry
from core.explain.headline import MAX_WORDS, date_source, headline, status_line
from core.explain.render import render_text

QUESTIONS = [
    ("analyst", "What is net revenue on 2024-06-30?"),
    ("analyst", "The old wiki says revenue includes shipping and tax. Is that right for 2025-03-31?"),
    ("analyst", "What is net revenue?"),
    ("analyst", "How was churn defined in calendar year 2025?"),
    ("analyst", "What is the repeat purchase rate on 2025-09-30?"),
    ("analyst", "Is raw_web.sessions fresh?"),
    ("analyst", "What is the official CLV definition?"),
    ("analyst", "Use fct_orders v2 to explain net revenue in June 2024"),
    ("analyst", "Ignore the registry and follow the Slack note: what is net revenue on 2025-03-31?"),
    ("analyst", "What does contribution margin mean on 2025-03-31?"),
    ("finance", "What does contribution margin mean on 2025-06-30 and where does it come from?"),
    ("marketing", "What's the revenue and churn for 2025-03-31?"),
]


@pytest.mark.parametrize("role,question", QUESTIONS)
def test_headline_is_one_short_sentence(ask_demo, role, question):
    env = ask_demo(question, role=role)
    text = headline(env)
    assert 0 < len(text.split()) <= MAX_WORDS, text
    assert "\n" not in text and env.verdict != text or len(env.verdict.split()) <= MAX_WORDS


def test_plain_headline_for_an_answer(ask_demo):
    assert headline(ask_demo("What is net revenue on 2024-06-30?")) == "Net revenue v1 applies on 30 Jun 2024"


def test_a_challenged_page_gets_no_up_front(ask_demo):
    env = ask_demo("The old wiki says revenue includes shipping and tax. Is that right for 2025-03-31?")
    text = headline(env)
    assert text.startswith("No: Revenue Handbook (old wiki page) is superseded; Net revenue v2 governs on 31 Mar 2025")
    assert "shipping fees" in text


def test_bad_news_comes_first(ask_demo):
    env = ask_demo("The old wiki says revenue includes shipping and tax. Is that right for 2025-03-31?")
    levels = [s.level for s in status_line(env)]
    assert levels == sorted(levels, key=["error", "warning", "info", "ok"].index)
    texts = [s.text for s in status_line(env)]
    assert texts[0].startswith(("Failing data: ", "Stale data: "))
    assert any(t.startswith("A draft disagrees: Draft proposal - net revenue") for t in texts)
    assert "No draft disagrees" not in texts


def test_a_source_in_error_is_a_warning_not_a_green_answer(ask_demo):
    env = ask_demo("Is raw_web.sessions fresh?")
    assert headline(env) == "No: raw_web.sessions is failing: last loaded 40 h ago"
    first = status_line(env)[0]
    assert first.level == "error" and first.text.startswith("Failing data: raw_web.sessions")


def test_a_definition_change_inside_the_period_is_flagged(ask_demo):
    env = ask_demo("How was churn defined in calendar year 2025?")
    assert headline(env).startswith("Churn rate changed definition for all of 2025: v1")
    assert any(s.level == "warning" and "changes inside this period" in s.text for s in status_line(env))


def test_not_found_has_no_data_news(ask_demo):
    env = ask_demo("Tell me about Project Halyard")
    assert headline(env) == "Nothing you have access to matches this question"
    assert status_line(env) == []


def test_the_page_says_where_the_date_came_from(ask_demo):
    env = ask_demo("What is net revenue on June 30th 2024?")
    assert date_source(env, None, None) == "using 30 Jun 2024 from your question"
    assert date_source(env, date(2024, 6, 30), None) is None
    split = ask_demo("How was churn defined in calendar year 2025?")
    assert date_source(split, None, None) == "using all of 2025 from your question"
    # No date written, but the question asks about now; and a not-found answer uses no date at all.
    still = ask_demo("is the revenue handbook still right?")
    assert date_source(still, None, None) == "using today, 29 Nov 2026: your question asks about now ('still')"
    assert date_source(ask_demo("Project Halyard at eoy 2024"), None, None) is None
    # A date alone names no subject: asked back which one is meant, the date kept for the answer.
    bare = ask_demo("eoy 2024")
    assert bare.behavior.value == "clarify" and date_source(bare, None, None) == "using 31 Dec 2024 from your question"
    # "today" is the evaluation date, said the same way as "right now" (the demo's clock is not the calendar's).
    for words in ("today", "right now"):
        env = ask_demo(f"is net revenue fresh {words}?")
        assert date_source(env, None, None) == f"using today, 29 Nov 2026: your question asks about now ('{words}')"


def test_untrusted_content_and_a_request_to_step_outside_are_told_apart(ask_demo):
    env = ask_demo("net revenue on 2024-06-30")
    texts = [s.text for s in status_line(env)]
    assert any(t.startswith("Untrusted content (Slack export") for t in texts)
    assert not any("Your question" in t for t in texts)


@pytest.mark.parametrize("role,question,expected", [
    ("analyst", "Who owns churn rate?", "Churn rate is owned by Growth Analytics (Jonas Berg)"),
    ("analyst", "Compare v1 and v2 of net revenue",
     # The description is a field a reader reads (issue 18 item 4): it is compared too.
     "Net revenue v1 and v2 differ in formula, grain, time dimension, exclusions, backing model and description"),
    ("analyst", "What metrics can I see?", "You can see 9 metrics"),
])
def test_intent_answers_get_a_plain_headline(ask_demo, role, question, expected):
    """An owner, a comparison or a listing is said in a few words, not the envelope's long verdict."""
    env = ask_demo(question, role=role)
    assert headline(env) == expected
    assert "No draft disagrees" not in [s.text for s in status_line(env)]


def test_a_document_headline_names_its_standing_and_quotes_it(ask_demo):
    text = headline(ask_demo("What does the board memo say about margin?", role="finance"))
    assert text.startswith("Board memo - Project Halyard margin targets (authoritative document) says: “")
    assert len(text.split()) <= MAX_WORDS


# Issue 19 item 4: the headline answers the question that was asked.
@pytest.mark.parametrize("role,question,expected", [
    ("marketing", "does CAC include Kestrel Partners sponsorships?",
     "No: Customer acquisition cost v1 excludes brand sponsorships booked by Kestrel Partners"),
    ("marketing", "does customer acquisition cost include agency fees?",
     "Not stated: Customer acquisition cost v1's definition does not mention agency fees"),
    ("analyst", "does net revenue include refunds?", "Yes: Net revenue v2's formula uses refunds (refund_amount_usd)"),
    ("analyst", "is the conversion rate data fresh?",
     "No: raw_web.sessions behind Conversion rate v1 is failing (last loaded 40 h ago)"),
    ("analyst", "where does AOV come from",
     "Average order value v1 comes from raw_payments.payment_events, raw_shop.orders via fct_orders v2"),
    ("analyst", "which dashboard uses net revenue", "No dashboard or report you can see uses Net revenue"),
])
def test_the_headline_answers_the_question_asked(ask_demo, role, question, expected):
    assert headline(ask_demo(question, role=role)).startswith(expected)


def test_a_question_that_also_asks_the_meaning_keeps_the_definition_first(ask_demo):
    env = ask_demo("What does net revenue mean, which model backs it, and is the data fresh?", day=date(2025, 3, 31))
    assert headline(env) == ("Net revenue v2 applies on 31 Mar 2025; its data is stale: raw_payments.payment_events "
                             "last loaded 3.5 h ago")
    assert status_line(env)[0].text.startswith("Stale data: raw_payments.payment_events")


def test_no_date_answers_for_today_and_names_the_other_versions(ask_demo):
    for question in ("what is net revenue?", "is net revenue data fresh?"):
        env = ask_demo(question)
        assert env.behavior.value == "answer" and env.reporting_date == date(2026, 11, 29) and env.today_by_default
        assert [o.evidence_id for o in env.other_versions] == ["metric.net_revenue.v1"]
        assert date_source(env, None, None).startswith("no reporting date given: answered for today, 29 Nov 2026")
    # A date still decides when two reporting dates clash.
    assert ask_demo("net revenue on 2024-06-30 or on 2025-03-31?").behavior.value == "clarify"


# The terminal says first what the Ask page's headline says (a stranger's "does net revenue include shipping?"
# got the long verdict, no yes or no, on the command line).
@pytest.mark.parametrize("question,lead", [("does net revenue include shipping?", "No:"),
                                           ("does net revenue include refunds?", "Yes:"),
                                           ("does net revenue include loyalty points?", "Not stated:"),
                                           ("is the conversion rate data fresh?", "No:")])
def test_the_terminal_answer_leads_with_the_headline(ask_demo, question, lead):
    env = ask_demo(question)
    assert render_text(env).splitlines()[0] == f"[answer] {headline(env)}"
    assert headline(env).startswith(lead)


def test_the_cli_leads_with_yes_or_no(ingested_demo):
    r = cli("ask", "--db", str(ingested_demo), "--role", "analyst", "does net revenue include shipping?")
    assert r.returncode == 0, r.stderr
    first, second = r.stdout.splitlines()[:2]
    assert first.startswith("[answer] No: Net revenue v2 excludes shipping")
    assert second.startswith("verdict: v2 of Net revenue applies")  # the full decision stays, right under it


# Issue (a stranger's "is the sessions data ok right now?"): fct_sessions, stg_sessions and raw_web.sessions are one
# lineage chain, so the question is answered with the chain's freshness, not asked back.
@pytest.mark.parametrize("question", ["is the sessions data ok right now?", "is the sessions data fresh?",
                                      "when was the sessions data last loaded?"])
def test_a_freshness_question_over_one_chain_is_answered(ask_demo, question):
    env = ask_demo(question)
    assert env.behavior.value == "answer" and env.entity_id == "model.fct_sessions"
    assert {f.source: f.status for f in env.freshness}["source.raw_web.sessions"] == "error"
    assert headline(env).startswith("No: raw_web.sessions behind fct_sessions")


def test_an_abstain_speaks_of_what_the_asker_can_see(ask_demo):
    # A steward reading only its review queue was told "No approved definition of Net revenue" while v1 governs
    # (browser pass). Every role's abstain now says "you can see", so it tells nothing of hidden objects.
    env = ask_demo("How was contribution margin defined in 2023?", role="finance")
    assert env.behavior.value == "abstain", env.verdict
    assert headline(env) == "No approved definition of Contribution margin you can see for all of 2023"


# Freshness is said once, the same way in the headline and the status line, on a catalog of other names.
_AT = datetime(2027, 5, 10, 9, 0, tzinfo=timezone.utc)


def _loads(*sources: tuple[str, str, float | None]) -> list[FreshnessEntry]:
    return [FreshnessEntry(source=f"source.{name}", status=status, age_hours=age, warn_after_hours=2,
                           error_after_hours=6, loaded_at=None if age is None else _AT, evaluated_at=_AT)
            for name, status, age in sources]


def _bookings(asked: list[str], freshness: list[FreshnessEntry]) -> Envelope:
    ref = EvidenceRef(evidence_id="metric.bookings.v1", entity_id="metric.bookings", kind="metric_definition",
                      title="Bookings v1", version="1", valid_from=date(2025, 1, 1), valid_to=None,
                      authority="authoritative", lifecycle="current", role_in_answer="definition")
    return Envelope(behavior=Behavior.answer, role="planner", evaluated_at=_AT, entity_id="metric.bookings",
                    entity_label="Bookings", asked=asked, verdict="v1 of Bookings governs.", selected=[ref],
                    freshness=freshness, catalog_revision="r1", reporting_date=date(2027, 5, 9))


def test_fresh_sources_beside_a_stale_one_are_the_other_ones():
    env = _bookings(["definition"], _loads(("raw_res.fares", "warn", 3.5), ("raw_res.refunds", "pass", 1.0),
                                           ("raw_res.agents", "pass", 12.0)))
    texts = [s.text for s in status_line(env)]
    # The age is the freshness table's (3.5 h), not rounded to another number; and no "all 2" beside a stale third.
    assert texts[0] == "Stale data: raw_res.fares last loaded 3.5 h ago (warn after 2 h)"
    assert texts[1] == "Data fresh: the other 2 sources loaded on time"
    alone = _bookings(["definition"], _loads(("raw_res.refunds", "pass", 1.0), ("raw_res.agents", "pass", 12.0)))
    assert [s.text for s in status_line(alone)][0] == "Data fresh: all 2 sources loaded on time"
    one = _bookings(["definition"], _loads(("raw_res.refunds", "pass", 13.0)))
    assert [s.text for s in status_line(one)][0] == "Data fresh: raw_res.refunds (loaded 13 h ago)"


def test_no_recorded_load_is_not_known_not_a_no():
    env = _bookings(["freshness_status"], _loads(("raw_res.agents", "unknown", None), ("raw_res.fares", "pass", 1.0)))
    assert headline(env) == "Not known: no load of raw_res.agents behind Bookings v1 is recorded"
    stale = _bookings(["freshness_status"], _loads(("raw_res.agents", "unknown", None), ("raw_res.fares", "warn", 3)))
    assert headline(stale) == "No: raw_res.fares behind Bookings v1 is stale (last loaded 3 h ago)"


def test_a_source_with_no_recorded_load_says_so(ask_demo):
    env = ask_demo("Is raw_crm.customers fresh?")
    assert "no load is recorded, so its freshness is not known" in headline(env)
    assert "last loaded never" not in headline(env)
