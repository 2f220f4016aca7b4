"""Issue 18 items 3 and 4, as family rules, on a catalog this file writes (other names, roles and dates than the
demo's) and on the demo.

3. The freshness clock is not the reporting date: a time written in a freshness question sets when freshness
   is evaluated (also over the form's evaluation time), and "now" words name the evaluation time, so a
   reporting date on the form stands; only two reporting dates that disagree are asked back.
4. Comparisons see every change: every field a reader reads is compared (the description too, its changed
   sentence quoted), and a period in which a version began compares it with the version it replaced.

Catalog-only (no search index): the rules live in the date reading, the resolver and the comparison.
"""
from datetime import date, datetime, timezone

import pytest
import yaml

from core.answer.ask import Question, ask
from core.answer.intents.compare import changed_sentences, diff, fields_of
from core.catalog.access import visible
from core.catalog.store import Store, write_catalog
from core.explain.explain import deterministic
from core.explain.headline import headline
from core.explain.render import render_text
from core.ingest.load import load_catalog

AT = datetime(2027, 3, 15, 9, 0, tzinfo=timezone.utc)  # the form's evaluation time in these tests
FORM_DAY = date(2022, 6, 30)
BOTH = ["dispatcher", "controller"]


def _ev(eid, entity, kind, title, acl, **kw):
    return {"evidence_id": eid, "entity_id": entity, "kind": kind, "title": title, "authority": "authoritative",
            "lifecycle": kw.pop("lifecycle", "current"), "authority_class": kw.pop("authority_class", "semantic_registry"),
            "acl": acl, **kw}


