"""A conversation about time (issue 45), on a lido's catalog and warehouse the test builds (tests/lido_catalog.py),
through core, the CLI's --batch with follows_on and MCP conversations: one answer on every surface (the envelope
carries the page's headline; MCP `ask` computes values with the server's warehouse)."""
from __future__ import annotations

import json

import pytest
from conftest import cli
from lido_catalog import AT, build

from core.answer.conversation import Conversations
from core.explain.headline import headline


@pytest.fixture(scope="module")
def lido(tmp_path_factory):
    return build(tmp_path_factory.mktemp("lido_talk"))


@pytest.fixture(scope="module")
def mcp(lido):
    from core.serve import mcp_tools as tools
    from core.serve.mcp_auth import Identity
    from core.serve.mcp_server import CatalogHolder
    from core.settings.config import Settings
    store, wh = lido
    cat = CatalogHolder(store.path, Settings(warehouse_path=wh)).current()
    memory = Conversations()
    who = Identity(principal="maren", role="lifeguard", resolved="test")

    def ask_in(text, conversation="c1"):
        (body, env), _ = tools.ask_tool(cat, who, text, None, None, AT, None, conversation, memory)
        return body, env
    return ask_in


def _batch(lido, tmp_path, lines):
    store, wh = lido
    batch = tmp_path / "b.jsonl"
    batch.write_text("\n".join(json.dumps({"role": "lifeguard", **x}) for x in lines))
    r = cli("ask", "--db", str(store.path), "--batch", str(batch), "--at", AT.isoformat(), "--warehouse", str(wh))
    assert r.returncode == 0, r.stderr
    return [json.loads(x) for x in r.stdout.splitlines()]


def test_the_json_envelope_carries_the_pages_headline(lido, tmp_path):
    out = _batch(lido, tmp_path, [{"question": "ticket sales in Q2 2027"},
                                  {"question": "and in Q3 2027?", "follows_on": True}])
    assert out[0]["headline"] == "Ticket sales was $150.00 in Q2 2027 under v1"
    assert out[1]["headline"] == "Ticket sales was $240.00 in Q3 2027 under v1"
    store, wh = lido
    r = cli("ask", "--db", str(store.path), "--role", "lifeguard", "--json", "--at", AT.isoformat(),
            "--warehouse", str(wh), "pass holders in 2027 by month")
    assert json.loads(r.stdout)["headline"] == "Pass holders was 219 customers at the end of 2027 under v2; 12 months below"


def test_mcp_ask_computes_values_with_the_servers_warehouse(mcp):
    body, env = mcp("ticket sales in Q2 2027")
    assert [v.value for v in env.values.values] == [150.0]
    assert body["headline"] == body["envelope"]["headline"] == headline(env) == \
        "Ticket sales was $150.00 in Q2 2027 under v1"


@pytest.fixture(scope="module")
def ask_lido(lido):
    from core.answer.ask import Question, ask
    from core.compute.engine import DuckDBEngine
    store, wh = lido
    engine = DuckDBEngine(wh)

    def _ask(text, role="lifeguard"):
        return ask(store, Question(role=role, text=text, at=AT), engine=engine)
    return _ask


