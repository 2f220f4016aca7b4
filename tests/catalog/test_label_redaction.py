"""A visible object's own words that name a hidden object are redacted the way a formula's hidden inputs are (issue 39
item 8): a model the keepers see says it is "the input to Enclosure upkeep rate", a metric only finance may see.
Quoted as written, the description told the keepers the metric exists. Single plain words are left alone, and a name
a visible object also goes by is no hidden name. On a zoo's catalog the test writes itself."""
from __future__ import annotations

from datetime import datetime, timezone

import pytest
from conftest import asker

from core.catalog.redact import HIDDEN_NAME
from core.explain.render import render_text

AT = datetime(2028, 6, 1, 9, 0, tzinfo=timezone.utc)
ROLES = ["keeper", "finance"]
OWNER = "Zoo Analytics (Mara Quint)"


def _metric(name: str, title: str, acl: list[str], text: str) -> dict:
    return {"evidence_id": f"metric.{name}.v1", "entity_id": f"metric.{name}", "kind": "metric_definition",
            "title": f"{title} v1", "version": "1", "authority": "authoritative", "lifecycle": "current",
            "authority_class": "semantic_registry", "valid_from": "2027-01-01", "acl": acl, "owner": OWNER,
            "metric": {"formula": "SUM(x)", "grain": "one row per enclosure", "unit": "ratio"}, "text": text}


EVIDENCE = [
    _metric("enclosure_upkeep_rate", "Enclosure upkeep rate", ["finance"], "Upkeep spend per enclosure inspection."),
    _metric("donations", "Donations", ["finance"], "Gifts received."),
    _metric("animal_checks", "Animal checks", ROLES, "Health checks per animal per week."),
    {"evidence_id": "model.fct_enclosure_checks.v1", "entity_id": "model.fct_enclosure_checks", "kind": "model",
     "title": "fct_enclosure_checks", "version": "1", "authority": "authoritative", "lifecycle": "current",
     "authority_class": "dbt_manifest", "valid_from": "2027-01-01", "acl": ROLES, "owner": OWNER,
     "model": {"relation": "zoo.fct_enclosure_checks", "grain": "one row per inspection"},
     "text": "One row per enclosure inspection; the input to Enclosure upkeep rate and to enclosure_upkeep_rate "
             "reports. Donations are not recorded here. Animal checks read it too."},
]


@pytest.fixture(scope="module")
def ask_zoo(tmp_path_factory, embedder):
    return asker(tmp_path_factory, embedder, "zoo", ROLES, EVIDENCE, AT)


@pytest.mark.parametrize("question", ["what is fct_enclosure_checks?", "list the models"])
def test_a_hidden_name_in_a_visible_description_is_redacted(ask_zoo, question):
    env = ask_zoo(question, "keeper")
    shown = env.model_dump_json() + render_text(env)
    assert "upkeep" not in shown.lower(), shown
    assert HIDDEN_NAME in env.model_dump_json()
    assert "Donations are not recorded" in env.model_dump_json()  # one plain word is no name to hide
    assert "Animal checks read it too" in env.model_dump_json()  # a visible metric's name stays


def test_the_role_that_may_see_it_reads_the_text_as_written(ask_zoo):
    env = ask_zoo("what is fct_enclosure_checks?", "finance")
    assert "the input to Enclosure upkeep rate and to enclosure_upkeep_rate" in env.model_dump_json()
    assert HIDDEN_NAME not in env.model_dump_json()
