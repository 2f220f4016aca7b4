"""A subject named with words the role's catalog never uses ("how much do we charge to board a passenger (PBF)?"
when the boarding fee is hidden, or "passenger boarding fee" itself) is not found, exactly like a made-up one: a
visible metric sharing only a head noun ("Seated passengers") must not stand in for it, by the bare head noun or by
similarity. On the ferry catalog (tests/ferry_catalog.py), with none of the demo's names."""
from __future__ import annotations

import pytest
from ferry_catalog import ask_ferry, not_found, shown  # noqa: F401  (ask_ferry is the fixture)

from core.catalog.envelope import Behavior

# ---- a subject no visible name covers is not stood in for by a head noun ------------------------------------

@pytest.mark.parametrize("question", [
    "how much do we charge to board a passenger (PBF)?",
    "how much do we charge to board a passenger?",
    "what do we charge per passenger at boarding on 2025-06-30?",
])
def test_a_hidden_subject_is_not_found_not_the_head_nouns_metric(ask_ferry, question):
    env = ask_ferry(question, "dispatcher")
    text = not_found(env)
    assert "Seated passengers" not in text and "boarding fee" not in shown(env).lower()
    # The hidden metric and a made-up one read the same: nothing says the boarding fee exists.
    made_up = ask_ferry(question.replace("PBF", "QZX").replace("board", "quorble"), "dispatcher")
    assert text == not_found(made_up)


@pytest.mark.parametrize("hidden, made_up", [
    ("what does passenger boarding fee mean on 2025-06-30?", "what does passenger zorvex fee mean on 2025-06-30?"),
    ("how is the passenger boarding fee defined?", "how is the passenger quorble fee defined?"),
])
def test_a_name_that_begins_with_a_head_noun_is_not_its_look_alike(ask_ferry, hidden, made_up):
    """"passenger boarding fee": "passengers" is Seated passengers' head noun, and similarity finds it close; the
    name goes on with words no visible name uses, so it names something else, found or not as a made-up one is."""
    env = ask_ferry(hidden, "dispatcher")
    text = not_found(env)
    assert "Seated passengers" not in text and "boarding fee" not in shown(env).lower().replace(hidden.lower(), "")
    assert text == not_found(ask_ferry(made_up, "dispatcher"))


def test_the_role_that_sees_the_subject_gets_it(ask_ferry):
    for question in ("how much do we charge to board a passenger (PBF)?", "what is the pbf on 2025-06-30?",
                     "what does passenger boarding fee mean on 2025-06-30?"):
        env = ask_ferry(question, "purser")
        assert env.behavior is Behavior.answer and env.entity_id == "metric.passenger_boarding_fee", question


@pytest.mark.parametrize("question", ["passengers definition", "what does passengers mean on 2025-06-30?",
                                      # words nothing visible uses, in an aside: circumstances, not the subject
                                      "with the timetable delayed, how are passengers defined?",
                                      "how is seated passengers defined across the fleet?"])
def test_a_head_noun_alone_or_the_name_still_answers(ask_ferry, question):
    env = ask_ferry(question, "dispatcher")
    assert env.behavior is Behavior.answer and env.entity_id == "metric.seated_passengers", (question, env.verdict)


def test_demo_an_analyst_asking_for_cac_is_not_answered_with_active_customers(ask_demo):
    """The reading reported on the demo: CAC is finance's and marketing's only."""
    env = ask_demo("how much do we spend to acquire a customer (CAC)?", role="analyst")
    text = not_found(env)
    assert "Active customers" not in text and "acquisition" not in shown(env).lower()
    assert text == not_found(ask_demo("how much do we spend to acquire a customer (ZQX)?", role="analyst"))
    env = ask_demo("how much do we spend to acquire a customer (CAC)?", role="marketing")
    assert env.entity_id == "metric.customer_acquisition_cost"
