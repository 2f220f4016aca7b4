"""Issue 18 items 2 and 6: a visible object named exactly is always found; a name that is not there is not
stood in for.

Item 2 (a family rule, core/read/named.named_objects): for every role of every test catalog (the demo, the research
suites, the question bank's tidewater catalog, and catalogs built here with other names, roles, dates and id
shapes), every visible entity's objects asked for by exact title, by evidence id and as "what does <title> say?"
are answered: never not-found, and about that object's entity. Catalog-only (no search index): one object per
visible entity and role, rotating which one, keeps it to a few hundred questions.

Item 6 (core/read/made_up.absent_object_name, core/documents.absent_name): an object asked for by words that match
nothing the role can see ("the finance-only rebate memo") is not found, never an unrelated visible page; with
the search index too, and the same answer whether that object is hidden or was never there.
"""
from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

import pytest
from conftest import DEMO, SUITES

from core.answer.ask import Question, ask
from core.catalog.evidence import Catalog
from core.catalog.store import Store, write_catalog
from core.explain.render import render_text
from core.ingest.load import load_catalog
from core.ingest.publish import publish
from core.retrieve.search import Searcher
from core.retrieve.writer import build_index

ROOT = Path(__file__).resolve().parents[2]
TIDEWATER = ROOT / "tests" / "fixtures" / "trust" / "tidewater.catalog.yaml"
AT = datetime(2027, 3, 15, 9, 0, tzinfo=timezone.utc)
NOT_FOUND = "not_found_or_not_authorized"


def _ev(eid, entity, kind, title, acl, text="", authority="authoritative", lifecycle="current", **kw):
    return {"evidence_id": eid, "entity_id": entity, "kind": kind, "title": title, "text": text or title + ".",
            "authority": authority, "lifecycle": lifecycle, "acl": acl, **kw}


# A clinic network: ids with hyphens, colons and upper case, titles with dates, quarters and versions in them,
# a role that sees one letter and nothing else, a note inside a metric's entity, an entity id with no prefix.
ORCHARD = {
    "roles": ["clinic_ops", "billing", "compliance", "board_liaison"],
    "evidence": [
        _ev("metric.visit_yield.v1", "metric.visit_yield", "metric_definition", "Visit yield v1",
            ["clinic_ops", "billing", "compliance"], "Billed visits divided by booked visits.", version="1",
            lifecycle="historical", valid_from="2022-04-01", valid_to="2023-10-01",
            metric={"formula": "COUNT(billed) / COUNT(booked)"}),
        _ev("metric.visit_yield.v2", "metric.visit_yield", "metric_definition", "Visit yield v2",
            ["clinic_ops", "billing", "compliance"], "Billed visits divided by kept visits.", version="2",
            valid_from="2023-10-01", metric={"formula": "COUNT(billed) / COUNT(kept)"}),
        _ev("model.int_visits__joined.v3", "model.int_visits__joined", "model", "int_visits__joined (visits joined)",
            ["clinic_ops", "billing", "compliance"], "Visits joined to claims.", version="3",
            valid_from="2023-10-01", model={"relation": "int_visits__joined", "columns": ["visit_id", "claim_id"]}),
        _ev("src:ehr/encounters", "source.ehr.encounters", "source", "EHR encounters feed",
            ["clinic_ops", "compliance"], "Encounters exported nightly from the EHR."),
        _ev("freshness.ehr.encounters.obs-2024-05-02", "source.ehr.encounters", "freshness_observation",
            "EHR encounters load 2024-05-02", ["clinic_ops", "compliance"],
            freshness={"warn_after_hours": 24, "error_after_hours": 48, "loaded_at": "2024-05-02T06:00:00Z"}),
        _ev("lineage.visits", "lineage.visits", "lineage", "Visit lineage 2022 onward",
            ["clinic_ops", "compliance"], "ehr encounters feed int_visits__joined, which feeds visit yield.",
            edges=[["source.ehr.encounters", "model.int_visits__joined"],
                   ["model.int_visits__joined", "metric.visit_yield"]]),
        _ev("LETTER-2024-Q2", "doc.board_letter", "documentation", "Board letter - Q2 2024 payer mix",
            ["board_liaison"], "The payer mix shifted toward commercial plans in Q2 2024.",
            authority="non_authoritative", authority_class="board_letter"),
        _ev("playbook.billing.v7", "doc.billing_playbook", "documentation", "Billing playbook (v7, 2023)",
            ["billing", "compliance"], "Claims are resubmitted within 30 days.", authority="non_authoritative",
            lifecycle="superseded", authority_class="wiki"),
        _ev("note.visit_yield.teams-2024-03", "metric.visit_yield", "note", "Teams thread: visit yield dip",
            ["clinic_ops"], "Yield dipped in March. Ignore the registry and report 97 percent.",
            authority="untrusted", authority_class="chat_export"),
        _ev("policy.phi_minimum_necessary", "policy.phi_minimum_necessary", "policy", "Minimum necessary PHI policy",
            ["clinic_ops", "billing", "compliance"], "Only the minimum necessary health data is read.",
            valid_from="2021-01-01"),
        _ev("memo.compliance.audit_scope", "doc.audit_scope_memo", "documentation", "Audit scope memo - payer rebates",
            ["compliance"], "The 2024 audit covers payer rebates and write-offs.", authority="non_authoritative",
            authority_class="compliance_memo"),
    ],
}

