"""Objects no role may see (an empty ACL), asked about in a reviewer's own words: "which pages have no roles
assigned?", "which docs are unassigned?", "any documents nobody can see?". A steward is answered with those items of its
review queue, as the Governance review page lists them; any other role learns nothing (its answer is the one it gets
from the same catalog without them). And the number of objects a steward's view reads is said one way everywhere: what
its role's ACL shows, and apart from it what its review queue adds (core/catalog/access.py seen_text), so the
sidebar's "1 object you can see" and an answer's trace no longer seem to disagree.

On a catalog the tests write (a museum: other names, roles and dates than the demo's), then on the demo."""
from datetime import datetime, timezone

import pytest
from conftest import DEMO_AT
from visits_catalog import catalog_store

from core.answer.ask import Question
from core.answer.intents.review import review_queue, steward_scope
from core.answer.steward import steward_answer, steward_view
from core.catalog.access import seen_text, visible
from core.catalog.store import Store
from core.explain.render import render_text

AT = datetime(2029, 2, 7, 10, 0, tzinfo=timezone.utc)
TODAY = AT.date()
STEWARD = "registrar"
OWNER = "Collections Office (Ada Quill)"

EVIDENCE = [
    {"evidence_id": "kpi.gallery_dwell.r1", "entity_id": "kpi.gallery_dwell", "kind": "metric_definition",
     "title": "Gallery dwell r1", "version": "1", "authority": "authoritative", "lifecycle": "current",
     "authority_class": "semantic_registry", "valid_from": "2027-01-01", "acl": ["curators", "lenders"],
     "owner": OWNER, "metric": {"formula": "AVG(exit_ts - entry_ts)", "grain": "one row per visit"},
     "text": "Gallery dwell is the average minutes a visitor spends in a gallery."},
    # A curators-only draft that disagrees: a queue item of another kind, granted to the steward too.
    {"evidence_id": "draft.gallery_dwell.median", "entity_id": "kpi.gallery_dwell", "kind": "note",
     "title": "Draft - gallery dwell as a median", "authority": "non_authoritative", "lifecycle": "draft",
     "valid_from": "2028-06-01", "acl": ["curators"], "owner": OWNER, "text": "Proposal: report the median."},
    {"evidence_id": "policy.registrar_charter.v1", "entity_id": "policy.registrar_charter", "kind": "policy",
     "title": "Registrar charter", "authority": "authoritative", "lifecycle": "current",
     "acl": [STEWARD, "curators"], "owner": OWNER, "text": "The registrar reviews the queue read-only."},
]
# Nobody may see these two: only the steward's review queue holds them.
UNASSIGNED = [
    {"evidence_id": "scan.loan_ledger.1987", "entity_id": "scan.loan_ledger", "kind": "documentation",
     "title": "Loan ledger (1987 scan)", "authority": "non_authoritative", "lifecycle": "deprecated", "acl": [],
     "text": "Handwritten loan ledger, scanned."},
    {"evidence_id": "form.condition_report.2019", "entity_id": "form.condition_report", "kind": "documentation",
     "title": "Condition report template (2019)", "authority": "non_authoritative", "lifecycle": "current",
     "acl": [], "text": "Blank condition report form."},
]
ROLES = {"settings": {"evaluation_time": AT.isoformat().replace("+00:00", "Z")},
         "roles": [{"name": "curators"}, {"name": "lenders"}, {"name": STEWARD, "steward": True}]}
SAID = ["which pages have no roles assigned?", "any documents nobody can see?", "what has an empty ACL?",
        "which docs are unassigned?", "are there objects without any roles?", "is there a page no one has access to?",
        "anything not shared with any role?", "which files are invisible to everyone?"]


@pytest.fixture(scope="module")
def museum(tmp_path_factory) -> tuple[Store, Store]:
    """The museum catalog, and the same catalog without the two objects nobody may see."""
    root = tmp_path_factory.mktemp("museum")
    return catalog_store(root / "full", ROLES, EVIDENCE + UNASSIGNED), catalog_store(root / "without", ROLES, EVIDENCE)


def _ask(store: Store, text: str, role: str = STEWARD):
    return steward_answer(store, Question(role=role, text=text, at=AT), today=TODAY)[0]


