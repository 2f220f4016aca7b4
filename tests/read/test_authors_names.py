"""Names as a project's authors wrote them (issue 46 item 7), on a container port's dbt project from
scripts/gen_dbt_project.py's `write_target`: an abbreviation inside a model's name ("container dwell" for
fct_cntr_dwell, "vessel" for dim_vsl), a source's freshness asked by what it holds ("is the crane data fresh?"), a
short name typed with a letter dropped ("tgs" for tugs), and a made-up name that only looks like a model ("vessel
occupancy", "berth occupancy") answered as not found, never by the look-alike. Answered from names and rules alone
(no search index), so the rules carry it.
"""
from datetime import datetime, timezone

import pytest
from dbt_project import project_store

from core.answer.ask import Question, ask

AT = datetime(2027, 1, 2, tzinfo=timezone.utc)
SPEC = {
    "project": "harbor_freight",
    "sources": [{"source": "berth_sys", "name": "vessel_arrivals", "columns": ["arrival_id"], "loaded_at_field": "_at",
                 "description": "Ship arrivals at each berth, from the harbour master's system."},
                {"source": "berth_sys", "name": "crane_moves", "columns": ["move_id"], "loaded_at_field": "_at",
                 "description": "Container lifts by each quay crane."}],
    "models": [{"name": "fct_cntr_dwell", "description": "How long each container stays on the quay.",
                "columns": ["cntr_id", "dwell_hours"], "depends_on": ["source:berth_sys.crane_moves"]},
               {"name": "dim_vsl", "description": "One row per vessel.", "columns": ["vsl_id"],
                "depends_on": ["source:berth_sys.vessel_arrivals"]},
               {"name": "tugs", "description": "Tug boats and their shifts.", "columns": ["tug_id"],
                "depends_on": ["source:berth_sys.vessel_arrivals"]}],
}
CASES = [("what is the container dwell model?", "model.fct_cntr_dwell"),
         ("what is container dwell?", "model.fct_cntr_dwell"),
         ("what is the vessel model?", "model.dim_vsl"), ("who owns the vessel table?", "model.dim_vsl"),
         ("what is tgs?", "model.tugs"), ("who owns tgs?", "model.tugs"),
         ("is the crane data fresh?", "source.berth_sys.crane_moves"),
         ("is the ship arrivals data fresh?", "source.berth_sys.vessel_arrivals"),
         ("what is vessel occupancy?", None), ("what is berth occupancy?", None)]


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    return project_store(tmp_path_factory.mktemp("harbor"), SPEC)


@pytest.mark.parametrize("q,expected", CASES)
def test_names_as_authors_wrote_them(store, q, expected):
    env = ask(store, Question(role="analyst", text=q, at=AT))
    if expected is None:
        assert env.behavior.value == "not_found_or_not_authorized", (q, env.entity_id, env.verdict)
        return
    assert env.entity_id == expected, (q, env.behavior, env.verdict)
    if "fresh" not in q:  # a shortened or misspelt name is read, and said to be read so
        assert any("Read '" in n for n in env.notes), env.notes
