"""Two month names and one year are one range (issue 39 item 1): "Feb-Apr 2025", "from may to october 2025",
"between March and May last year". The year is written once and applies to both ends; a definition change inside
the range splits the answer, and the first month is never dropped. On a lending library network's catalog the
test writes itself: "loans per member" changed on 10 April 2025."""
from __future__ import annotations

from datetime import date, datetime, timezone

import pytest
from conftest import asker

from core.catalog.envelope import Behavior
from core.read.dates.written import find_dates

AT = datetime(2026, 9, 1, 8, 0, tzinfo=timezone.utc)
ROLES = ["librarian"]


def _loans(version: str, formula: str, valid_from: str, valid_to: str | None = None) -> dict:
    out = {"evidence_id": f"metric.loans_per_member.v{version}", "entity_id": "metric.loans_per_member",
           "kind": "metric_definition", "title": f"Loans per member v{version}", "version": version,
           "authority": "authoritative", "lifecycle": "current" if not valid_to else "historical",
           "authority_class": "semantic_registry", "valid_from": valid_from, "acl": ROLES,
           "owner": "Branch Services (Ada Quist)",
           "metric": {"formula": formula, "grain": "one row per member per month", "unit": "loans"},
           "text": f"Loans per member: {formula}."}
    if valid_to:
        out["valid_to"] = valid_to
    return out


EVIDENCE = [
    _loans("1", "COUNT(loans) / COUNT(DISTINCT member_id)", "2023-01-01", "2025-04-10"),
    _loans("2", "COUNT(loans WHERE NOT renewal) / COUNT(DISTINCT member_id)", "2025-04-10"),
]


@pytest.fixture(scope="module")
def ask_library(tmp_path_factory, embedder):
    return asker(tmp_path_factory, embedder, "library", ROLES, EVIDENCE, AT)


@pytest.mark.parametrize("question, start, end", [
    ("loans per member for Feb-Apr 2025", date(2025, 2, 1), date(2025, 5, 1)),
    ("loans per member from march to may 2025", date(2025, 3, 1), date(2025, 6, 1)),
    ("how were loans per member counted between March and May last year?", date(2025, 3, 1), date(2025, 6, 1)),
    ("loans per member, Jan–Apr '25", date(2025, 1, 1), date(2025, 5, 1)),
    ("loans per member Nov-Apr 2025", date(2024, 11, 1), date(2025, 5, 1)),
])
def test_a_month_range_with_one_year_splits_at_the_change(ask_library, question, start, end):
    env = ask_library(question, "librarian")
    assert env.behavior is Behavior.split, (env.behavior, env.verdict, env.dates_read)
    assert (env.period_start, env.period_end) == (start, end)
    assert [(sp.start, sp.end) for sp in env.splits] == [(start, date(2025, 4, 10)), (date(2025, 4, 10), end)]
    assert [sp.selected[0].evidence_id for sp in env.splits][:2] == ["metric.loans_per_member.v1",
                                                                     "metric.loans_per_member.v2"]


def test_a_month_range_on_one_side_of_the_change_is_one_version(ask_library):
    env = ask_library("loans per member from may to october 2025", "librarian")
    assert env.behavior is Behavior.answer, env.verdict
    assert (env.period_start, env.period_end) == (date(2025, 5, 1), date(2025, 11, 1))
    assert [s.evidence_id for s in env.selected][:1] == ["metric.loans_per_member.v2"]


@pytest.mark.parametrize("text, periods", [
    # two months compared, the year written once: both months are read, in that year
    ("loans Jan and Feb 2024", [(date(2024, 1, 1), date(2024, 2, 1)), (date(2024, 2, 1), date(2024, 3, 1))]),
    ("loans march vs april 2025", [(date(2025, 3, 1), date(2025, 4, 1)), (date(2025, 4, 1), date(2025, 5, 1))]),
    # "and" is a range only after "between"
    ("loans between Jan and Feb 2024", [(date(2024, 1, 1), date(2024, 3, 1))]),
    # the first month is never dropped, "may" included
    ("loans from may to july 2024", [(date(2024, 5, 1), date(2024, 8, 1))]),
    ("loans between June and August this year", [(date(2026, 6, 1), date(2026, 9, 1))]),
])
def test_month_pairs_are_read_whole(text, periods):
    found = [(m.start, m.end) for m in find_dates(text, AT.date()) if m.kind == "period"]
    assert found == periods
