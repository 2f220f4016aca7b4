"""A catalog the tests write themselves, with none of the demo's names, and a warehouse to compute its values on:
a tram operator. "Fare takings" (euros) changed definition on 1 Jan 2027 (v2 nets out refunds); "Late tram share"
(percent) has one version. The ticket taps source was last loaded on 6 Mar 2028 at 21:00, so at the catalog's
clock (8 Mar 2028 09:00) it is failing (error after 24 h), while every month up to February 2028 was loaded in
full; the depot log source has no load recorded at all. Documents: a depot handbook both roles read, a fare
memo only the controller reads, and a timetable export nobody may read, in the steward auditor's review queue."""
from __future__ import annotations

from datetime import date, datetime, timezone
from pathlib import Path

import duckdb
import yaml
from builders import watched_source
from visits_catalog import catalog_store

AT = datetime(2028, 3, 8, 9, 0, tzinfo=timezone.utc)
ROLES = ["controller", "depot"]
OWNER = "Tram Finance (Ines Vogt)"


def _metric(name, title, version, sql, formula, unit, valid_from, valid_to=None, model="fct_taps", acl=ROLES):
    out = {"evidence_id": f"metric.{name}.v{version}", "entity_id": f"metric.{name}", "kind": "metric_definition",
           "title": f"{title} v{version}", "version": version, "authority": "authoritative", "lifecycle": "current",
           "authority_class": "semantic_registry", "valid_from": valid_from, "acl": acl, "owner": OWNER,
           "links": {"implemented_by": [f"model.{model}.v1"]},
           "metric": {"sql": sql, "formula": formula, "grain": "one row per tap", "unit": unit,
                      "time_dimension": "tapped_on"},
           "text": f"{title}: {formula}."}
    if valid_to:
        out["valid_to"] = valid_to
    return out


def _model(name, relation, acl=ROLES):
    return {"evidence_id": f"model.{name}.v1", "entity_id": f"model.{name}", "kind": "model", "title": f"{name} v1",
            "version": "1", "authority": "authoritative", "lifecycle": "current", "authority_class": "dbt_manifest",
            "valid_from": "2025-01-01", "acl": acl, "owner": OWNER,
            "model": {"relation": relation, "grain": "one row per tap", "primary_key": ["tap_id"]},
            "text": f"{name}: one row per tap."}


def _doc(evidence_id, title, acl, text):
    return {"evidence_id": evidence_id, "entity_id": evidence_id, "kind": "documentation", "title": title,
            "version": "1", "authority": "non_authoritative", "lifecycle": "current", "authority_class": "wiki",
            "valid_from": "2025-01-01", "acl": acl, "owner": OWNER, "text": text}


SUM_V1 = "SELECT round(sum(fare_eur), 2) AS value FROM {{ model }} WHERE tapped_on >= $start AND tapped_on < $end"
SUM_V2 = ("SELECT round(sum(fare_eur) - sum(refund_eur), 2) AS value FROM {{ model }} "
          "WHERE tapped_on >= $start AND tapped_on < $end")
LATE = ("SELECT round(100.0 * avg(CASE WHEN late THEN 1 ELSE 0 END), 2) AS value FROM {{ model }} "
        "WHERE tapped_on >= $start AND tapped_on < $end")

