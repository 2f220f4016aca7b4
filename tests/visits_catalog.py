"""A catalog the tests write themselves, with none of the demo's names: a travel agency's "bookings" metric and
its web traffic. `visits` is a lineage chain (raw_site.visits -> stg_visits -> fct_visits), the raw source
failing; `clicks` names two unrelated objects (a model reading the site visits, an ad platform's source of its
own). The clock is the catalog's own, so the loads are as old as written here whenever the tests run."""
from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import yaml

AT = datetime(2027, 5, 10, 9, 0, tzinfo=timezone.utc)
ROLES = ["planner", "partner"]


def _source(name: str, loaded_at: str, warn: int, error: int, acl: list[str]) -> list[dict]:
    entity = f"source.{name}"
    return [
        {"evidence_id": f"{entity}.table", "entity_id": entity, "kind": "source", "title": f"{name} (source table)",
         "version": "1", "authority": "authoritative", "lifecycle": "current", "authority_class": "dbt_manifest",
         "valid_from": "2025-01-01", "acl": acl, "owner": "Web Ops (Tove Berg)", "text": f"{name} exported nightly."},
        {"evidence_id": f"freshness.{name}.policy", "entity_id": entity, "kind": "freshness_policy",
         "title": f"Freshness policy for {name}", "version": "1", "authority": "authoritative", "lifecycle": "current",
         "authority_class": "dbt_source_config", "valid_from": "2025-01-01", "acl": acl,
         "freshness": {"warn_after_hours": warn, "error_after_hours": error}, "text": "Warn and error thresholds."},
        {"evidence_id": f"freshness.{name}.load", "entity_id": entity, "kind": "freshness_observation",
         "title": f"{name} last load", "version": loaded_at, "authority": "authoritative", "lifecycle": "current",
         "authority_class": "dbt_run_results", "acl": acl, "freshness": {"loaded_at": loaded_at},
         "text": "Max loaded_at recorded by dbt source freshness."},
    ]


def _model(name: str, grain: str, acl: list[str]) -> dict:
    return {"evidence_id": f"model.{name}.v1", "entity_id": f"model.{name}", "kind": "model", "title": name,
            "version": "1", "authority": "authoritative", "lifecycle": "current", "authority_class": "dbt_manifest",
            "valid_from": "2025-01-01", "acl": acl, "owner": "Data Engineering (Ravi Menon)",
            "model": {"relation": f"analytics.{name}", "grain": grain}, "text": f"{name}: {grain}."}


BOTH = ROLES
EVIDENCE = [
    {"evidence_id": "metric.bookings.v1", "entity_id": "metric.bookings", "kind": "metric_definition",
     "title": "Bookings v1", "version": "1", "authority": "authoritative", "lifecycle": "current",
     "authority_class": "semantic_registry", "valid_from": "2025-01-01", "acl": BOTH,
     "owner": "Commercial Analytics (Mina Sato)", "links": {"implemented_by": ["model.fct_bookings.v1"]},
     "metric": {"formula": "SUM(gross_fare_eur) - SUM(cancelled_fare_eur)", "grain": "one row per booking",
                "unit": "EUR", "exclusions": ["travel insurance", "agency fees"]},
     "text": "Bookings are gross fares minus cancelled fares, in EUR. Travel insurance and agency fees are left out."},
    {"evidence_id": "metric.reservation_lead_time.v1", "entity_id": "metric.reservation_lead_time",
     "kind": "metric_definition", "title": "Reservation lead time v1", "version": "1", "authority": "authoritative",
     "lifecycle": "current", "authority_class": "semantic_registry", "valid_from": "2025-01-01", "acl": BOTH,
     "owner": "Commercial Analytics (Mina Sato)", "links": {"implemented_by": ["model.fct_bookings.v1"]},
     "metric": {"formula": "AVG(departure_date - reserved_at)", "grain": "one row per booking", "unit": "days"},
     "text": "Days between a reservation and its departure, averaged over bookings."},
    _model("fct_bookings", "one row per booking", BOTH),
    *_source("raw_res.reservations", "2027-05-10T06:00:00Z", 6, 24, BOTH),
    # 36 h before AT: failing. Only planners may see the raw source; partners see the models reading it.
    *_source("raw_site.visits", "2027-05-08T21:00:00Z", 12, 24, ["planner"]),
    _model("stg_visits", "one row per web visit", BOTH),
    _model("fct_visits", "one row per web visit", BOTH),
    *_source("raw_ads.clicks", "2027-05-10T08:00:00Z", 6, 24, BOTH),
    _model("fct_clicks", "one row per click", BOTH),
    {"evidence_id": "lineage.bookings.v1", "entity_id": "lineage.bookings", "kind": "lineage",
     "title": "Bookings lineage", "version": "1", "authority": "authoritative", "lifecycle": "current",
     "authority_class": "dbt_manifest", "valid_from": "2025-01-01", "acl": BOTH,
     "edges": [["source.raw_res.reservations", "model.fct_bookings.v1"], ["model.fct_bookings.v1", "metric.bookings.v1"],
               ["model.fct_bookings.v1", "metric.reservation_lead_time.v1"]],
     "text": "raw_res.reservations -> fct_bookings -> bookings."},
    {"evidence_id": "lineage.visits.v1", "entity_id": "lineage.visits", "kind": "lineage",
     "title": "Site visits lineage", "version": "1", "authority": "authoritative", "lifecycle": "current",
     "authority_class": "dbt_manifest", "valid_from": "2025-01-01", "acl": BOTH,
     "edges": [["source.raw_site.visits", "model.stg_visits.v1"],
               ["model.stg_visits.v1", "model.fct_visits.v1"],
               ["model.stg_visits.v1", "model.fct_clicks.v1"]],
     "text": "Site visits flow through staging into fct_visits and fct_clicks."},
]


def write_yaml_catalog(folder: Path, roles: list[str], evidence: list[dict], at) -> Path:
    """A catalog as YAML files in `folder` (created), with its clock at `at`, ready for load_catalog or
    `asof ingest`: the other test catalogs with names of their own are written the same way."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "00_roles.yaml").write_text(yaml.safe_dump({
        "settings": {"evaluation_time": at.isoformat().replace("+00:00", "Z")},
        "roles": [{"name": r} for r in roles]}))
    (folder / "10_evidence.yaml").write_text(yaml.safe_dump({"evidence": evidence}, sort_keys=False))
    return folder


def catalog_store(folder: Path, roles: dict, evidence: list[dict]):
    """`roles` (a 00_roles.yaml document: settings, roles with their steward flag, principals) and `evidence` written
    as YAML in `folder` (created), then ingested into a DuckDB catalog beside them: its Store."""
    from core.catalog.store import Store, write_catalog
    from core.ingest.load import load_catalog
    folder.mkdir(parents=True)
    (folder / "00_roles.yaml").write_text(yaml.safe_dump(roles))
    (folder / "10_evidence.yaml").write_text(yaml.safe_dump({"evidence": evidence}, sort_keys=False))
    write_catalog(load_catalog(folder), folder / "catalog.duckdb")
    return Store(folder / "catalog.duckdb")


def write(folder: Path) -> Path:
    """This catalog as YAML files in `folder`."""
    return write_yaml_catalog(folder, ROLES, EVIDENCE, AT)