TIDEWATER = {
    "00_roles.yaml": {"roles": [{"name": "dispatcher", "description": "Dispatch desk"},
                                {"name": "controller", "description": "Finance controllers"}]},
    "10_metrics.yaml": {"evidence": [
        # On-time rate: only the description changes (48 hours -> 24 hours); every structured field is equal.
        _ev("metric.on_time_rate.v1", "metric.on_time_rate", "metric_definition", "On-time rate v1", BOTH,
            version="1", lifecycle="historical", valid_from="2022-04-01", valid_through="2023-09-30",
            owner="Linehaul Ops (Ines Moreau)", aliases=["otr", "on time rate"],
            links={"implemented_by": ["model.fct_shipments.v1"]},
            metric={"formula": "delivered_on_time / shipments", "grain": "one row per shipment", "unit": "percent",
                    "time_dimension": "promised_at"},
            text="Shipments delivered within 48 hours of the promised date, as a share of all shipments. "
                 "Cancelled shipments do not count."),
        _ev("metric.on_time_rate.v2", "metric.on_time_rate", "metric_definition", "On-time rate v2", BOTH,
            version="2", valid_from="2023-10-01", owner="Linehaul Ops (Ines Moreau)", aliases=["otr", "on time rate"],
            supersedes="metric.on_time_rate.v1", links={"implemented_by": ["model.fct_shipments.v1"]},
            metric={"formula": "delivered_on_time / shipments", "grain": "one row per shipment", "unit": "percent",
                    "time_dimension": "promised_at"},
            text="Shipments delivered within 24 hours of the promised date, as a share of all shipments. "
                 "Cancelled shipments do not count."),
        # Dock utilisation: v2 began on 2024-01-01 with another formula, filter and owner.
        _ev("metric.dock_utilisation.v1", "metric.dock_utilisation", "metric_definition", "Dock utilisation v1", BOTH,
            version="1", lifecycle="historical", valid_from="2022-01-01", valid_through="2023-12-31",
            owner="Yard Team (Olu Ade)", links={"implemented_by": ["model.fct_shipments.v1"]},
            metric={"formula": "SUM(door_hours_used) / SUM(door_hours_open)", "grain": "one row per door per day",
                    "unit": "percent", "time_dimension": "yard_date"},
            text="Hours a dock door is in use over the hours it is open."),
        _ev("metric.dock_utilisation.v2", "metric.dock_utilisation", "metric_definition", "Dock utilisation v2", BOTH,
            version="2", valid_from="2024-01-01", owner="Yard Team (Mara Quist)",
            links={"implemented_by": ["model.fct_shipments.v1"]},
            metric={"formula": "SUM(door_minutes_used) / SUM(door_minutes_staffed)", "grain": "one row per door per day",
                    "unit": "percent", "time_dimension": "yard_date", "filters": ["staffed doors only"]},
            text="Minutes a dock door is in use over the minutes it is staffed."),
        # Controller only: never named to a dispatcher, whatever the question.
        _ev("metric.freight_accrual.v1", "metric.freight_accrual", "metric_definition", "Freight accrual v1",
            ["controller"], version="1", lifecycle="historical", valid_from="2021-07-01", valid_through="2022-12-31",
            owner="Controllership (Remy Vos)", metric={"formula": "SUM(accrued_freight_eur)", "unit": "EUR"},
            text="Freight accrued but not invoiced, in EUR."),
        _ev("metric.freight_accrual.v2", "metric.freight_accrual", "metric_definition", "Freight accrual v2",
            ["controller"], version="2", valid_from="2023-01-01", owner="Controllership (Remy Vos)",
            metric={"formula": "SUM(accrued_freight_eur) - SUM(credit_notes_eur)", "unit": "EUR"},
            text="Freight accrued but not invoiced, net of credit notes, in EUR. Kestrelwick ledger only."),
    ]},
    "20_models.yaml": {"evidence": [
        _ev("model.fct_shipments.v1", "model.fct_shipments", "model", "fct_shipments", BOTH, version="1",
            authority_class="dbt_manifest", valid_from="2022-01-01", owner="Data Platform (Tove Lind)",
            model={"relation": "marts.fct_shipments", "grain": "one row per shipment", "primary_key": ["shipment_id"],
                   "columns": ["shipment_id", "promised_at", "delivered_at"]},
            text="One row per shipment, from raw_tms.shipments."),
    ]},
    "30_sources.yaml": {"evidence": [
        _ev("source.raw_tms.shipments.table", "source.raw_tms.shipments", "source", "raw_tms.shipments (source table)",
            BOTH, version="1", authority_class="dbt_manifest", valid_from="2022-01-01", owner="Data Platform (Tove Lind)",
            text="Shipments replicated from the transport management system."),
        _ev("freshness.raw_tms.shipments.policy", "source.raw_tms.shipments", "freshness_policy",
            "Freshness policy for raw_tms.shipments", BOTH, version="1", authority_class="dbt_source_config",
            valid_from="2022-01-01", freshness={"warn_after_hours": 4, "error_after_hours": 12},
            text="Warn after 4 hours, error after 12 hours."),
        _ev("freshness.raw_tms.shipments.load-2027-03-14", "source.raw_tms.shipments", "freshness_observation",
            "raw_tms.shipments load 2027-03-14", BOTH, version="2027-03-14T05:00Z", authority_class="dbt_run_results",
            freshness={"loaded_at": "2027-03-14T05:00:00Z"}, text="Max loaded_at recorded by dbt source freshness."),
        _ev("freshness.raw_tms.shipments.load-2027-03-15", "source.raw_tms.shipments", "freshness_observation",
            "raw_tms.shipments load 2027-03-15", BOTH, version="2027-03-15T06:00Z", authority_class="dbt_run_results",
            freshness={"loaded_at": "2027-03-15T06:00:00Z"}, text="Max loaded_at recorded by dbt source freshness."),
    ]},
    "40_lineage.yaml": {"evidence": [
        _ev("lineage.shipments.v1", "lineage.shipments", "lineage", "Shipments lineage", BOTH, version="1",
            authority_class="dbt_manifest", valid_from="2022-01-01",
            edges=[["source.raw_tms.shipments", "model.fct_shipments.v1"],
                   ["model.fct_shipments.v1", "metric.on_time_rate.v1"],
                   ["model.fct_shipments.v1", "metric.on_time_rate.v2"],
                   ["model.fct_shipments.v1", "metric.dock_utilisation.v1"],
                   ["model.fct_shipments.v1", "metric.dock_utilisation.v2"]],
            text="raw_tms.shipments -> fct_shipments -> shipment metrics."),
    ]},
}


@pytest.fixture(scope="module")
def tide(tmp_path_factory):
    folder = tmp_path_factory.mktemp("tidewater")
    for name, doc in TIDEWATER.items():
        (folder / name).write_text(yaml.safe_dump(doc, sort_keys=False))
    catalog = load_catalog(folder)
    db = folder / "tidewater.duckdb"
    write_catalog(catalog, db)
    store = Store(db)
    yield store, catalog
    store.close()


