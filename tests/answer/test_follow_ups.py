"""A working session: a question that names no subject of its own continues from the asker's last answer, its
subject and its dates, and says so; a question naming its own subject starts afresh; nothing carries across roles,
principals or after a long pause. On a ferry operator's catalog (tests/ferry_catalog.py), through the CLI's batch
and the MCP server's conversations as well as the pure rule."""
import json
from datetime import date

import pytest
from conftest import build, cli
from ferry_catalog import AT, EVIDENCE, ROLES, shown
from visits_catalog import write_yaml_catalog

from core.answer.ask import Question, ask
from core.answer.conversation import MAX_AGE_S, Conversations, follow
from core.catalog.envelope import Behavior
from core.serve.audit import audit_path


@pytest.fixture(scope="module")
def ferry(tmp_path_factory, embedder):
    root = tmp_path_factory.mktemp("ferry_follow")
    return build(root, "ferry", write_yaml_catalog(root / "catalog", ROLES, EVIDENCE, AT), embedder)


class Session:
    """One asker's session: the last turn, and a clock the test moves."""

    def __init__(self, ferry, role="dispatcher", principal="odile"):
        self.store, self.searcher = ferry
        self.role, self.principal, self.turn, self.now = role, principal, None, 1000.0

    def ask(self, text: str, role: str | None = None, principal: str | None = "same"):
        who = self.principal if principal == "same" else principal
        q = Question(role=role or self.role, text=text, at=AT)
        _, env, self.turn = follow(q, self.turn, who, lambda x: ask(self.store, x, searcher=self.searcher),
                                   clock=lambda: self.now)
        return env


def test_a_follow_up_carries_the_subject_and_its_dates_and_says_so(ferry):
    s = Session(ferry)
    first = s.ask("what was fare revenue in 2024?")
    assert first.entity_id == "metric.fare_revenue" and first.selected[0].evidence_id == "metric.fare_revenue.v1"
    later = s.ask("and for 2025?")  # its own dates, the last subject
    assert later.entity_id == "metric.fare_revenue" and later.selected[0].evidence_id == "metric.fare_revenue.v2"
    assert later.notes[0] == "Continuing with Fare revenue from your last question"
    pronoun = s.ask("is it fresh?")  # no dates of its own: the last answer's period too
    assert pronoun.entity_id == "metric.fare_revenue" and pronoun.period_start == date(2025, 1, 1)
    assert pronoun.notes[0] == "Reading 'it' as Fare revenue for 2025-01-01 to 2025-12-31 from your last question"
    where = s.ask("where does that come from?")
    assert where.entity_id == "metric.fare_revenue" and where.notes[0].startswith("Reading 'that' as Fare revenue")
    # Naming its own subject starts afresh, and becomes what the next follow-up continues from.
    other = s.ask("what about seated passengers?")
    assert other.entity_id == "metric.seated_passengers" and not any("last question" in n for n in other.notes)
    assert s.ask("and who owns it?").entity_id == "metric.seated_passengers"


def test_a_made_up_subject_is_not_found_never_the_last_one(ferry):
    s = Session(ferry)
    s.ask("what is fare revenue?")
    made_up = s.ask("what about crew overtime?")
    assert made_up.behavior is Behavior.not_found_or_not_authorized and made_up.entity_id is None
    assert "Fare revenue" not in shown(made_up)


def test_nothing_carries_across_roles_principals_or_a_long_pause(ferry):
    s = Session(ferry, role="purser")
    assert s.ask("what is the boarding fee?").entity_id == "metric.passenger_boarding_fee"
    # The dispatcher may not see the purser-only fee: a follow-up as the dispatcher neither answers it nor names it.
    switched = s.ask("is it fresh?", role="dispatcher")
    assert switched.behavior is Behavior.clarify and switched.entity_id is None
    assert "boarding" not in shown(switched).lower()
    s = Session(ferry)
    s.ask("what is fare revenue?")
    assert s.ask("is it fresh?", principal="someone-else").behavior is Behavior.clarify
    s = Session(ferry)
    s.ask("what is fare revenue?")
    s.now += MAX_AGE_S + 1
    assert s.ask("is it fresh?").behavior is Behavior.clarify