@pytest.mark.parametrize("text", SAID)
def test_a_steward_is_shown_the_objects_nobody_may_see(museum, text):
    full, _ = museum
    env = _ask(full, text)
    assert env.behavior.value == "answer" and env.review is not None, (text, env.behavior, env.verdict)
    assert env.review.categories == ["empty_acl"], text
    assert sorted(i.evidence_ids[0] for i in env.review.items) == ["form.condition_report.2019",
                                                                   "scan.loan_ledger.1987"], text
    # Yes leads the answer to a yes/no question; "which ...?" and "what ...?" are answered with what there is.
    lead = "Yes: 2 in" if text.split()[0] in ("any", "are", "is", "anything") else "2 items wait in"
    assert env.verdict.startswith(f"{lead} the review queue") and "Loan ledger (1987 scan)" in env.verdict, text


@pytest.mark.parametrize("role", ["curators", "lenders"])
@pytest.mark.parametrize("text", SAID)
def test_any_other_role_learns_nothing(museum, text, role):
    """The answer is the one the role gets from the catalog without those objects: nothing in it says they exist."""
    full, without = museum
    a, b = _ask(full, text, role), _ask(without, text, role)
    assert a.model_dump_json(exclude={"catalog_revision", "recorded"}) == \
        b.model_dump_json(exclude={"catalog_revision", "recorded"}), (role, text)
    out = a.model_dump_json() + render_text(a)
    assert not [w for w in ("loan_ledger", "Loan ledger", "condition_report", "Condition report") if w in out]
    assert a.review is not None and a.review.items == [] and a.verdict.startswith("None:"), (role, text)


@pytest.mark.parametrize("text", ["which metrics have an unassigned owner?", "who can see gallery dwell?",
                                  "what is gallery dwell?"])
def test_other_questions_are_not_read_as_the_empty_acl_kind(museum, text):
    full, _ = museum
    env = _ask(full, text, "curators")
    assert env.review is None or "empty_acl" not in env.review.categories, text


def test_the_count_of_a_stewards_view_is_said_apart_from_its_queue(museum):
    """The sidebar (ui/resources.py) and an answer's authorization step say one thing: the objects the role's ACL
    shows, then the objects its review queue adds."""
    full, _ = museum
    scope = steward_scope(full, STEWARD, TODAY)
    queued = {i for item in review_queue(full.all_evidence_for_review(), TODAY) for i in item.evidence_ids}
    assert scope.evidence_ids == queued and "policy.registrar_charter.v1" not in queued
    view = steward_view(full, STEWARD, scope)
    assert seen_text(view) == f"1 object you can see, {len(queued)} more in your review queue (read-only)"
    env = _ask(full, "which docs are unassigned?")
    assert env.trace[0].rule == "authorization" and env.trace[0].detail == f"role {STEWARD}: {seen_text(view)}"
    # Another role's view has no queue: its count is its ACL's alone, said the same way.
    assert seen_text(visible(full, "curators")) == "3 objects you can see"
    assert _ask(full, "what is gallery dwell?", "curators").trace[0].detail == "role curators: 3 objects you can see"


def test_demo_governance_is_shown_the_kpi_glossary_and_finance_nothing(demo_store):
    today = DEMO_AT.date()
    for text in ("which pages have no roles assigned?", "which docs are unassigned?", "any documents nobody can see?"):
        env, _ = steward_answer(demo_store, Question(role="governance", text=text, at=DEMO_AT), today=today)
        assert [i.evidence_ids for i in env.review.items] == [["doc.kpi_glossary.2022"]], text
        for role in ("finance", "analyst", "marketing"):
            other, _ = steward_answer(demo_store, Question(role=role, text=text, at=DEMO_AT), today=today)
            assert other.review.items == [] and "glossary" not in (other.model_dump_json() + render_text(other)).lower()
    env, _ = steward_answer(demo_store, Question(role="governance", text="which docs are unassigned?", at=DEMO_AT),
                            today=today)
    view = steward_view(demo_store, "governance", steward_scope(demo_store, "governance", today))
    assert env.trace[0].detail == f"role governance: {seen_text(view)}"
    assert seen_text(view).startswith("1 object you can see, ") and view.queued_count == view.count - 1
