"""A question asking what a metric is and whether its data is fresh gets both in the headline: marketing's "what is
the conversion rate and is its data fresh?" said only the definition (raw_web.sessions failing was left to the status
line), and "what is the average order value and is its data fresh?" read no definition asked (the name does not end
in "rate" or "revenue") and answered a bare "No: ..." to a question that asked what it is. The clause asking what it
is is read whatever the name (core/read/intents/intent.py asks_what_it_is), and the headline adds the verdict after
the definition (core/explain/headline.py _data_verdict). On the demo."""
import pytest

from core.explain.headline import headline

FAILING = "its data is failing: raw_web.sessions last loaded 40 h ago"
STALE = "its data is stale: raw_payments.payment_events last loaded 3.5 h ago"


@pytest.mark.parametrize("text, start, verdict", [
    ("what is the conversion rate and is its data fresh?", "Conversion rate v1", FAILING),
    ("what does conversion rate mean and is it fresh?", "Conversion rate v1", FAILING),
    ("what's the conversion rate, and is the data up to date?", "Conversion rate v1", FAILING),
    ("what is the average order value and is its data fresh?", "Average order value v1", STALE),
    ("what is AOV and is the data stale?", "Average order value v1", STALE),
    ("what is gross merchandise value, and is it fresh?", "Gross merchandise value v1", STALE),
])
def test_what_it_is_and_whether_fresh_both_lead(ask_demo, text, start, verdict):
    said = headline(ask_demo(text, "marketing"))
    assert said.startswith(start) and said.endswith(verdict), (text, said)
    assert not said.startswith(("No", "Yes")), (text, said)


@pytest.mark.parametrize("text", ["is the average order value data fresh?", "is conversion rate fresh?",
                                  "what's stale about net revenue?"])
def test_freshness_asked_alone_is_answered_yes_or_no(ask_demo, text):
    said = headline(ask_demo(text, "marketing"))
    assert said.startswith(("No: ", "Yes: ")) and "approved definition" not in said, (text, said)