def test_the_cli_batch_continues_lines_that_say_they_follow_on(ferry, tmp_path):
    store, _ = ferry
    lines = [{"question": "what was fare revenue in 2024?", "role": "dispatcher"},
             {"question": "and for 2025?", "role": "dispatcher", "follows_on": True},
             {"question": "is it fresh?", "role": "dispatcher"},  # does not say it follows on: asked back
             {"question": "is it fresh?", "role": "purser", "follows_on": True}]  # another role: asked back
    batch = tmp_path / "b.jsonl"
    batch.write_text("\n".join(json.dumps(x) for x in lines))
    r = cli("ask", "--db", str(store.path), "--batch", str(batch), "--at", AT.isoformat())
    assert r.returncode == 0, r.stderr
    out = [json.loads(x) for x in r.stdout.splitlines()]
    assert [o["entity_id"] for o in out] == ["metric.fare_revenue", "metric.fare_revenue", None, None]
    assert out[1]["selected"][0]["evidence_id"] == "metric.fare_revenue.v2"
    assert out[1]["notes"][0] == "Continuing with Fare revenue from your last question"
    # The audit record keeps what was carried, so the answer replays as it was given.
    records = [json.loads(x) for x in audit_path(store.path).read_text().splitlines() if x.strip()]
    carried = [r["inputs"] for r in records if r.get("inputs", {}).get("carried")]
    assert len(carried) == 1 and carried[0]["entity"] == "metric.fare_revenue" and carried[0]["question"] == \
        "and for 2025?"
    record = next(r for r in records if r.get("inputs", {}).get("carried"))
    replayed = cli("audit", "replay", record["id"], "--db", str(store.path))
    assert replayed.returncode == 0 and "REPRODUCED" in replayed.stdout, replayed.stdout + replayed.stderr
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"question": "and for 2025?", "role": "dispatcher", "follows_on": "yes"}))
    r = cli("ask", "--db", str(store.path), "--batch", str(bad))
    assert r.returncode == 2 and "line 1" in r.stderr and "follows_on" in r.stderr


def test_mcp_conversations_are_kept_apart_by_id_and_principal(ferry):
    from core.serve import mcp_tools as tools
    from core.serve.mcp_auth import Identity
    from core.serve.mcp_server import CatalogHolder
    from core.settings.config import Settings
    store, _ = ferry
    cat = CatalogHolder(store.path, Settings()).current()
    memory = Conversations()
    odile, nils = (Identity(principal=p, role="dispatcher", resolved="test") for p in ("odile", "nils"))

    def ask_in(who, text, conversation):
        (body, env), inputs = tools.ask_tool(cat, who, text, None, None, AT, None, conversation, memory)
        return body, env, inputs

    ask_in(odile, "what was fare revenue in 2024?", "c1")
    ask_in(odile, "what about seated passengers?", "c2")
    body, env, inputs = ask_in(odile, "and for 2025?", "c1")
    assert env.entity_id == "metric.fare_revenue" and "Fare revenue" in body["headline"]
    assert inputs["entity"] == "metric.fare_revenue" and inputs["carried"] == env.notes[0]
    assert ask_in(odile, "who owns it?", "c2")[1].entity_id == "metric.seated_passengers"
    # Another principal using the same conversation id starts afresh.
    assert ask_in(nils, "is it fresh?", "c1")[1].behavior is Behavior.clarify
    # Without a conversation id nothing is remembered.
    assert ask_in(odile, "is it fresh?", None)[1].behavior is Behavior.clarify


def test_one_busy_principal_never_evicts_another_principals_thread(ferry):
    """Issue 47 item 5: a client opening thousands of conversations forgets its own oldest, never another
    principal's thread: odile's 'and for 2025?' still continues her fare revenue question."""
    from core.answer.conversation import MAX_CONVERSATIONS
    from core.serve import mcp_tools as tools
    from core.serve.mcp_auth import Identity
    from core.serve.mcp_server import CatalogHolder
    from core.settings.config import Settings
    store, _ = ferry
    cat = CatalogHolder(store.path, Settings()).current()
    memory = Conversations()
    odile, nils = (Identity(principal=p, role="dispatcher", resolved="test") for p in ("odile", "nils"))

    def ask_in(who, text, conversation):
        return tools.ask_tool(cat, who, text, None, None, AT, None, conversation, memory)[0][1]

    ask_in(odile, "what was fare revenue in 2024?", "budget")
    ask_in(nils, "what about seated passengers?", "n0")
    busy = memory.last("nils", "n0")
    for n in range(1, 2 * MAX_CONVERSATIONS):  # a script opening a conversation per call
        memory.remember("nils", f"n{n}", busy)
    env = ask_in(odile, "and for 2025?", "budget")
    assert env.entity_id == "metric.fare_revenue" and env.period_start.year == 2025
    assert memory.last("nils", "n0") is None and memory.last("nils", f"n{2 * MAX_CONVERSATIONS - 1}") is busy
    assert sum(memory.last("nils", f"n{n}") is not None for n in range(2 * MAX_CONVERSATIONS)) < MAX_CONVERSATIONS
