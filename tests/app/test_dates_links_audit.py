"""What a stranger noticed in the app, on a catalog this file writes (a travel agency's bookings, none of the demo's
names, on a clock of its own in 2019, far from any real today): which dates an answer used, a shared link's role,
a question AsOf cannot place, values with no warehouse, the Governance review queue's "today", and the Audit
page's question search with nobody signed in (demo mode)."""
import os
from datetime import date

import pytest
import streamlit as st
import yaml
from conftest import ROOT, build
from streamlit.testing.v1 import AppTest

from core.catalog.envelope import NOT_FOUND

AT = "2019-06-01T09:00:00Z"


def _source(name: str, loaded_at: str, warn: int, error: int) -> list[dict]:
    entity = f"source.{name}"
    common = {"entity_id": entity, "version": "1", "authority": "authoritative", "lifecycle": "current",
              "acl": ["planner", "auditor"]}
    return [
        {**common, "evidence_id": f"{entity}.table", "kind": "source", "title": f"{name} (source table)",
         "authority_class": "dbt_manifest", "valid_from": "2018-01-01", "owner": "Web Ops (Tove Berg)",
         "text": f"{name} exported nightly."},
        {**common, "evidence_id": f"freshness.{name}.policy", "kind": "freshness_policy",
         "title": f"Freshness policy for {name}", "authority_class": "dbt_source_config", "valid_from": "2018-01-01",
         "freshness": {"warn_after_hours": warn, "error_after_hours": error}, "text": "Warn and error thresholds."},
        {**common, "evidence_id": f"freshness.{name}.load", "kind": "freshness_observation", "version": loaded_at,
         "title": f"{name} last load", "authority_class": "dbt_run_results", "freshness": {"loaded_at": loaded_at},
         "text": "Max loaded_at recorded by dbt source freshness."},
    ]


EVIDENCE = [
    {"evidence_id": "metric.bookings.v1", "entity_id": "metric.bookings", "kind": "metric_definition",
     "title": "Bookings v1", "version": "1", "authority": "authoritative", "lifecycle": "current",
     "authority_class": "semantic_registry", "valid_from": "2018-01-01", "acl": ["planner", "auditor"],
     "owner": "Commercial Analytics (Mina Sato)", "links": {"implemented_by": ["model.fct_bookings.v1"]},
     "metric": {"formula": "SUM(gross_fare_eur)", "grain": "one row per booking", "unit": "EUR",
                "sql": "SELECT SUM(gross_fare_eur) AS value FROM {{ model }} WHERE booked_on >= $start AND booked_on < $end"},
     "text": "Bookings are gross fares, in EUR."},
    {"evidence_id": "model.fct_bookings.v1", "entity_id": "model.fct_bookings", "kind": "model", "title": "fct_bookings",
     "version": "1", "authority": "authoritative", "lifecycle": "current", "authority_class": "dbt_manifest",
     "valid_from": "2018-01-01", "acl": ["planner", "auditor"], "owner": "Data Engineering (Ravi Menon)",
     "model": {"relation": "analytics.fct_bookings", "grain": "one row per booking"}, "text": "fct_bookings."},
    {"evidence_id": "lineage.bookings.v1", "entity_id": "lineage.bookings", "kind": "lineage",
     "title": "Bookings lineage", "version": "1", "authority": "authoritative", "lifecycle": "current",
     "authority_class": "dbt_manifest", "valid_from": "2018-01-01", "acl": ["planner", "auditor"],
     "edges": [["source.raw_res.reservations", "model.fct_bookings.v1"], ["model.fct_bookings.v1", "metric.bookings.v1"]],
     "text": "raw_res.reservations -> fct_bookings -> bookings."},
    *_source("raw_res.reservations", "2019-06-01T06:00:00Z", 6, 24),  # fresh at the clock
    *_source("raw_site.visits", "2019-05-30T21:00:00Z", 12, 24),  # failing at the clock
    # A superseded page that stops being retrievable at the start of 2020: in the queue on the catalog's own
    # clock (2019), gone from it by any real calendar this test runs on.
    {"evidence_id": "wiki.bookings.old", "entity_id": "metric.bookings", "kind": "documentation", "authority_class": "wiki", "version": "legacy",
     "title": "Bookings (old intranet page)", "authority": "non_authoritative", "lifecycle": "superseded",
     "superseded_by": "metric.bookings.v1", "expires_at": "2020-01-01", "acl": ["planner", "auditor"],
     "text": "Bookings used to include agency fees."},
]


