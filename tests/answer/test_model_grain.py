""""What is the grain of X?" asks what one row of the model stands for, as the model version in effect declares it:
never the key column (which "which column of X is the key / the grain?" asks). On a cold-store catalog of its own.
"""
from datetime import datetime, timezone

import pytest
from conftest import asker

AT = datetime(2027, 3, 1, 9, tzinfo=timezone.utc)


def _model(version: str, since: str, until: str | None, grain: str) -> dict:
    return {"evidence_id": f"model.pallet_moves.v{version}", "entity_id": "model.pallet_moves", "kind": "model",
            "title": f"dbt model pallet_moves v{version}", "version": version, "authority": "authoritative",
            "lifecycle": "current" if until is None else "superseded", "authority_class": "dbt_manifest",
            "valid_from": since, "valid_to": until, "acl": ["planner"],
            "text": f"pallet_moves version {version}. Grain: {grain}.",
            "model": {"relation": f"pallet_moves_v{version}", "grain": grain, "primary_key": ["move_id"],
                      "columns": ["move_id", "pallet_id", "moved_at"]}}


@pytest.fixture(scope="module")
def ask_cold(tmp_path_factory, embedder):
    return asker(tmp_path_factory, embedder, "cold_store", ["planner"],
                 [_model("1", "2025-01-01", "2026-01-01", "one row per pallet per day"),
                  _model("2", "2026-01-01", None, "one row per pallet move")], AT)


@pytest.mark.parametrize("q,grain", [
    ("What is the grain of pallet_moves version 2?", "one row per pallet move"),
    ("what is the grain of pallet_moves?", "one row per pallet move"),
    ("What is the grain of pallet_moves version 1?", "one row per pallet per day"),
])
def test_the_grain_of_a_model_is_its_declared_grain(ask_cold, q, grain):
    env = ask_cold(q, "planner")
    assert env.intent != "column_find", (env.intent, env.verdict)
    assert env.entity_id == "model.pallet_moves"
    assert any(s.model and s.model.grain == grain for s in env.selected), env.verdict


def test_which_column_is_the_grain_is_still_a_column_question(ask_cold):
    for q in ("which column of pallet_moves is the grain?", "what is the grain column of pallet_moves?"):
        env = ask_cold(q, "planner")
        assert env.intent == "column_find" and [c.name for c in env.table_facts.columns] == ["move_id"], env.verdict
