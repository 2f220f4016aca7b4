"""Seeds are not raw sources (issue 24 item 5): a dbt seed where a model's lineage starts is listed as a seed,
in the envelope, the terminal text and the cited explanation, and never among the raw sources.

On dbt-project-evaluator's integration project, whose rule models read the exceptions seed."""
from datetime import datetime, timezone

import pytest
from conftest import ROOT

from core.answer.ask import Question, ask
from core.catalog.access import visible
from core.catalog.store import Store, write_catalog
from core.explain.explain import deterministic
from core.explain.render import render_text
from core.ingest.ingest import read_inputs

AT = datetime(2026, 11, 29, 12, tzinfo=timezone.utc)
SEED = "seed.dbt_project_evaluator_integration_tests.dbt_project_evaluator_exceptions"


@pytest.fixture(scope="module")
def evaluator(tmp_path_factory):
    db = tmp_path_factory.mktemp("evaluator") / "evaluator.duckdb"
    name = "dbt-project-evaluator-versions"
    catalog, _ = read_inputs(db, dbt=ROOT / "tests" / "fixtures" / "realworld" / name,
                             overlay=ROOT / "data" / "dbt" / f"{name}.overlay.yml")
    write_catalog(catalog, db)
    return Store(db)


@pytest.mark.parametrize("model", ["fct_unused_sources", "fct_root_models", "fct_duplicate_sources"])
def test_a_seed_upstream_is_a_seed_not_a_raw_source(evaluator, model):
    env = ask(evaluator, Question(role="analyst", text=f"where does {model} come from?", at=AT))
    assert env.behavior.value == "answer" and env.entity_id == f"model.{model}"
    assert SEED in env.lineage.seeds
    assert SEED not in env.lineage.raw_sources and SEED not in env.lineage.generated
    assert next(n.kind for n in env.lineage.nodes if n.id == SEED) == "seed"
    text = render_text(env)
    assert "seeds (CSV files loaded by dbt, not raw sources): " + SEED in text
    assert "raw sources: " + SEED not in text
    prose = " ".join(c.text for c in deterministic(env, visible(evaluator, "analyst").visible_ids).sentences)
    assert "`dbt_project_evaluator_exceptions` is a seed" in prose
    assert "raw source `dbt_project_evaluator_exceptions`" not in prose


def test_a_model_without_seeds_lists_none(evaluator):
    env = ask(evaluator, Question(role="analyst", text="where does int_model_4 come from?", at=AT))
    assert env.lineage.seeds == []