def test_the_catalogs_own_changes_list_the_versions_starting_in_the_span(ask_lido):
    env = ask_lido("which metrics changed definition in 2027?")
    assert env.behavior.value == "answer" and [i.label for i in env.listing.items] == ["Pass holders"]
    assert "Pass holders v2 from 1 Jan 2027, after v1" in env.verdict
    assert env.listing.checked == 4  # the lifeguard's four metrics: the cashier's till float is not counted
    assert "Till float" not in env.verdict and "till" not in headline(env).lower()
    assert [i.label for i in ask_lido("which metrics changed definition in 2027?", "cashier").listing.items] == \
        ["Pass holders", "Till float"]
    coming = ask_lido("what changes are coming?")
    assert [i.label for i in coming.listing.items] == ["Pool temperature", "Ticket sales"]
    assert "Pool temperature v2 from 1 Jun 2028 (still to come), after v1" in coming.verdict
    assert "Ticket sales draft v2 proposed from 1 Sep 2028" in coming.verdict  # proposed, not approved
    assert headline(coming).startswith("2 of the 9 definitions you can see will change after 8 Mar 2028")
    since = ask_lido("what changed since last month?")
    assert since.behavior.value == "answer" and not since.listing.items
    assert headline(since) == "None of the 9 definitions you can see changed from 1 Feb 2028 to 8 Mar 2028"
    assert [i.label for i in ask_lido("what has changed since 2026?").listing.items] == ["Pass holders"]
    # naming a subject of its own is that subject's comparison, not the catalog's changes; one the role cannot see
    # is not found, as a made-up one is
    assert ask_lido("what changed in pass holders in 2027?").comparison is not None
    for subject in ("till float", "crew overtime"):
        assert ask_lido(f"what changed in {subject} in 2027?").behavior.value == "not_found_or_not_authorized"


class Session:
    """One asker's session on the lido catalog, through the pure rule (core/answer/conversation.py)."""

    def __init__(self, ask_lido):
        self.ask_lido, self.turn = ask_lido, None

    def ask(self, text):
        from core.answer.ask import Question
        from core.answer.conversation import follow
        q = Question(role="lifeguard", text=text, at=AT)
        _, env, self.turn = follow(q, self.turn, "maren", lambda x: self.ask_lido.ask(x), clock=lambda: 1.0)
        return env


@pytest.fixture(scope="module")
def session(lido):
    from core.answer.ask import ask
    from core.compute.engine import DuckDBEngine
    store, wh = lido
    engine = DuckDBEngine(wh)

    class Asker:
        pass
    asker = Asker()
    asker.store, asker.ask = store, lambda q: ask(store, q, engine=engine)
    return lambda: Session(asker)


def test_a_follow_up_moves_the_period_on_the_table_not_the_clock_and_keeps_the_value(session):
    s = session()
    assert headline(s.ask("ticket sales in Q2 2027")) == "Ticket sales was $150.00 in Q2 2027 under v1"
    before = s.ask("and the quarter before?")
    assert headline(before) == "Ticket sales was $60.00 in Q1 2027 under v1"
    assert before.notes[0] == ("Continuing with Ticket sales for 2027-01-01 to 2027-03-31 ('the quarter before' "
                               "2027-04-01 to 2027-06-30) from your last question")
    # "last year" is the year before the period on the table (Q1 2027), not the clock's (2027 itself)
    versus = s.ask("vs last year?")
    assert headline(versus) == "Ticket sales was $60.00 in Q1 2026 and $60.00 in Q1 2027 (+$0.00, +0.00%), both under v1"
    assert headline(s.ask("who owns it?")) == "Ticket sales is owned by Lido Office (Maren Holt)"  # its own ask
    s = session()
    s.ask("pass holders in 2027 by quarter")
    year = s.ask("and the year before?")  # the grain and the stock's end value kept, under 2026's definition
    assert headline(year) == "Pass holders was 120 customers at the end of 2026 under v1; 4 quarters below"
    month = s.ask("the month before")
    assert (month.period_start.isoformat(), month.period_end.isoformat()) == ("2025-12-01", "2026-01-01")


def test_a_split_answer_leaves_its_subject(session):
    s = session()
    split = s.ask("how was pass holders defined from 2026 through 2027?")
    assert split.behavior.value == "split"
    owner = s.ask("who owns it?")
    assert owner.entity_id == "metric.pass_holders" and owner.notes[0].startswith("Reading 'it' as Pass holders")


