"""The research suites, asked from question text, role and form date only: 21 of 21."""
import json
from datetime import date, datetime, timezone

import pytest
from conftest import SUITES

from core.answer.ask import Question, ask
from core.explain.render import render_text

CASES = [(s, case) for s in ("a", "b") for case in json.loads((SUITES / f"suite_{s}.gold.json").read_text())]
NOW = datetime(2026, 11, 29, tzinfo=timezone.utc)


def test_converted_suites_match_the_shared_fixtures():
    from suites.convert import convert_all
    for fname, data in convert_all().items():
        assert json.loads((SUITES / fname).read_text()) == data, f"{fname} is stale: run tests/suites/convert.py"


def test_gold_case_count():
    assert len(CASES) == 21


@pytest.mark.parametrize("with_search", [True, False], ids=["hybrid", "catalog-only"])
@pytest.mark.parametrize("suite,case", CASES, ids=[c["id"] for _, c in CASES])
def test_gold_case(suites, suite, case, with_search):
    store, searcher = suites[suite]
    env = ask(store, Question(role=case["role"], text=case["question"],
                              day=date.fromisoformat(case["date"]) if case["date"] else None), now=NOW,
              searcher=searcher if with_search else None)
    assert env.behavior.value in case["behaviors"], env.verdict
    governing = {s.evidence_id for s in env.selected}
    assert set(case["governs"]) <= governing
    assert set(case["surfaces"]) <= env.evidence_ids()
    if env.behavior.value in ("not_found_or_not_authorized", "clarify", "abstain"):
        assert not env.selected, "nothing may govern when the system does not answer"
    output = env.model_dump_json() + render_text(env)
    for forbidden in case["forbidden"]:
        assert forbidden not in output
    for source, status in case.get("freshness", {}).items():
        assert {f.source: f.status for f in env.freshness}[source] == status
    for conflict in env.conflicts:
        assert conflict.evidence_id not in governing
