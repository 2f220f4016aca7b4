"""A catalog the tests write themselves, with none of the demo's names: an orchard cooperative. Two roles see it
differently: the packers may not see the growers' draft about cider share. Harvest yield has three versions and no
draft; bruise rate has a draft page both roles see; frost loss exists only as a working draft of a metric; crate fill
rate has two approved versions that overlap from 1 Mar 2028, both backed by the crates model, whose raw source is
stale on the catalog's own clock. Used by the tests of drafts listed by their lack of approval, of a version asked
about that does not exist, of freshness beside a question asked back, and of how drafts are named."""
from __future__ import annotations

from datetime import datetime, timezone

import pytest
from builders import watched_source
from conftest import asker

AT = datetime(2028, 10, 4, 9, 0, tzinfo=timezone.utc)
ROLES = ["grower", "packer"]
OWNER = "Orchard Analytics (Maren Holt)"
CIDER_DRAFT = "Draft - cider share counted by pressed weight instead of crates"


def _model(name: str) -> dict:
    return {"evidence_id": f"model.{name}.v1", "entity_id": f"model.{name}", "kind": "model", "title": name,
            "version": "1", "authority": "authoritative", "lifecycle": "current", "authority_class": "dbt_manifest",
            "valid_from": "2024-01-01", "acl": ROLES, "owner": OWNER,
            "model": {"relation": f"orchard.{name}", "grain": "one row per crate"}, "text": f"{name} table."}


def _metric(key: str, label: str, version: str, valid_from: str, valid_to: str | None, model: str,
            formula: str) -> dict:
    out = {"evidence_id": f"metric.{key}.v{version}", "entity_id": f"metric.{key}", "kind": "metric_definition",
           "title": f"{label} v{version}", "version": version, "authority": "authoritative", "lifecycle": "current",
           "authority_class": "semantic_registry", "valid_from": valid_from, "acl": ROLES, "owner": OWNER,
           "links": {"implemented_by": [f"model.{model}.v1"]},
           "metric": {"formula": formula, "grain": "one row per crate", "unit": "ratio"},
           "text": f"{label}: {formula}."}
    if valid_to:
        out["valid_to"] = valid_to
    return out


def _draft(evidence_id: str, entity_id: str, title: str, version: str, valid_from: str, acl: list[str],
           kind: str = "documentation") -> dict:
    return {"evidence_id": evidence_id, "entity_id": entity_id, "kind": kind, "title": title, "version": version,
            "authority": "non_authoritative", "lifecycle": "draft", "authority_class": "analytics_draft",
            "valid_from": valid_from, "acl": acl, "owner": OWNER, "text": f"DRAFT. {title}. Not approved."}


EVIDENCE = [
    *watched_source("raw_press.crates", ROLES, "2028-10-04T00:00:00Z", owner=OWNER, since="2024-01-01"),  # 9 h: stale
    *watched_source("raw_field.picks", ROLES, "2028-10-04T08:00:00Z", owner=OWNER, since="2024-01-01"),  # fresh
    _model("fct_crates"), _model("fct_picks"),
    {"evidence_id": "lineage.orchard.v1", "entity_id": "lineage.orchard", "kind": "lineage",
     "title": "orchard lineage", "version": "1", "authority": "authoritative", "lifecycle": "current",
     "authority_class": "dbt_manifest", "valid_from": "2024-01-01", "acl": ROLES, "text": "orchard lineage.",
     "edges": [["source.raw_press.crates", "model.fct_crates.v1"], ["source.raw_field.picks", "model.fct_picks.v1"]]},
    _metric("harvest_yield", "Harvest yield", "1", "2025-01-01", "2026-01-01", "fct_picks", "SUM(kg) / COUNT(tree_id)"),
    _metric("harvest_yield", "Harvest yield", "2", "2026-01-01", "2027-07-01", "fct_picks", "SUM(kg) / SUM(hectares)"),
    _metric("harvest_yield", "Harvest yield", "3", "2027-07-01", None, "fct_picks", "SUM(graded_kg) / SUM(hectares)"),
    _metric("bruise_rate", "Bruise rate", "1", "2025-01-01", None, "fct_crates", "SUM(bruised) / COUNT(*)"),
    _draft("draft.bruise_rate.2028", "metric.bruise_rate", "Proposal - bruise rate after sorting", "draft-2028-05",
           "2028-05-01", ROLES),
    _metric("cider_share", "Cider share", "1", "2025-01-01", None, "fct_crates", "SUM(cider_crates) / COUNT(*)"),
    _draft("draft.cider_share.2028", "metric.cider_share", CIDER_DRAFT, "draft-2028-02", "2028-02-01", ["grower"]),
    _draft("metric.frost_loss.draft", "metric.frost_loss", "Frost loss (working draft)", "draft-2028-06",
           "2028-06-01", ROLES, kind="metric_definition"),
    _metric("crate_fill_rate", "Crate fill rate", "1", "2027-01-01", None, "fct_crates", "SUM(kg) / SUM(capacity_kg)"),
    _metric("crate_fill_rate", "Crate fill rate", "2", "2028-03-01", None, "fct_crates",
            "SUM(kg) / SUM(capacity_kg) WHERE crate_full"),
    {"evidence_id": "doc.orchard_handbook.2027", "entity_id": "doc.orchard_handbook", "kind": "documentation",
     "title": "Orchard handbook", "version": "2027", "authority": "non_authoritative", "lifecycle": "current",
     "authority_class": "wiki", "valid_from": "2027-01-01", "acl": ROLES, "owner": OWNER,
     "text": "How the cooperative picks, sorts and packs."},
]
# The drafts each role may see, by title.
DRAFTS = {"grower": {"Proposal - bruise rate after sorting", CIDER_DRAFT, "Frost loss (working draft)"},
          "packer": {"Proposal - bruise rate after sorting", "Frost loss (working draft)"}}


@pytest.fixture(scope="module")
def ask_orchard(tmp_path_factory, embedder):
    return asker(tmp_path_factory, embedder, "orchard", ROLES, EVIDENCE, AT)