def test_the_cli_batch_and_mcp_move_the_period_and_replay_it(lido, mcp, tmp_path):
    out = _batch(lido, tmp_path, [{"question": "ticket sales in Q2 2027"},
                                  {"question": "vs last year?", "follows_on": True},
                                  {"question": "and the quarter before?", "follows_on": True}])
    assert out[1]["headline"] == ("Ticket sales was $150.00 in Q2 2026 and $150.00 in Q2 2027 (+$0.00, +0.00%), "
                                  "both under v1")
    assert out[2]["headline"] == "Ticket sales was $60.00 in Q1 2027 under v1"  # from the later period compared
    store, wh = lido
    from core.serve.audit import audit_path
    records = [json.loads(x) for x in audit_path(store.path).read_text().splitlines() if x.strip()]
    moved = next(r for r in records if (r.get("inputs") or {}).get("compare"))
    with pytest.MonkeyPatch.context() as env:
        env.setenv("ASOF_WAREHOUSE", str(wh))  # the configured warehouse the replay computes on again
        replayed = cli("audit", "replay", moved["id"], "--db", str(store.path))
    assert replayed.returncode == 0 and "REPRODUCED" in replayed.stdout, replayed.stdout + replayed.stderr
    mcp("pool temperature in 2027", "c9")
    body, env = mcp("and the year before?", "c9")
    assert body["headline"] == "Pool temperature averaged 26.53 degrees in 2026 under v1; 12 months below"


def test_freshness_at_a_moment_is_judged_from_the_loads_recorded_up_to_it(session):
    s = session()
    end = s.ask("was the gate source fresh at the end of Q2 2027?")  # loaded daily at 06:00; warns after 6 h
    assert end.evaluated_at.isoformat() == "2027-06-30T23:59:00+00:00"
    assert headline(end) == "No: On 30 Jun 2027 at 23:59 UTC, raw_gate.entries had last loaded 18 h before: stale"
    friday = s.ask("was it fresh last Friday at 9am?")  # the clock's day is Wednesday 8 Mar 2028
    assert headline(friday) == "Yes: On 3 Mar 2028 at 09:00 UTC, raw_gate.entries had last loaded 3 h before: fresh"
    evening = s.ask("was it fresh at 6pm yesterday?")
    assert evening.evaluated_at.isoformat() == "2028-03-07T18:00:00+00:00"
    assert not any("today" in n for n in evening.notes)  # no note calls 7 Mar "today"
    early = s.ask("was raw_gate.entries fresh on 1 May 2024 at noon?")  # loads are recorded from June 2024
    assert "no load of raw_gate.entries had been recorded" in headline(early)
    metric = s.ask("was pass holders fresh on 1 March 2028 at noon?")
    assert headline(metric) == ("Yes: On 1 Mar 2028 at 12:00 UTC, raw_gate.entries behind Pass holders v2 had last "
                                "loaded 6 h before: fresh")


def test_a_follow_up_moves_the_version(session):
    s = session()
    s.ask("pass holders in Q2 2027")
    old = s.ask("under the old definition")  # the version before v2, which governed Q2 2027; never v2 against itself
    assert headline(old) == ("Under v1 (the old definition), Pass holders in Q2 2027 would be 160 customers: "
                             "+1 customers, +0.63% against 159 customers under v2")
    between = s.ask("what changed between them?")
    assert between.comparison is not None
    assert {between.comparison.left.version, between.comparison.right.version} == {"1", "2"}
    assert between.notes[0] == "Comparing the two versions of Pass holders your last answer showed, v1 and v2"
    s = session()
    s.ask("pass holders in Q2 2026")
    today = s.ask("what would it be under today's definition?")
    assert headline(today) == ("Under v2 (today's definition), Pass holders in Q2 2026 would be 59 customers: "
                               "-1 customers, -1.67% against 60 customers under v1")
    assert s.ask("compare the two versions").comparison is not None
    assert headline(s.ask("pass holders in Q2 2027 under v1")).startswith("Under v1, Pass holders in Q2 2027 would be")
    assert headline(s.ask("pass holders in Q2 2027 under v2")) == "v2 already governs Pass holders in Q2 2027: 159 customers"
    s.ask("pass holders in Q2 2027")
    assert headline(s.ask("under v1")).startswith("Under v1, Pass holders in Q2 2027 would be 160 customers")
    # a subject the conversation does not hold is never the last one
    assert s.ask("what about crew overtime?").behavior.value == "not_found_or_not_authorized"