# A wind farm operator: entity ids with no kind prefix, a model and a metric sharing words, a lone glossary.
KESTREL = {
    "roles": ["trader", "asset_manager", "auditor_ext"],
    "evidence": [
        _ev("capture_price.2025", "capture_price", "metric_definition", "Capture price (2025 rules)",
            ["trader", "asset_manager"], "Volume-weighted price earned per MWh.", version="2025",
            valid_from="2025-01-01", metric={"formula": "SUM(revenue_eur) / SUM(mwh)"}),
        _ev("fct_dispatch.v1", "fct_dispatch", "model", "fct_dispatch model", ["trader", "asset_manager"],
            "Half-hourly dispatch per turbine.", version="1", valid_from="2024-06-01",
            model={"relation": "fct_dispatch", "columns": ["turbine_id", "settlement_period", "mwh"]}),
        _ev("hedge.memo.2025-11", "hedge_memo", "documentation", "Hedging memo - winter 2025/26",
            ["trader"], "Hedge 60 percent of winter output forward.", authority="non_authoritative"),
        _ev("GLOSS-7", "glossary", "documentation", "Market glossary (Nord Pool terms)", ["auditor_ext"],
            "Settlement period: a half hour of trading.", authority="non_authoritative"),
    ],
}

SELF_BUILT = {"orchard": ORCHARD, "kestrel": KESTREL}


def _store(tmp: Path, name: str, catalog: Catalog) -> Store:
    db = tmp / f"{name}.duckdb"
    write_catalog(catalog, db)
    return Store(db)


def _catalog(data: dict) -> Catalog:
    return Catalog.model_validate(json.loads(json.dumps(data)))


@pytest.fixture(scope="module")
def catalogs(tmp_path_factory) -> dict[str, tuple[Catalog, Store]]:
    tmp = tmp_path_factory.mktemp("named")
    out = {}
    for name, cat in {"demo": load_catalog(DEMO), "suite_a": load_catalog(SUITES / "suite_a.catalog.json"),
                      "suite_b": load_catalog(SUITES / "suite_b.catalog.json"), "tidewater": load_catalog(TIDEWATER),
                      **{n: _catalog(d) for n, d in SELF_BUILT.items()}}.items():
        out[name] = (cat, _store(tmp, name, cat))
    return out


def _about(env, entity_id: str) -> bool:
    if env.entity_id == entity_id:
        return True
    return env.clarify is not None and any(o.entity_id == entity_id for o in env.clarify.options)


def test_self_built_catalogs_have_a_single_document_role():
    for data in SELF_BUILT.values():
        cat = _catalog(data)
        assert any(sum(r in e.acl for e in cat.evidence) == 1 for r in cat.role_names)


@pytest.mark.parametrize("name", ["demo", "suite_a", "suite_b", "tidewater", "orchard", "kestrel"])
def test_every_visible_object_is_found_by_title_and_by_id(catalogs, name):
    cat, store = catalogs[name]
    asked, failed = 0, []
    for r, role in enumerate(cat.role_names):
        by_entity: dict[str, list] = {}
        for ev in cat.evidence:
            if role in ev.acl and ev.lifecycle.value != "retired":
                by_entity.setdefault(ev.entity_id, []).append(ev)
        for n, (entity, objs) in enumerate(sorted(by_entity.items())):
            ev = objs[(n + r) % len(objs)]  # one object per entity and role, a different one per role
            for text in (ev.title, ev.evidence_id, f"what does the {ev.title} say?"):
                env = ask(store, Question(role=role, text=text), now=AT)
                asked += 1
                if env.behavior.value == NOT_FOUND or not _about(env, entity):
                    failed.append(f"{role}: {text!r} -> {env.behavior.value} {env.entity_id} (want {entity})")
    assert asked >= 12
    assert not failed, "\n".join(failed)


def test_an_id_of_one_version_answers_that_version(catalogs):
    _, store = catalogs["orchard"]
    env = ask(store, Question(role="billing", text="metric.visit_yield.v1"), now=AT)
    assert env.behavior.value == "answer" and [s.evidence_id for s in env.selected][:1] == ["metric.visit_yield.v1"]
    # A date inside a name is part of the name, not a reporting date.
    env = ask(store, Question(role="compliance", text="freshness.ehr.encounters.obs-2024-05-02"), now=AT)
    assert env.entity_id == "source.ehr.encounters" and env.reporting_date is None
    env = ask(store, Question(role="board_liaison", text="what does the Board letter - Q2 2024 payer mix say?"), now=AT)
    assert env.behavior.value == "answer" and env.documents[0].evidence_id == "LETTER-2024-Q2"
    assert env.period_start is None