def q(tide, text, role="dispatcher", day=None, period=None, at=AT, entity=None):
    return ask(tide[0], Question(role=role, text=text, day=day, period=period, at=at, entity=entity))


def trace(env) -> str:
    return "\n".join(f"{s.rule}: {s.detail}" for s in env.trace)


# ---- item 3: the freshness clock is not the reporting date -----------------------------------------------

@pytest.mark.parametrize("text", [
    "is raw_tms.shipments fresh right now?", "is the raw_tms.shipments data fresh now?",
    "is raw_tms.shipments stale at the moment?", "is raw_tms.shipments up to date currently?",
    "is raw_tms.shipments still fresh?", "is raw_tms.shipments fresh today?",
])
@pytest.mark.parametrize("role", BOTH)
def test_now_in_a_freshness_question_is_the_evaluation_time(tide, text, role):
    env = q(tide, text, role=role, day=FORM_DAY)
    assert env.behavior.value == "answer", (env.verdict, trace(env))
    assert env.reporting_date == FORM_DAY and env.evaluated_at == AT
    f = env.freshness[0]
    assert (f.status, f.age_hours, f.evaluated_at) == ("pass", 3.0, AT)
    assert "is the evaluation time" in trace(env) and "not a reporting date" in trace(env)
    assert any("evaluation time" in d.read_as for d in env.dates_read)


def test_now_with_a_period_on_the_form(tide):
    env = q(tide, "are the sources of on-time rate fresh right now?", period=(date(2022, 7, 1), date(2022, 10, 1)))
    assert env.behavior.value == "answer" and env.period_start == date(2022, 7, 1)
    assert [s.evidence_id for s in env.selected if s.role_in_answer == "definition"] == ["metric.on_time_rate.v1"]
    assert env.freshness[0].status == "pass"


def test_a_time_in_a_freshness_question_sets_the_evaluation_time_over_the_forms(tide):
    env = q(tide, "are the raw sources of on-time rate fresh at 2027-03-15T02:00Z?", day=FORM_DAY)
    assert env.behavior.value == "answer", (env.verdict, trace(env))
    assert env.reporting_date == FORM_DAY
    assert env.evaluated_at == datetime(2027, 3, 15, 2, tzinfo=timezone.utc)
    assert [s.evidence_id for s in env.selected if s.role_in_answer == "definition"] == ["metric.on_time_rate.v1"]
    f = env.freshness[0]
    # The load of 06:00 is after 02:00: the one before it (the 14th, 05:00) is 21 hours old then.
    assert (f.loaded_at.day, f.age_hours, f.status) == (14, 21.0, "error")
    assert "the form's evaluation time 2027-03-15T09:00:00+00:00 is not used" in trace(env)


@pytest.mark.parametrize("role", BOTH)
def test_every_visible_source_at_every_written_time_never_asks(tide, role):
    view = visible(tide[0], role)
    sources = [e for e in view.entities.values() if e.role == "source"]
    assert sources
    for ent in sources:
        for stamp in ("2027-03-14T07:00Z", "2027-03-15T08:30:00Z"):
            for day in (None, FORM_DAY):
                env = q(tide, f"is {ent.label} fresh at {stamp}?", role=role, day=day)
                assert env.behavior.value in ("answer", "abstain"), (ent.label, stamp, day, env.verdict)
                assert env.evaluated_at.isoformat().startswith(stamp[:16])
                assert env.reporting_date == day


def test_is_that_the_rule_now_keeps_the_forms_date_and_says_what_applies_now(tide):
    env = q(tide, "is that the rule now?", day=FORM_DAY, entity="metric.on_time_rate")
    assert env.behavior.value == "answer" and env.reporting_date == FORM_DAY
    assert [s.evidence_id for s in env.selected if s.role_in_answer == "definition"] == ["metric.on_time_rate.v1"]
    note = next(n for n in env.notes if n.startswith("Now (the evaluation date, 2027-03-15"))
    assert "v2 applies, in effect from 2023-10-01 onward (open); not v1" in note
    same = q(tide, "is fct_shipments still the model now?", day=FORM_DAY)
    assert same.behavior.value == "answer"
    assert any("the same version, v1, still applies" in n for n in same.notes)