def test_a_period_named_against_another_and_so_far_against_the_same_span(ask_lido):
    assert headline(ask_lido("ticket sales in the quarter before Q1 2027")) == "Ticket sales was $330.00 in Q4 2026 under v1"
    assert headline(ask_lido("ticket sales for the month after March 2027")) == "Ticket sales was $40.00 in Apr 2027 under v1"
    sides = ask_lido("ticket sales so far this year vs last").values.compared.sides
    # 1 Jan to 8 Mar of each year: a part set beside the same part, never beside all of last year
    assert [(s.start.isoformat(), s.end.isoformat(), s.value) for s in sides] == [
        ("2027-01-01", "2027-03-09", 60.0), ("2028-01-01", "2028-03-09", 60.0)]


def test_a_follow_up_naming_only_a_new_moment_asks_the_freshness_again(session):
    # "and at 6pm yesterday?" after a freshness answer moves the moment it is judged at, as "was it fresh at 6pm
    # yesterday?" does; it names no freshness word of its own
    s = session()
    s.ask("is the gate source fresh?")
    evening = s.ask("and at 6pm yesterday?")  # loaded at 06:00 on 7 Mar 2028; warns after 6 h
    assert evening.entity_id == "source.raw_gate.entries"
    assert evening.evaluated_at.isoformat() == "2028-03-07T18:00:00+00:00"
    assert headline(evening) == "No: On 7 Mar 2028 at 18:00 UTC, raw_gate.entries had last loaded 12 h before: stale"
    morning = s.ask("what about last Friday at 9am?")
    assert headline(morning) == "Yes: On 3 Mar 2028 at 09:00 UTC, raw_gate.entries had last loaded 3 h before: fresh"
    # a day alone, past, is judged at its end; no note calls that day "today"
    day = s.ask("and on 1 March 2028?")
    assert day.evaluated_at.isoformat() == "2028-03-01T23:59:00+00:00"
    assert not any("today" in n for n in day.notes)
    # after a number, a new date asks the number again, never freshness
    s.ask("ticket sales in Q2 2027")
    assert headline(s.ask("and in Q3 2027?")) == "Ticket sales was $240.00 in Q3 2027 under v1"


def test_how_much_was_it_follows_any_answer_with_the_number(session):
    # "how much" names nothing: it follows on (it was not found before), and after a freshness answer it asks the
    # number, not freshness at the period's end
    s = session()
    s.ask("is pass holders fresh?")
    assert headline(s.ask("how much was it in Q2 2027?")) == "Pass holders was 159 customers at the end of Q2 2027 under v2"
    s.ask("ticket sales in Q1 2027")
    assert headline(s.ask("how much was it in Q2 2027?")) == "Ticket sales was $150.00 in Q2 2027 under v1"


def test_a_lineage_or_freshness_follow_up_keeps_its_subject_when_the_moment_moves(session):
    s = session()
    lineage = s.ask("where does pass holders come from?")
    assert lineage.entity_id == "metric.pass_holders"
    friday = s.ask("was it fresh last Friday at 9am?")
    assert friday.entity_id == "metric.pass_holders" and friday.notes[0].startswith("Reading 'it' as Pass holders")
    assert headline(friday) == ("Yes: On 3 Mar 2028 at 09:00 UTC, raw_gate.entries behind Pass holders v2 had last "
                                "loaded 3 h before: fresh")
    evening = s.ask("and at 6pm yesterday?")
    assert evening.entity_id == "metric.pass_holders"
    assert headline(evening) == ("No: On 7 Mar 2028 at 18:00 UTC, raw_gate.entries behind Pass holders v2 had last "
                                 "loaded 12 h before: stale")
    assert s.ask("where does it come from?").entity_id == "metric.pass_holders"  # the thread still holds it
    # a question naming its own subject restarts the thread, whatever moment it names
    assert s.ask("was ticket sales fresh at 6pm yesterday?").entity_id == "metric.ticket_sales"
    assert s.ask("and last Friday at 9am?").entity_id == "metric.ticket_sales"


