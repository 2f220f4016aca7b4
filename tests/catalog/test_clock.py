"""The catalog's own clock (issue 19 item 2): the demo names its evaluation time, so its data reads as designed
on any later day; a catalog without one keeps the real clock; a clock without a time zone is refused by name."""
import shutil
from datetime import datetime, timedelta, timezone

import pytest
import yaml
from conftest import DEMO, DEMO_AT

from core.answer.ask import Question, ask
from core.catalog.store import Store, write_catalog
from core.ingest.load import CatalogError, load_catalog


def test_the_demo_answers_on_its_own_clock(demo_store):
    assert demo_store.clock == DEMO_AT and demo_store.now() == DEMO_AT
    env = ask(demo_store, Question(role="analyst", text="is net revenue data fresh?"))  # no time given anywhere
    assert env.evaluated_at == DEMO_AT
    # As designed: payments stale (3.5 h, warn after 2 h), orders fresh; never "error" because weeks went by.
    assert {f.source: f.status for f in env.freshness} == {"source.raw_payments.payment_events": "warn",
                                                          "source.raw_shop.orders": "pass"}
    # A time the user names still wins over the catalog's.
    later = ask(demo_store, Question(role="analyst", text="is net revenue data fresh?", at=DEMO_AT + timedelta(days=3)))
    assert {f.status for f in later.freshness} == {"error"}


def _copy_with_settings(tmp_path, settings):
    folder = tmp_path / "catalog"
    shutil.copytree(DEMO, folder)
    roles = folder / "00_roles.yaml"
    doc = yaml.safe_load(roles.read_text())
    doc["settings"] = settings
    roles.write_text(yaml.safe_dump(doc))
    return folder


def test_a_catalog_without_a_clock_keeps_the_real_one(tmp_path):
    catalog = load_catalog(_copy_with_settings(tmp_path, {}))
    db = tmp_path / "real.duckdb"
    write_catalog(catalog, db)
    store = Store(db)
    assert store.clock is None
    assert abs(store.now() - datetime.now(timezone.utc)) < timedelta(minutes=1)


def test_a_clock_without_a_time_zone_is_refused_naming_file_and_field(tmp_path):
    with pytest.raises(CatalogError) as err:
        load_catalog(_copy_with_settings(tmp_path, {"evaluation_time": "2026-11-29T12:00:00"}))
    text = str(err.value)
    assert "00_roles.yaml" in text and "settings.evaluation_time" in text and "time zone" in text