def test_only_two_reporting_dates_are_asked_back(tide):
    clash = q(tide, "is on-time rate on 2023-12-31 backed by fresh data?", day=FORM_DAY)
    assert clash.behavior.value == "clarify"
    assert [o.date for o in clash.clarify.options] == [FORM_DAY, date(2023, 12, 31)]
    # "today" outside a freshness question is a reporting date written in the text: two dates, asked back.
    assert q(tide, "on-time rate today", day=FORM_DAY).behavior.value == "clarify"
    # No date on the form: "now" is the reporting date, as before.
    now = q(tide, "what does on-time rate mean right now?")
    assert now.behavior.value == "answer" and now.reporting_date == AT.date()
    assert [s.evidence_id for s in now.selected if s.role_in_answer == "definition"] == ["metric.on_time_rate.v2"]


def test_demo_freshness_clock(ask_demo):
    day = date(2024, 6, 30)
    now = ask_demo("is net revenue's data fresh right now?", day=day)
    assert now.behavior.value == "answer" and now.reporting_date == day
    assert {s.evidence_id for s in now.selected} >= {"metric.net_revenue.v1", "model.fct_orders.v1"}
    at = ask_demo("are the raw sources of net revenue fresh at 2026-11-29T10:00Z?", day=day)
    assert at.behavior.value == "answer" and at.evaluated_at == datetime(2026, 11, 29, 10, tzinfo=timezone.utc)
    rule = ask_demo("is net revenue v1 the rule now?", day=day)
    assert rule.behavior.value == "answer"
    assert any("v2 applies" in n and "not v1" in n for n in rule.notes)


# ---- item 4: comparisons see every change ----------------------------------------------------------------

@pytest.mark.parametrize("text", ["what changed in on-time rate", "compare on-time rate v1 vs v2",
                                  "otr v1 vs v2", "how did on-time rate change in 2023?"])
def test_a_change_only_in_the_description_is_a_change_and_is_quoted(tide, text):
    env = q(tide, text)
    c = env.comparison
    assert (c.left.evidence_id, c.right.evidence_id) == ("metric.on_time_rate.v1", "metric.on_time_rate.v2")
    assert [f.field for f in c.changed] == ["description", "effective"]
    d = next(f for f in c.changed if f.field == "description")
    assert d.removed == ["Shipments delivered within 48 hours of the promised date, as a share of all shipments."]
    assert d.added == ["Shipments delivered within 24 hours of the promised date, as a share of all shipments."]
    assert "same fields" not in env.verdict and "differ in description" in env.verdict
    assert "“Shipments delivered within 48 hours" in env.verdict and "within 24 hours" in env.verdict
    assert "Cancelled shipments" not in env.verdict  # the unchanged sentence is not quoted
    assert headline(env) == "On-time rate v1 and v2 differ in description"
    assert "48 hours" in render_text(env) and "24 hours" in render_text(env)
    x = deterministic(env, visible(tide[0], "dispatcher").visible_ids)
    assert x.validation.passed, x.validation.problems
    assert any(s.text.startswith("Its description changed: “Shipments delivered within 48 hours") for s in x.sentences)


def test_a_year_in_which_a_version_began_compares_it_with_the_one_it_replaced(tide):
    env = q(tide, "what changed in dock utilisation in 2024")
    c = env.comparison
    assert (c.left.evidence_id, c.right.evidence_id) == ("metric.dock_utilisation.v1", "metric.dock_utilisation.v2")
    assert {"formula", "filters", "owner", "description", "effective"} <= {f.field for f in c.changed}
    assert "began on 2024-01-01" in c.how and "replaced" in c.how
    assert "v2 and v2" not in env.verdict and "nothing changed" not in env.verdict
    x = deterministic(env, visible(tide[0], "dispatcher").visible_ids)
    assert x.validation.passed, x.validation.problems
    # A quarter, a half and the year the change falls in: the same pair.
    for text in ("what changed in dock utilisation in Q1 2024?", "dock utilisation: what's different in H1 2024",
                 "what changed in on-time rate in Q4 2023"):
        pair = q(tide, text).comparison
        assert pair.left.version == "1" and pair.right.version == "2", text