@pytest.fixture(scope="module", autouse=True)
def agency_db(tmp_path_factory, embedder):
    root = tmp_path_factory.mktemp("agency")
    folder = root / "catalog"
    folder.mkdir()
    (folder / "00_roles.yaml").write_text(yaml.safe_dump({
        "settings": {"evaluation_time": AT},
        "roles": [{"name": "planner"}, {"name": "auditor", "steward": True}]}))
    (folder / "10_evidence.yaml").write_text(yaml.safe_dump({"evidence": EVIDENCE}, sort_keys=False))
    store, _ = build(root, "agency", folder, embedder)
    store.close()
    saved = {k: os.environ.get(k) for k in ("ASOF_DB", "ASOF_WAREHOUSE", "ASOF_AUTH")}
    os.environ.update(ASOF_DB=str(store.path), ASOF_WAREHOUSE=str(root / "no-warehouse.duckdb"), ASOF_AUTH="demo")
    st.cache_resource.clear()  # settings and the Store are per process: this module's catalog, not another's
    yield store.path
    st.cache_resource.clear()
    for k, v in saved.items():
        os.environ.pop(k, None) if v is None else os.environ.__setitem__(k, v)


def _page(path: str = "app.py", role: str | None = "planner", query: dict | None = None, **state) -> AppTest:
    at = AppTest.from_file(str(ROOT / path), default_timeout=120)
    if role:
        at.session_state["role"] = role
    for k, v in (query or {}).items():
        at.query_params[k] = v
    for k, v in state.items():
        at.session_state[k] = v
    return at.run()


def _ask(at: AppTest, question: str) -> AppTest:
    at.text_input(key="question").input(question)
    at.button(key="ask").click().run()
    assert not at.exception, at.exception
    return at


def _seen(text: str) -> str:
    """Catalog and engine text reaches Markdown backslash-escaped (ui.safe): compare what the reader sees."""
    return text.replace("\\", "")


def _captions(at: AppTest) -> str:
    return _seen("\n".join(c.value for c in at.caption))


@pytest.mark.parametrize("question", ["is anything stale?", "are all sources fresh?", "which sources are stale?"])
def test_a_sidebar_date_on_a_freshness_question_is_said_with_the_clock_it_was_checked_at(question):
    at = _ask(_page(date_mode="Date", day=date(2019, 3, 15)), question)
    said = _captions(at)
    assert "using 15 Mar 2019, the reporting date set in the sidebar" in said
    assert "freshness checked at 1 Jun 2019 09:00 UTC (this catalog's own clock), not on the reporting date" in said


@pytest.mark.parametrize("question", ["was raw_site.visits fresh at the end of Q1 2019?",
                                      "were the site visits fresh on 31 March 2019?"])
def test_a_moment_the_question_names_is_never_called_the_sidebars_clock(question):
    """A stranger's pass: "was it fresh at the end of Q2 2024?" was said to be checked "(the sidebar's clock), not on
    the reporting date" while the sidebar held no date and the moment was the question's own."""
    said = _captions(_ask(_page(), question))
    assert "freshness judged as at 31 Mar 2019 23:59 UTC, the moment your question names" in said, said
    assert "sidebar's clock" not in said and "not on the reporting date" not in said, said


def test_a_whole_catalog_freshness_table_says_which_ones_it_lists_out_of_how_many():
    at = _ask(_page(), "which sources are stale?")
    assert any(_seen(h.value) == "Sources you can see that are stale (1 of 2)" for h in at.subheader)


def test_a_shared_links_role_is_said_and_the_address_follows_the_role_chosen_after():
    at = _page(role=None, query={"role": "auditor"})
    assert at.selectbox(key="role").value == "auditor"
    assert "Role auditor was set by the link you opened." in "\n".join(c.value for c in at.sidebar.caption)
    at.selectbox(key="role").select("planner").run()
    assert at.query_params["role"] in ("planner", ["planner"])
    assert "set by the link" not in "\n".join(c.value for c in at.sidebar.caption)


def test_a_question_nothing_answers_shows_the_engines_words_and_no_reason_of_the_pages_own():
    at = _ask(_page(), "what's the weather like in Lisbon for the team offsite?")
    said = _captions(at)
    assert NOT_FOUND in said
    assert "Try a metric" not in said and "neither shared" not in said


def test_a_value_with_no_warehouse_names_no_setting_to_the_person_asking():
    at = _ask(_page(), "what were bookings in March 2019?")
    said = _seen("\n".join(i.value for i in at.info))
    assert "no warehouse is connected" in said
    assert "ASOF_" not in said


def test_the_review_queue_is_as_of_the_catalogs_clock_and_says_so():
    at = _page("pages/3_Governance_review.py", role="auditor")
    assert not at.exception, at.exception
    assert "Queue as of 1 Jun 2019." in _captions(at)
    assert any("Bookings (old intranet page)" in _seen(m.value) for m in at.markdown)


def test_with_nobody_signed_in_the_audit_search_finds_this_sessions_own_question():
    at = _ask(_page(role="auditor"), "what are bookings?")
    at.switch_page("pages/5_Audit.py").run()
    assert not at.exception, at.exception
    at.text_input(key="audit_text").input("bookings").run()
    assert at.metric[0].value == "1"