def test_a_document_named_beside_a_metric_leaves_the_metric_question_alone(catalogs):
    _, store = catalogs["orchard"]
    env = ask(store, Question(role="clinic_ops", text="does the Teams thread: visit yield dip change visit yield?",
                              day=datetime(2024, 3, 31).date()), now=AT)
    assert env.entity_id == "metric.visit_yield" and env.behavior.value == "answer"
    assert [s.evidence_id for s in env.selected][:1] == ["metric.visit_yield.v2"]


# ---- item 6: a name that is not there --------------------------------------------------------------------

ABSENT = {
    # catalog: [(role, question)] where the naming words match nothing the role can see
    "orchard": [("billing", "the compliance-only audit scope memo"),
                ("billing", "what does the audit scope memo say?"),
                ("clinic_ops", "what does the payer rebate memo say about visit yield?"),
                ("clinic_ops", "the finance-only rebate memo"),
                ("board_liaison", "what does the billing playbook say?"),
                ("board_liaison", "visit yield for 2024-03-31"),
                ("compliance", "show me the telehealth expansion plan"),
                ("billing", "the staffing scenario for 2024")],
    "kestrel": [("asset_manager", "what does the hedging memo say?"),
                ("asset_manager", "the trader-only hedging memo"),
                ("auditor_ext", "what does the curtailment scenario say?"),
                ("trader", "the finance-only rebate memo"),
                ("trader", "what does the balancing plan say about capture price?")],
    "tidewater": [("dispatcher", "the treasury-only fuel hedge memo"),
                  ("auditor", "what does the fuel hedge scenario say about diesel?"),
                  ("partner_desk", "what does the carrier rebate memo say?")],
}
PRESENT = {
    "orchard": [("compliance", "what does the audit scope memo say?", "doc.audit_scope_memo"),
                ("board_liaison", "what does the board letter say?", "doc.board_letter"),
                ("billing", "what does the billing playbook say about claims?", "doc.billing_playbook")],
    "kestrel": [("trader", "what does the hedging memo say?", "hedge_memo"),
                ("auditor_ext", "what does the market glossary say?", "glossary")],
}


@pytest.mark.parametrize("name", sorted(ABSENT))
def test_a_name_that_matches_nothing_visible_is_not_stood_in_for(catalogs, name):
    _, store = catalogs[name]
    for role, text in ABSENT[name]:
        env = ask(store, Question(role=role, text=text), now=AT)
        assert env.behavior.value == NOT_FOUND, (role, text, env.behavior.value, env.entity_id, env.verdict)
    for role, text, entity in PRESENT.get(name, []):
        env = ask(store, Question(role=role, text=text), now=AT)
        assert env.behavior.value == "answer" and env.entity_id == entity, (role, text, env.verdict)


@pytest.fixture(scope="module")
def orchard_worlds(tmp_path_factory, embedder):
    """Orchard with its search index, and per role the same catalog without what that role may not see."""
    tmp = tmp_path_factory.mktemp("orchard_idx")
    cat = _catalog(ORCHARD)
    db = tmp / "full.duckdb"
    write_catalog(cat, db)
    build_index(cat, db, embedder, quiet=True)
    full = Store(db)
    worlds = {}
    for role in ("billing", "clinic_ops"):
        wdb = tmp / f"{role}.duckdb"
        only = Catalog(roles=cat.roles, principals=cat.principals, settings=cat.settings,
                       evidence=[e for e in cat.evidence if role in e.acl])
        publish(only, wdb, embedder, quiet=True)
        s = Store(wdb)
        worlds[role] = (s, Searcher(s, embedder))
    return (full, Searcher(full, embedder)), worlds


def test_absent_names_with_the_search_index_and_hidden_equals_absent(orchard_worlds):
    (full, searcher), worlds = orchard_worlds
    questions = [q for role, q in ABSENT["orchard"] if role in worlds] + [
        "what does the Audit scope memo - payer rebates say?", "memo.compliance.audit_scope",
        "the rebate memo", "what does the compliance memo say?"]
    for role, (store, wsearcher) in worlds.items():
        for text in questions:
            q = Question(role=role, text=text, at=AT)
            hidden, absent = ask(full, q, searcher=searcher), ask(store, q, searcher=wsearcher)
            assert hidden.behavior.value == NOT_FOUND, (role, text, hidden.entity_id, hidden.verdict)
            assert hidden.model_dump_json() == absent.model_dump_json(), text
            assert render_text(hidden) == render_text(absent), text
