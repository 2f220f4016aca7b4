"""Display names (issue 39 item 7): a metric, model or source may carry a display `label` (or `name`) in the catalog
format, and dbt's metric `label` (a model's or source's `meta.label`) is one: headlines call the object by it, never
by its raw id, and it can be asked by. On a hospital laboratory's catalog and a small dbt project the tests write."""
import importlib.util
import json
from datetime import datetime, timezone

import pytest
import yaml
from conftest import ROOT

from core.answer.ask import Question, ask
from core.catalog.store import Store, write_catalog
from core.explain.headline import headline
from core.ingest.ingest import read_inputs
from core.ingest.load import CatalogError, load_catalog

AT = datetime(2027, 8, 2, 7, tzinfo=timezone.utc)
ACL = ["lab_staff"]


def _obj(eid, entity, kind, title, **kw):
    return {"evidence_id": eid, "entity_id": entity, "kind": kind, "title": title, "version": "1",
            "authority": "authoritative", "lifecycle": "current", "valid_from": "2026-01-01", "acl": ACL, **kw}


EVIDENCE = [
    _obj("metric.lab_tat_p90.v1", "metric.lab_tat_p90", "metric_definition", "lab_tat_p90 v1",
         label="Lab turnaround (90th percentile)", links={"implemented_by": ["model.fct_specimens.v1"]},
         metric={"formula": "percentile_cont(0.9) within group (order by resulted_at - received_at)"},
         text="The time within which nine in ten specimens get a result, from receipt at the lab."),
    _obj("model.fct_specimens.v1", "model.fct_specimens", "model", "fct_specimens", name="Specimen results",
         model={"relation": "lab.fct_specimens", "grain": "one row per specimen"}, text="One row per specimen."),
    _obj("source.lis.results.v1", "source.lis.results", "source", "lis.results", label="LIS result feed",
         text="Results as the laboratory information system exports them."),
]


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("lab")
    (tmp / "catalog.yaml").write_text(yaml.safe_dump({"roles": ACL, "evidence": EVIDENCE}))
    db = tmp / "lab.duckdb"
    write_catalog(load_catalog(tmp / "catalog.yaml"), db)
    return Store(db)


def _ask(store, q, role="lab_staff"):
    return ask(store, Question(role=role, text=q, at=AT))


@pytest.mark.parametrize("q, entity, label", [
    ("what is lab_tat_p90?", "metric.lab_tat_p90", "Lab turnaround (90th percentile)"),
    ("how is lab_tat_p90 defined?", "metric.lab_tat_p90", "Lab turnaround (90th percentile)"),
    ("what is the lab turnaround 90th percentile?", "metric.lab_tat_p90", "Lab turnaround (90th percentile)"),
    ("what is the grain of fct_specimens?", "model.fct_specimens", "Specimen results"),
    ("what are the specimen results?", "model.fct_specimens", "Specimen results"),
    ("who owns lis.results?", "source.lis.results", "LIS result feed"),
])
def test_headlines_say_the_display_name(lab, q, entity, label):
    env = _ask(lab, q)
    assert env.entity_id == entity and env.entity_label == label, (env.behavior, env.entity_id, env.verdict)
    assert label in headline(env), headline(env)
    assert "lab_tat_p90" not in headline(env) and "fct_specimens" not in headline(env)


def test_without_a_label_the_title_names_it_as_before(lab, tmp_path):
    plain = [{k: v for k, v in e.items() if k not in ("label", "name")} for e in EVIDENCE]
    (tmp_path / "c.yaml").write_text(yaml.safe_dump({"roles": ACL, "evidence": plain}))
    before = {e.evidence_id: e.content_hash for e in load_catalog(tmp_path / "c.yaml").evidence}
    assert before["model.fct_specimens.v1"] != {e.evidence_id: e.content_hash for e in
                                                 Store(lab.path).all_evidence_for_review()}["model.fct_specimens.v1"]
    db = tmp_path / "c.duckdb"
    write_catalog(load_catalog(tmp_path / "c.yaml"), db)
    assert _ask(Store(db), "what is lab_tat_p90?").entity_label == "lab_tat_p90"


def test_label_and_name_that_disagree_name_file_object_and_field(tmp_path):
    bad = [dict(EVIDENCE[0], name="Lab TAT")] + EVIDENCE[1:]
    (tmp_path / "c.yaml").write_text(yaml.safe_dump({"roles": ACL, "evidence": bad}))
    with pytest.raises(CatalogError) as err:
        load_catalog(tmp_path / "c.yaml")
    p = err.value.problems[0]
    assert p.file.endswith("c.yaml") and p.evidence_id == "metric.lab_tat_p90.v1" and "label" in f"{p.field} {p.message}"


_spec = importlib.util.spec_from_file_location("gen_dbt_project", ROOT / "scripts" / "gen_dbt_project.py")
gen = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(gen)


def test_dbt_labels_are_display_names(tmp_path):
    spec = {"project": "quarry_ops", "generated_at": "2027-08-01T04:00:00Z",
            "sources": [{"source": "scale_house", "name": "weighbridge_tickets", "columns": ["ticket_id"]}],
            "models": [{"name": "fct_haul_loads", "description": "One row per truck load weighed out.",
                        "columns": ["load_id", "tonnes"], "depends_on": ["source:scale_house.weighbridge_tickets"]}],
            "metrics": [{"name": "tonnes_shipped_net", "label": "Net tonnes shipped", "model": "fct_haul_loads",
                         "measure": "tonnes", "agg": "sum", "expr": "tonnes"}]}
    folder = gen.write_target(spec, tmp_path / "t")
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["nodes"]["model.quarry_ops.fct_haul_loads"]["meta"] = {"label": "Haul loads"}
    manifest["sources"]["source.quarry_ops.scale_house.weighbridge_tickets"]["config"] = {
        "meta": {"label": "Weighbridge tickets"}}
    (folder / "manifest.json").write_text(json.dumps(manifest))
    db = tmp_path / "q.duckdb"
    catalog, _ = read_inputs(db, dbt=folder)
    write_catalog(catalog, db)
    store = Store(db)
    role = store.roles()[0].name
    for q, label in (("what is tonnes_shipped_net?", "Net tonnes shipped"),
                     ("what is the grain of fct_haul_loads?", "Haul loads"),
                     ("what does weighbridge_tickets hold?", "Weighbridge tickets")):
        env = _ask(store, q, role=role)
        assert env.entity_label == label and label in headline(env), (q, env.entity_label, headline(env))