EVIDENCE = [
    _metric("fare_takings", "Fare takings", "1", SUM_V1, "SUM(fare_eur)", "USD", "2025-01-01", "2027-01-01"),
    _metric("fare_takings", "Fare takings", "2", SUM_V2, "SUM(fare_eur) - SUM(refund_eur)", "USD", "2027-01-01"),
    _metric("late_tram_share", "Late tram share", "1", LATE, "AVG(late)", "percent", "2025-01-01", model="fct_runs"),
    # A metric whose formula uses another metric: its lineage runs through fare takings to the taps source.
    _metric("takings_per_run", "Takings per run", "1",
            "SELECT round(count(*), 2) AS value FROM {{ model }} WHERE tapped_on >= $start AND tapped_on < $end",
            "fare_takings / COUNT(run_id)", "USD", "2025-01-01", model="fct_runs"),
    _model("fct_taps", "trams.fct_taps"),
    _model("fct_runs", "trams.fct_runs"),
    {"evidence_id": "lineage.trams.v1", "entity_id": "lineage.trams", "kind": "lineage", "title": "Tram lineage",
     "version": "1", "authority": "authoritative", "lifecycle": "current", "authority_class": "dbt_manifest",
     "valid_from": "2025-01-01", "acl": ROLES,
     "edges": [["source.raw_fares.taps", "model.fct_taps.v1"], ["model.fct_taps.v1", "metric.fare_takings.v1"],
               ["model.fct_taps.v1", "metric.fare_takings.v2"], ["source.raw_depot.runs", "model.fct_runs.v1"],
               ["model.fct_runs.v1", "metric.late_tram_share.v1"], ["model.fct_runs.v1", "metric.takings_per_run.v1"]],
     "text": "raw_fares.taps -> fct_taps -> fare takings; raw_depot.runs -> fct_runs -> late tram share."},
    _doc("doc.depot_handbook", "Depot handbook", ROLES, "How the depot logs runs and late departures."),
    _doc("doc.fare_memo", "Fare policy memo", ["controller"], "Controller-only notes on the 2027 refund netting."),
    # Nobody's: an empty access list, which puts it in the auditor's (steward's) review queue.
    _doc("doc.timetable_export", "Timetable glossary export", [], "An old export of timetable terms."),
    *watched_source("raw_fares.taps", ROLES, "2028-03-06T21:00:00Z", owner=OWNER, since="2025-01-01"),
    *watched_source("raw_depot.runs", ROLES, None, owner=OWNER, since="2025-01-01"),
]


def warehouse(path: Path) -> Path:
    """Taps: each month of 2026-2028 a fixed set of fares and refunds, so every value is known in advance."""
    con = duckdb.connect(str(path))
    con.execute("CREATE SCHEMA trams")
    con.execute("CREATE TABLE trams.fct_taps (tap_id INTEGER, tapped_on DATE, fare_eur DOUBLE, refund_eur DOUBLE)")
    con.execute("CREATE TABLE trams.fct_runs (tap_id INTEGER, tapped_on DATE, late BOOLEAN)")
    rows, runs, n = [], [], 0
    for year in (2026, 2027, 2028):
        for month in range(1, 13):
            for k in range(month):  # month m holds m taps of 100 euros, one refunded 10 euros
                n += 1
                rows.append((n, date(year, month, 1 + k), 100.0, 10.0 if k == 0 else 0.0))
                runs.append((n, date(year, month, 1 + k), k == 0))
    con.executemany("INSERT INTO trams.fct_taps VALUES (?, ?, ?, ?)", rows)
    con.executemany("INSERT INTO trams.fct_runs VALUES (?, ?, ?)", runs)
    con.close()
    return path


ROLES_FILE = {"settings": {"evaluation_time": AT.isoformat().replace("+00:00", "Z")},
              "roles": [{"name": r} for r in ROLES] + [{"name": "auditor", "steward": True}],
              "principals": [{"name": "ines", "roles": ROLES}, {"name": "uwe", "roles": ["auditor"]}]}


def write(folder: Path) -> Path:
    """This catalog as YAML files in `folder` (created), for `asof ingest` or conftest.build."""
    folder.mkdir(parents=True)
    (folder / "00_roles.yaml").write_text(yaml.safe_dump(ROLES_FILE))
    (folder / "10_evidence.yaml").write_text(yaml.safe_dump({"evidence": EVIDENCE}, sort_keys=False))
    return folder


def build(folder: Path):
    """(store, warehouse path) for this catalog in `folder`."""
    store = catalog_store(folder / "catalog", ROLES_FILE, EVIDENCE)
    return store, warehouse(folder / "warehouse.duckdb")
