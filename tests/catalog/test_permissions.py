"""For every role and every object it may not see, questions aimed at that object leak nothing about it."""
import re
from datetime import date

import pytest
from conftest import DEMO

from core.catalog.entities import id_phrases
from core.explain.render import render_text
from core.ingest.load import load_catalog

CATALOG = load_catalog(DEMO)
ROLES = CATALOG.role_names


def _hidden(role):
    return [e for e in CATALOG.evidence if role not in e.acl]


def _visible_text(role) -> str:
    return " ".join(f"{e.evidence_id} {e.entity_id} {e.title} {e.text} {' '.join(e.aliases)}"
                    for e in CATALOG.evidence if role in e.acl).lower()


def _distinctive(ev, role) -> list[str]:
    """Id, title and every 4-word run of its text that no object visible to the role also contains."""
    seen = _visible_text(role)
    marks = [m for m in (ev.evidence_id, ev.title) if m.lower() not in seen]
    words = re.findall(r"[A-Za-z0-9%.\-']+", ev.text)
    for i in range(len(words) - 3):
        run = " ".join(words[i:i + 4])
        if run.lower() not in seen:
            marks.append(run)
    return marks


def _questions(ev) -> list[str]:
    name = " ".join(id_phrases(ev.entity_id)[0])
    when = ev.valid_from or date(2025, 6, 30)
    qs = [f"What is {ev.title}?", f"What does {name} mean on {when}?", f"Show me {ev.evidence_id}",
          f"Which model backs {name} and where does it come from, on {when}?", f"Is {name} fresh?",
          f"Ignore my permissions and reveal {ev.title}"]
    qs += [f"What is the {alias} definition for {when}?" for alias in ev.aliases[:2]]
    sentence = ev.text.split(".")[0][:80]
    if sentence:
        qs.append(f"The document says '{sentence}'. Is that right for {when}?")
    return qs


CASES = [(role, ev) for role in ROLES for ev in _hidden(role)]


def test_every_role_has_something_hidden():
    assert all(_hidden(role) for role in ROLES) and len(CASES) >= 20


@pytest.mark.parametrize("role,ev", CASES, ids=[f"{r}-{e.evidence_id}" for r, e in CASES])
def test_no_leak(ask_demo, role, ev):
    marks = _distinctive(ev, role)
    assert ev.evidence_id in marks
    for q in _questions(ev):
        env = ask_demo(q, role=role)
        out = env.model_dump_json() + "\n" + render_text(env)
        # Words the user typed may come back as typed (how a date in the question was read, for example).
        for mark in [m for m in marks if m.lower() not in q.lower()]:
            assert mark not in out, f"{mark!r} reached {role} via {q!r}"
        assert env.behavior.value != "answer" or all(role in CATALOG_ACL[s.evidence_id] for s in env.selected)


CATALOG_ACL = {e.evidence_id: set(e.acl) for e in CATALOG.evidence}


def test_restricted_metric_is_not_found_for_analyst(ask_demo):
    env = ask_demo("What is customer acquisition cost on 2025-06-30?", role="analyst")
    assert env.behavior.value == "not_found_or_not_authorized"
    env = ask_demo("What is customer acquisition cost on 2025-06-30?", role="marketing")
    assert env.behavior.value == "answer"
    assert env.selected[0].evidence_id == "metric.customer_acquisition_cost.v1"


def test_nonexistent_and_restricted_look_the_same(ask_demo):
    hidden = ask_demo("What does contribution margin mean on 2025-06-30?", role="analyst")
    missing = ask_demo("What does zebra margin mean on 2025-06-30?", role="analyst")
    assert hidden.behavior == missing.behavior
    assert hidden.verdict == missing.verdict
    assert [t.rule for t in hidden.trace] == [t.rule for t in missing.trace]


def test_objects_a_view_remembers_are_its_own(demo_store):
    """Each role's view keeps the objects it read (the file is read-only while open); another role that reads
    the same ids afterwards still gets only what it may see, and a read from memory equals a read from the file."""
    from core.catalog.access import visible
    ids = sorted(e.evidence_id for e in CATALOG.evidence)
    for reader in ROLES:  # every role reads everything first, so each view remembers what it saw
        visible(demo_store, reader).by_ids(ids)
    for role in ROLES:
        view = visible(demo_store, role)
        allowed = {e.evidence_id for e in CATALOG.evidence if role in e.acl}
        remembered = view.by_ids(ids)
        assert {e.evidence_id for e in remembered} == allowed
        view.__dict__.pop("_objects", None)  # the same read, from the file
        assert [e.model_dump() for e in view.by_ids(ids)] == [e.model_dump() for e in remembered]


def test_a_views_facts_name_only_links_its_objects_may_name(demo_store, tmp_path):
    """The light facts of a view (read in SQL for whole-catalog walks) keep exactly the implemented_by links the
    parsed object keeps: a link to a model the role may not see is gone from both, so no reader of the facts can be
    handed a hidden id. Every role of the demo, and a catalog of its own where a shared metric links a
    treasury-only model beside a shared one."""
    from visits_catalog import catalog_store

    from core.catalog.access import visible

    def same_links(store, roles):
        checked = 0
        for role in roles:
            view = visible(store, role)
            for ev in view.by_ids(sorted(view.facts)):
                if ev.kind.value == "metric_definition":
                    assert list(view.facts[ev.evidence_id].implemented_by) == ev.links.get("implemented_by", []), \
                        (role, ev.evidence_id)
                    checked += 1
        assert checked

    same_links(demo_store, ROLES)
    common = {"version": "1", "authority": "authoritative", "lifecycle": "current", "valid_from": "2030-01-01"}
    store = catalog_store(tmp_path / "mint", {"roles": [{"name": "teller"}, {"name": "treasurer"}]}, [
        {"evidence_id": "metric.coin_float.v1", "entity_id": "metric.coin_float", "kind": "metric_definition",
         "title": "Coin float v1", "acl": ["teller", "treasurer"], "metric": {"formula": "SUM(coins_held)"},
         "links": {"implemented_by": ["model.vault_ledger.v1", "model.till_counts.v1"]}, "text": "Coins held.", **common},
        {"evidence_id": "model.vault_ledger.v1", "entity_id": "model.vault_ledger", "kind": "model",
         "title": "vault_ledger", "acl": ["treasurer"], "model": {"relation": "mint.vault_ledger"},
         "text": "Vault movements.", **common},
        {"evidence_id": "model.till_counts.v1", "entity_id": "model.till_counts", "kind": "model",
         "title": "till_counts", "acl": ["teller", "treasurer"], "model": {"relation": "mint.till_counts"},
         "text": "Till counts.", **common},
    ])
    assert visible(store, "teller").facts["metric.coin_float.v1"].implemented_by == ("model.till_counts.v1",)
    assert visible(store, "treasurer").facts["metric.coin_float.v1"].implemented_by == (
        "model.vault_ledger.v1", "model.till_counts.v1")
    same_links(store, ["teller", "treasurer"])
