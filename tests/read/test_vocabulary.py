"""The visible vocabulary (core/read/vocabulary.visible_vocabulary), the test for a name that matches nothing a role
can see: read in SQL (Visible.object_words) instead of parsing every visible object, it is the same set of words
as the parsed objects give, for every role of the demo, a dbt project whose overlay hides a derived metric's
input from a role, and a catalog written here; and a word only a hidden object uses is not in it, even where a
visible formula names that object."""
from __future__ import annotations

from datetime import datetime, timezone

import pytest
from conftest import DEMO, ROOT
from visits_catalog import write_yaml_catalog

from core.catalog.access import _object_text, visible
from core.catalog.redact import HIDDEN_NAME
from core.catalog.store import Store, write_catalog
from core.catalog.text import tokenize, words
from core.ingest.ingest import read_inputs
from core.ingest.load import load_catalog
from core.read.names.made_up import absent_object_name
from core.read.names.vocabulary import visible_vocabulary

JAFFLE = ROOT / "tests" / "fixtures" / "realworld" / "jaffle-sl-template"
JAFFLE_OVERLAY = ROOT / "tests" / "fixtures" / "existence" / "jaffle-sl-template.overlay.yml"
AT = datetime(2027, 2, 1, 9, 0, tzinfo=timezone.utc)


def _metric(name: str, formula: str, acl: list[str], **kw) -> dict:
    return {"evidence_id": f"metric.{name}.v1", "entity_id": f"metric.{name}", "kind": "metric_definition",
            "title": name.replace("_", " ").title(), "version": "1", "authority": "authoritative",
            "lifecycle": "current", "authority_class": "semantic_registry", "valid_from": "2025-01-01", "acl": acl,
            "metric": {"formula": formula, "filters": [f"{formula} > 0"]}, "text": f"Computed as {formula}.", **kw}


ORCHARD = [
    # Only growers see the hidden input; the derived metric visible to buyers names it in its formula, filter
    # and text, where a buyer reads "[not shared with your role]" instead.
    _metric("quillfeather_yield", "SUM(kg_picked)", ["grower"]),
    _metric("net_harvest", "quillfeather_yield - SUM(kg_spoiled)", ["grower", "buyer"],
            mentions={"quillfeather_yield": "metric.quillfeather_yield.v1"}),
    # Characters Python lower-cases into ASCII letters ("\u0130" -> "i\u0307", the Kelvin sign -> "k"), a
    # retired object (the vocabulary reads every lifecycle) and JSON escapes in a list field.
    {**_metric("\u0130zmir_crates", "COUNT(crate_id)", ["buyer"], lifecycle="retired",
               evidence_id="metric.izmir_crates.v1", entity_id="metric.izmir_crates",
               aliases=["\u0130zmir boxes", "7\u212a crates", 'say "hi"\nback']),
     "text": "Crates shipped from \u0130zmir, kept at 4\u212a."},
]


@pytest.fixture(scope="module")
def stores(tmp_path_factory) -> dict[str, tuple[Store, list[str]]]:
    root = tmp_path_factory.mktemp("vocab")
    out = {}
    for name, (catalog, _) in {
            "demo": (load_catalog(DEMO), None),
            "jaffle": read_inputs(root / "jaffle.duckdb", dbt=JAFFLE, overlay=JAFFLE_OVERLAY),
            "orchard": (load_catalog(write_yaml_catalog(root / "orchard", ["grower", "buyer"], ORCHARD, AT)), None),
    }.items():
        write_catalog(catalog, root / f"{name}.duckdb")
        out[name] = Store(root / f"{name}.duckdb"), catalog.role_names
    return out


def _parsed_vocabulary(view) -> set[str]:
    """Every word of every object as the role reads it, parsed and redacted (how the vocabulary was built before):
    the fields access._object_text names, which the SQL pass must read alike."""
    vocab = set(view.name_words)
    for ev in view.all():
        vocab.update(words(_object_text(ev)))
    return vocab


@pytest.mark.parametrize("name", ["demo", "jaffle", "orchard"])
def test_the_vocabulary_is_every_word_of_every_visible_object(stores, name):
    store, roles = stores[name]
    redacted = 0
    for role in roles:
        view = visible(store, role)
        assert visible_vocabulary(view) == _parsed_vocabulary(view), role
        redacted += sum(HIDDEN_NAME in ev.text for ev in view.all())
    if name != "demo":  # a role reads a formula with a hidden input's name taken out
        assert redacted >= 1


def test_a_word_only_a_hidden_object_uses_is_not_in_the_vocabulary(stores):
    store, _ = stores["orchard"]
    grower, buyer = visible(store, "grower"), visible(store, "buyer")
    assert "quillfeather" in visible_vocabulary(grower)
    assert "quillfeather" not in visible_vocabulary(buyer)
    assert {"i", "zmir", "7k", "4k", "hi", "back"} <= visible_vocabulary(buyer)
    # So the buyer's "quillfeather yield memo" is a name that matches nothing, like a made-up one.
    for said in ("the quillfeather yield memo", "the glimmerwort yield memo"):
        assert absent_object_name(tokenize(said), buyer) is not None, said
    assert absent_object_name(tokenize("the quillfeather yield memo"), grower) is None