def test_the_cli_batch_and_mcp_move_the_moment_and_replay_it(lido, mcp, tmp_path):
    out = _batch(lido, tmp_path, [{"question": "is the gate source fresh?"},
                                  {"question": "and at 6pm yesterday?", "follows_on": True}])
    said = "No: On 7 Mar 2028 at 18:00 UTC, raw_gate.entries had last loaded 12 h before: stale"
    assert out[1]["headline"] == said
    store, _ = lido
    from core.serve.audit import audit_path
    records = [json.loads(x) for x in audit_path(store.path).read_text().splitlines() if x.strip()]
    moved = next(r for r in reversed(records) if (r.get("inputs") or {}).get("asks_freshness"))
    replayed = cli("audit", "replay", moved["id"], "--db", str(store.path))
    assert replayed.returncode == 0 and "REPRODUCED" in replayed.stdout, replayed.stdout + replayed.stderr
    mcp("is the gate source fresh?", "c12")
    body, _ = mcp("and at 6pm yesterday?", "c12")
    assert body["headline"] == said


# ---- families found by the acceptance pass (/work/notes/i45-acceptance.md) -------------------------------------------

def test_a_move_the_clock_also_reads_moves_the_period_on_the_table(session):
    # "the next quarter", "a year earlier" are dates against the clock too (Q2 2028, 2027); in a follow-up they move
    # the period on the table, never ask back "which one?" between the two
    s = session()
    s.ask("ticket sales in Q2 2027")
    assert headline(s.ask("and the next quarter?")) == "Ticket sales was $240.00 in Q3 2027 under v1"
    assert headline(s.ask("and the next month?")) == "Ticket sales was $100.00 in Oct 2027 under v1"
    s.ask("pass holders in 2027")
    assert headline(s.ask("and a year earlier?")) == "Pass holders was 120 customers at the end of 2026 under v1"


def test_a_version_named_in_words_alone_follows_on_and_keeps_the_period(session):
    s = session()
    s.ask("pass holders in Q2 2026")
    assert headline(s.ask("under today's definition")) == (
        "Under v2 (today's definition), Pass holders in Q2 2026 would be 59 customers: -1 customers, -1.67% against "
        "60 customers under v1")
    assert s.ask("compare the two versions").comparison is not None
    # the comparison of versions leaves Q2 2026 on the table, whose own version is v1, and the thread's number
    under = s.ask("under v1")
    assert (under.period_start.isoformat(), under.period_end.isoformat()) == ("2026-04-01", "2026-07-01")
    assert headline(under) == "v1 already governs Pass holders in Q2 2026: 60 customers"
    # a name the role cannot see and a made-up one are both not found, never the last subject
    for subject in ("till float", "crew overtime"):
        assert s.ask(f"what would {subject} be under the current definition?").behavior.value == \
            "not_found_or_not_authorized"


def test_was_a_dotted_source_fresh_at_a_past_moment(session):
    # a table's dotted name ("raw_gate.entries") does not end the past-tense clause: judged then, not now
    end = session().ask("was raw_gate.entries fresh at the end of Q2 2027?")
    assert end.evaluated_at.isoformat() == "2027-06-30T23:59:00+00:00"
    assert headline(end) == "No: On 30 Jun 2027 at 23:59 UTC, raw_gate.entries had last loaded 18 h before: stale"


def test_the_catalogs_changes_asked_with_two_kind_nouns(ask_lido):
    assert [i.label for i in ask_lido("what metric definitions changed in 2027?").listing.items] == ["Pass holders"]
    assert [i.label for i in ask_lido("which kpi definitions will change?").listing.items] == \
        ["Pool temperature", "Ticket sales"]


