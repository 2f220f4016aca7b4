"""A catalog the tests write themselves, with none of the demo's names, and a warehouse to compute its values on: a
lido (an open-air pool). Its clock is Wednesday 8 Mar 2028, 09:00 UTC.

- "Pass holders" (a stock: how many season passes are held at a moment, `time_aggregation: last`) changed definition
  on 1 Jan 2027: v2 leaves staff passes out. A month-end snapshot of month m in year y holds 100 * (y - 2026) + 10 * m
  passes, one of them a staff pass.
- "Ticket sales" (USD, summed over time): each month m holds m tickets of 10 dollars.
- "Monthly swim visits" (one version): a count of visits whose name says "monthly"; each month m holds 2 * m visits.
- "Pool temperature" (degrees, `time_aggregation: average`): month m reads 20 + m degrees; v2, from 1 Jun 2028, is
  approved ahead of time.
- "Ticket sales" v2 is a draft proposed from 1 Sep 2028 (not approved).
- Three pages nobody may read (an empty access list) wait in the "office" steward's review queue; the office also
  reads the passes model, the gate source and the lineage between them, not the metrics.
- "Till float" (the cashier's alone) changed definition on 1 Jul 2027.
- The gate source was loaded every day at 06:00 UTC up to 7 Mar 2028; its policy warns after 6 h and fails after
  24 h, so at the clock's 09:00 it was loaded 27 h before (failing)."""
from __future__ import annotations

from datetime import date, datetime, timedelta, timezone
from pathlib import Path

import duckdb
import yaml
from builders import watched_source
from visits_catalog import catalog_store

AT = datetime(2028, 3, 8, 9, 0, tzinfo=timezone.utc)
ROLES = ["lifeguard", "cashier"]
OWNER = "Lido Office (Maren Holt)"

PASSES = ("SELECT count(*) AS value FROM {{ model }} "
          "WHERE snapshot_on = (SELECT max(snapshot_on) FROM {{ model }} WHERE snapshot_on < $end)")
PASSES_V2 = ("SELECT count(*) FILTER (WHERE NOT is_staff) AS value FROM {{ model }} "
             "WHERE snapshot_on = (SELECT max(snapshot_on) FROM {{ model }} WHERE snapshot_on < $end)")
SALES = "SELECT round(sum(amount_usd), 2) AS value FROM {{ model }} WHERE sold_on >= $start AND sold_on < $end"
VISITS = "SELECT count(*) AS value FROM {{ model }} WHERE visited_on >= $start AND visited_on < $end"
TEMP = "SELECT round(avg(celsius), 2) AS value FROM {{ model }} WHERE read_on >= $start AND read_on < $end"


def metric(name, title, version, sql, unit, model, valid_from, valid_to=None, over_time=None, lifecycle="current",
           acl=ROLES):
    spec = {"sql": sql, "formula": f"{title} from {model}", "grain": "one row per event", "unit": unit,
            "time_dimension": "day"}
    if over_time:
        spec["time_aggregation"] = over_time
    out = {"evidence_id": f"metric.{name}.v{version}", "entity_id": f"metric.{name}", "kind": "metric_definition",
           "title": f"{title} v{version}", "label": title, "version": version, "authority": "authoritative",
           "lifecycle": lifecycle, "authority_class": "semantic_registry", "valid_from": valid_from, "acl": acl,
           "owner": OWNER, "links": {"implemented_by": [f"model.{model}.v1"]}, "metric": spec,
           "text": f"{title}, version {version}."}
    if valid_to:
        out["valid_to"] = valid_to
    return out


def _model(name, relation, acl=ROLES):
    return {"evidence_id": f"model.{name}.v1", "entity_id": f"model.{name}", "kind": "model", "title": f"{name} v1",
            "version": "1", "authority": "authoritative", "lifecycle": "current", "authority_class": "dbt_manifest",
            "valid_from": "2025-01-01", "acl": acl, "owner": OWNER,
            "model": {"relation": relation, "grain": "one row per event", "primary_key": ["id"]},
            "text": f"{name}: one row per event."}


def _loads(source: str, first: date, last: date) -> list[dict]:
    """One recorded load a day at 06:00 UTC from `first` to `last`: the history a moment's freshness is read from."""
    out, day = [], first
    while day <= last:
        at = f"{day.isoformat()}T06:00:00Z"
        out.append({"evidence_id": f"freshness.{source}.load.{day.isoformat()}", "entity_id": f"source.{source}",
                    "kind": "freshness_observation", "title": f"{source} load {day.isoformat()}", "version": at,
                    "authority": "authoritative", "lifecycle": "current", "authority_class": "dbt_run_results",
                    "acl": ROLES, "freshness": {"loaded_at": at}, "text": "Max loaded_at recorded by dbt."})
        day += timedelta(days=1)
    return out


