"""One lineage (issue 38, item 4), on the tram operator's catalog (tests/tram_catalog.py): the Lineage page's walk
(`explore`) and the Ask answer draw the same upstream lineage for the same metric and role, including the edge from
a metric its formula uses ("Takings per run" = fare_takings / runs) and everything upstream of that metric."""
from __future__ import annotations

from datetime import date

import pytest
from tram_catalog import AT, build

from core.answer.ask import Question, ask
from core.catalog.access import visible
from core.resolve.lineage import explore


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    return build(tmp_path_factory.mktemp("tram_lineage"))[0]


def _edges(lin) -> set[tuple[str, str]]:
    return {(e.upstream, e.downstream) for e in lin.edges}


@pytest.mark.parametrize("role", ["controller", "depot"])
def test_the_lineage_page_and_ask_draw_the_same_edges(store, role):
    env = ask(store, Question(role=role, text="where does takings per run come from on 2027-06-30?", at=AT))
    page = explore(visible(store, role), ["metric.takings_per_run.v1"], date(2027, 6, 30), 5, 0)
    assert _edges(page) == _edges(env.lineage)
    assert ("metric.fare_takings.v2", "metric.takings_per_run.v1") in _edges(page)  # the metric it uses
    assert ("source.raw_fares.taps", "model.fct_taps.v1") in _edges(page)  # and that metric's own sources
    assert set(page.raw_sources) == set(env.lineage.raw_sources) == {"source.raw_fares.taps", "source.raw_depot.runs"}


def test_the_page_starts_from_a_version_the_view_holds_when_none_is_in_effect(store):
    from core.answer.lineage_start import lineage_starts
    view = visible(store, "controller")
    assert lineage_starts(view, "metric.fare_takings", date(2027, 6, 30)) == (
        ["metric.fare_takings.v2"], date(2027, 6, 30), None)
    starts, day, note = lineage_starts(view, "metric.fare_takings", date(2024, 6, 30))  # before any version began
    assert (starts, day) == (["metric.fare_takings.v2"], date(2027, 1, 1))
    assert note.startswith("No version of Fare takings your view holds is in effect on 2024-06-30; showing v2")
    assert explore(view, starts, day, 5, 0).edges  # drawn, not a bare entity id no edge names