def test_what_a_source_feeds_is_its_downstream(session):
    s = session()
    assert s.ask("what does raw_gate.entries feed into?").intent == "downstream"
    s.ask("is the gate source fresh?")
    fed = s.ask("where does it feed?")
    assert fed.intent == "downstream" and fed.entity_id == "source.raw_gate.entries"
    assert s.ask("what feeds pass holders?").intent != "downstream"  # fed by: what it reads


def test_vs_last_year_of_a_period_still_running_sets_the_same_span_beside_it(session):
    s = session()
    s.ask("ticket sales so far this year")
    versus = s.ask("vs last year?")
    assert [(x.start.isoformat(), x.end.isoformat()) for x in versus.values.compared.sides] == [
        ("2027-01-01", "2027-03-09"), ("2028-01-01", "2028-03-09")]
    assert headline(versus) == ("Ticket sales was $60.00 in 2027 and $60.00 in 2028 so far, each 1 Jan–8 Mar "
                                "(+$0.00, +0.00%), both under v1")


def test_a_future_period_is_said_whole_whatever_the_label(ask_lido):
    said = headline(ask_lido("monthly swim visits in Q3 2029"))
    assert said == "Monthly swim visits has no value in Q3 2029: that period has not happened yet (today is 8 Mar 2028)"


def test_what_was_x_before_a_period_written_against_another_asks_the_number(ask_lido):
    assert headline(ask_lido("what were the ticket sales the month after March 2027?")) == \
        "Ticket sales was $40.00 in Apr 2027 under v1"


def test_how_many_were_sold_follows_on_and_names_no_subject(session):
    s = session()
    s.ask("ticket sales in Q2 2027")
    assert headline(s.ask("how many were sold in Q3 2027?")) == "Ticket sales was $240.00 in Q3 2027 under v1"
    assert headline(s.ask("how much did we make in Q1 2027?")) == "Ticket sales was $60.00 in Q1 2027 under v1"
    # a word of its own is a subject: hidden and made-up alike are not found, never the last subject
    for subject in ("till float", "zorblax"):
        assert s.ask(f"how much {subject} was collected in Q3 2027?").behavior.value == "not_found_or_not_authorized"


def test_a_comparison_with_no_definition_on_one_side_keeps_its_period(session):
    s = session()
    s.ask("ticket sales in 2025")
    s.ask("vs last year?")  # 2024: no definition of ticket sales yet
    quarters = s.ask("by quarter?")
    assert (quarters.period_start.isoformat(), quarters.period_end.isoformat()) == ("2025-01-01", "2026-01-01")
    assert len(quarters.values.values) == 4


def test_a_side_question_keeps_the_threads_number(session):
    # "who owns it?", "is it fresh?" between a number and a move of its version or period: the number comes back
    for aside in ("who owns it?", "is it fresh?"):
        s = session()
        s.ask("pass holders in Q2 2027")
        s.ask(aside)
        assert headline(s.ask("under v1")).startswith("Under v1, Pass holders in Q2 2027 would be 160 customers"), aside
        s.ask(aside)
        assert headline(s.ask("and the quarter before?")).startswith("Pass holders was"), aside
    s = session()
    s.ask("what does pass holders mean?")  # no number asked: a version named next is its definition, not a number
    assert s.ask("under v1").values is None


def test_the_catalogs_changes_are_explained_with_checked_citations(lido, ask_lido):
    from core.catalog.access import Visible
    from core.explain.explain import explain
    store, _ = lido
    for q in ("which metrics changed definition in 2027?", "what changes are coming?"):
        env = ask_lido(q)
        x = explain(env, q, Visible(store, "lifeguard").visible_ids)
        assert x.validation.passed and not x.validation.dropped, (q, x.validation.problems)
        assert all(i.versions for i in env.listing.items)  # the versions each row names, shown beside it
    changed = ask_lido("which metrics changed definition in 2027?").listing.items[0]
    assert [v.version for v in changed.versions] == ["1", "2"]
