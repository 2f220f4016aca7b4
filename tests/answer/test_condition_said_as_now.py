"""A listing's condition said as holding now ("still drafts", "currently deprecated", "drafts yet", "still in draft",
"stale right now") is the same listing as the condition said plainly (core/read/intents/listing_filter.py STILL):
the analyst's "which documents are still drafts?" read as naming nothing and was answered not found, and "which
documents are drafts yet?" listed documents about "yet". On the demo, per role, against the plain wording's answer."""
import pytest
from conftest import listed

from core.catalog.envelope import Behavior

DRAFTS_NOW = ["which documents are still drafts?", "which documents are currently drafts?",
              "what documents are drafts yet?", "which documents are still in draft?", "which docs are in draft?",
              "are any documents still drafts?", "which documents are presently drafts?"]


@pytest.mark.parametrize("role", ["analyst", "marketing", "finance"])
@pytest.mark.parametrize("text", DRAFTS_NOW)
def test_drafts_said_as_still_list_the_drafts_the_role_sees(ask_demo, text, role):
    plain = ask_demo("which documents are drafts?", role)
    env = ask_demo(text, role)
    assert env.behavior is Behavior.answer, (text, env.verdict)
    assert listed(env) == listed(plain) != [], (text, env.verdict)
    assert env.listing.topic == [] and env.listing.checked == plain.listing.checked, (text, env.verdict)


@pytest.mark.parametrize("text, plain", [
    ("which metrics are currently deprecated?", "which metrics are deprecated?"),
    ("which metrics are still drafts?", "which metrics are drafts?"),
    ("which sources are currently stale?", "which sources are stale?"),
    ("which metrics have no owner yet?", "which metrics have no owner?"),
])
def test_other_conditions_said_as_now_are_the_plain_listing(ask_demo, text, plain):
    env, want = ask_demo(text), ask_demo(plain)
    assert env.behavior is Behavior.answer and env.verdict == want.verdict, (text, env.verdict)
