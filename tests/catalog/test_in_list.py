"""Reads by id use IN lists of quoted literals (core/catalog/store.py: in_list): an id is data, never SQL."""
from core.catalog.access import visible
from core.catalog.rows import in_list


def test_quotes_are_doubled_and_an_empty_list_matches_nothing():
    assert in_list("evidence_id", ["b", "a", "a"]) == "evidence_id IN ('a', 'b')"
    assert in_list("evidence_id", ["note.o'brien"]) == "evidence_id IN ('note.o''brien')"
    assert in_list("evidence_id", []) == "FALSE"


def test_hostile_ids_find_nothing_and_real_ones_are_found(demo_store):
    view = visible(demo_store, "analyst")
    hostile = ["x') OR true OR ('1'='1", "x' OR '1'='1", "metric.net_revenue.v2'--", "a\\'b"]
    assert view.by_ids(hostile) == []
    assert view.visible_ids(set(hostile)) == set()
    assert [e.evidence_id for e in view.by_ids(["metric.net_revenue.v2", *hostile])] == ["metric.net_revenue.v2"]


def test_hidden_ids_stay_hidden(demo_store):
    assert visible(demo_store, "analyst").by_ids(["finance.board_memo.margin_2026"]) == []
    assert [e.evidence_id for e in visible(demo_store, "finance").by_ids(["finance.board_memo.margin_2026"])] == \
        ["finance.board_memo.margin_2026"]