def test_a_year_with_no_change_says_one_version_throughout(tide):
    env = q(tide, "what changed in dock utilisation in 2023")
    c = env.comparison
    assert c.left.evidence_id == c.right.evidence_id == "metric.dock_utilisation.v1"
    assert "for the whole period 2023-01-01 to 2023-12-31" in env.verdict and "nothing changed" in env.verdict
    assert headline(env) == "Dock utilisation v1 is in effect throughout: nothing changed"
    assert [s.evidence_id for s in env.selected].count("metric.dock_utilisation.v1") == 1


def test_every_field_a_reader_reads_is_compared(tide):
    """Each field changed on its own is reported changed, and nothing else is."""
    catalog = tide[1]
    base = next(e for e in catalog.evidence if e.evidence_id == "metric.dock_utilisation.v1")
    model = next(e for e in catalog.evidence if e.evidence_id == "model.fct_shipments.v1")
    other_model = model.model_copy(update={"evidence_id": "model.fct_shipments.v2", "title": "fct_shipments v2"})
    m = base.metric
    cases = {
        "formula": (base.model_copy(update={"metric": m.model_copy(update={"formula": "1"})}), model),
        "grain": (base.model_copy(update={"metric": m.model_copy(update={"grain": "one row per door"})}), model),
        "filters": (base.model_copy(update={"metric": m.model_copy(update={"filters": ["x"]})}), model),
        "exclusions": (base.model_copy(update={"metric": m.model_copy(update={"exclusions": ["y"]})}), model),
        "unit": (base.model_copy(update={"metric": m.model_copy(update={"unit": "hours"})}), model),
        "description": (base.model_copy(update={"text": "Another rule."}), model),
        "owner": (base.model_copy(update={"owner": "Someone Else"}), model),
        "effective": (base.model_copy(update={"valid_from": date(2022, 2, 1)}), model),
        "backing model": (base, other_model),
    }
    for field, (after, after_model) in cases.items():
        changed = [f.field for f in diff(base, after, model, after_model) if f.changed]
        assert changed == [field], (field, changed)
    assert set(fields_of(base, model)) >= {"formula", "grain", "filters", "exclusions", "backing model",
                                           "description", "owner", "effective"}
    # Whitespace as folded by YAML is not a change.
    folded = base.model_copy(update={"text": "Hours a dock door is in use\n over the hours  it is open."})
    assert not [f for f in diff(base, folded, model, model) if f.changed]


def test_changed_sentences_keep_unchanged_ones_out():
    removed, added = changed_sentences("A is 1.5 units. B stays. C goes.", "A is 2.5 units. B stays. D comes.")
    assert removed == ["A is 1.5 units.", "C goes."] and added == ["A is 2.5 units.", "D comes."]


def test_a_hidden_metric_is_never_compared_or_named(tide):
    for text in ("what changed in freight accrual in 2023", "compare freight accrual v1 vs v2"):
        env = q(tide, text, role="dispatcher")
        assert env.behavior.value == "not_found_or_not_authorized"
        assert "accrual" not in (env.model_dump_json() + render_text(env)).lower().replace(text.lower(), "")
        ok = q(tide, text, role="controller")
        assert ok.comparison and ok.comparison.right.evidence_id == "metric.freight_accrual.v2"
        assert "Kestrelwick ledger only." in [f for f in ok.comparison.changed if f.field == "description"][0].added


def test_demo_comparisons(ask_demo):
    churn = ask_demo("compare churn v1 vs v2")
    assert "following 180 days" in churn.verdict and "following 120 days" in churn.verdict
    for text in ("what changed in net revenue in 2025", "how did net revenue change in 2025?"):
        c = ask_demo(text).comparison
        assert (c.left.evidence_id, c.right.evidence_id) == ("metric.net_revenue.v1", "metric.net_revenue.v2"), text
    c = ask_demo("what changed in active customers in 2026").comparison
    assert (c.left.evidence_id, c.right.evidence_id) == ("metric.active_customers.v2", "metric.active_customers.v3")
    same = ask_demo("what changed in net revenue in 2024")
    assert "v1 and v1" not in headline(same) and "nothing changed" in same.verdict