EVIDENCE = [
    metric("pass_holders", "Pass holders", "1", PASSES, "customers", "fct_passes", "2025-01-01", "2027-01-01",
           over_time="last", lifecycle="historical"),
    metric("pass_holders", "Pass holders", "2", PASSES_V2, "customers", "fct_passes", "2027-01-01", over_time="last"),
    metric("ticket_sales", "Ticket sales", "1", SALES, "USD", "fct_tickets", "2025-01-01"),
    metric("monthly_swim_visits", "Monthly swim visits", "1", VISITS, "customers", "fct_visits", "2025-01-01"),
    metric("pool_temperature", "Pool temperature", "1", TEMP, "degrees", "fct_temps", "2025-01-01", "2028-06-01",
           over_time="average"),
    # Approved ahead of time: from June 2028 the temperature is read at the deep end (what is coming)
    metric("pool_temperature", "Pool temperature", "2", TEMP, "degrees", "fct_temps", "2028-06-01",
           over_time="average"),
    # The cashier's alone: its change in July 2027 is never listed or counted for the lifeguard
    metric("till_float", "Till float", "1", SALES, "USD", "fct_tickets", "2025-01-01", "2027-07-01",
           lifecycle="historical", acl=["cashier"]),
    metric("till_float", "Till float", "2", SALES, "USD", "fct_tickets", "2027-07-01", acl=["cashier"]),
    # A proposal nobody has approved: ticket sales net of refunds from September 2028
    {**metric("ticket_sales", "Ticket sales", "2", SALES, "USD", "fct_tickets", "2028-09-01", lifecycle="draft"),
     "authority": "non_authoritative", "authority_class": "wiki", "title": "Ticket sales v2 proposal"},
    _model("fct_passes", "lido.fct_passes", acl=[*ROLES, "office"]),
    _model("fct_tickets", "lido.fct_tickets"),
    _model("fct_visits", "lido.fct_visits"),
    _model("fct_temps", "lido.fct_temps"),
    {"evidence_id": "lineage.lido.v1", "entity_id": "lineage.lido", "kind": "lineage", "title": "Lido lineage",
     "version": "1", "authority": "authoritative", "lifecycle": "current", "authority_class": "dbt_manifest",
     "valid_from": "2025-01-01", "acl": [*ROLES, "office"],
     "edges": [["source.raw_gate.entries", f"model.{m}.v1"] for m in ("fct_passes", "fct_tickets", "fct_visits",
                                                                      "fct_temps")]
     + [["model.fct_passes.v1", "metric.pass_holders.v1"], ["model.fct_passes.v1", "metric.pass_holders.v2"],
        ["model.fct_tickets.v1", "metric.ticket_sales.v1"], ["model.fct_visits.v1", "metric.monthly_swim_visits.v1"],
        ["model.fct_temps.v1", "metric.pool_temperature.v1"], ["model.fct_temps.v1", "metric.pool_temperature.v2"]],
     "text": "raw_gate.entries feeds every lido model."},
    *watched_source("raw_gate.entries", [*ROLES, "office"], None, owner=OWNER, since="2025-01-01"),
    # Nobody's (an empty access list): in the office steward's review queue
    *({"evidence_id": f"doc.{key}", "entity_id": f"doc.{key}", "kind": "documentation", "title": title,
       "version": "1", "authority": "non_authoritative", "lifecycle": "current", "authority_class": "wiki",
       "valid_from": "2025-01-01", "acl": [], "owner": OWNER, "text": f"{title}."}
      for key, title in (("opening_hours", "Lido opening hours and lane timetable for the summer season wiki page"),
                         ("locker_rules", "Locker deposit rules and lost property procedure from the old handbook"),
                         ("kiosk_menu", "Kiosk menu prices and allergen notes kept by the summer staff"))),
    *_loads("raw_gate.entries", date(2024, 6, 1), date(2028, 3, 7)),
]

ROLES_FILE = {"settings": {"evaluation_time": AT.isoformat().replace("+00:00", "Z")},
              "roles": [{"name": r} for r in ROLES] + [{"name": "office", "steward": True}]}


def warehouse(path: Path) -> Path:
    con = duckdb.connect(str(path))
    con.execute("CREATE SCHEMA lido")
    con.execute("CREATE TABLE lido.fct_passes (id INTEGER, snapshot_on DATE, is_staff BOOLEAN)")
    con.execute("CREATE TABLE lido.fct_tickets (id INTEGER, sold_on DATE, amount_usd DOUBLE)")
    con.execute("CREATE TABLE lido.fct_visits (id INTEGER, visited_on DATE)")
    con.execute("CREATE TABLE lido.fct_temps (id INTEGER, read_on DATE, celsius DOUBLE)")
    passes, tickets, visits, temps, n = [], [], [], [], 0
    for year in (2026, 2027, 2028):
        for month in range(1, 13):
            first = date(year, month, 1)
            month_end = (first.replace(day=28) + timedelta(days=4)).replace(day=1) - timedelta(days=1)
            for k in range(100 * (year - 2026) + 10 * month):
                n += 1
                passes.append((n, month_end, k == 0))
            for k in range(month):
                n += 1
                tickets.append((n, date(year, month, 1 + k), 10.0))
            for k in range(2 * month):
                n += 1
                visits.append((n, date(year, month, 1 + k)))
            n += 1
            temps.append((n, date(year, month, 1), 20.0 + month))
    con.executemany("INSERT INTO lido.fct_passes VALUES (?, ?, ?)", passes)
    con.executemany("INSERT INTO lido.fct_tickets VALUES (?, ?, ?)", tickets)
    con.executemany("INSERT INTO lido.fct_visits VALUES (?, ?)", visits)
    con.executemany("INSERT INTO lido.fct_temps VALUES (?, ?, ?)", temps)
    con.close()
    return path


def build(folder: Path):
    """(store, warehouse path) for this catalog in `folder`."""
    store = catalog_store(folder / "catalog", ROLES_FILE, EVIDENCE)
    return store, warehouse(folder / "warehouse.duckdb")


def write(folder: Path) -> Path:
    """This catalog as YAML files in `folder` (created), for `asof ingest` or conftest.build."""
    folder.mkdir(parents=True)
    (folder / "00_roles.yaml").write_text(yaml.safe_dump(ROLES_FILE))
    (folder / "10_evidence.yaml").write_text(yaml.safe_dump({"evidence": EVIDENCE}, sort_keys=False))
    return folder
