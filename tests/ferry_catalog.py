"""A catalog the tests write themselves, with none of the demo's names: a ferry operator. Its metrics share words in
the ways that misled the question reader: "Seated passengers" (head noun "passengers", both roles) beside a
purser-only "Passenger boarding fee" (alias PBF); "Fare revenue" with two versions and a purser-only draft that
disagrees, while the dispatcher's review queue holds only a draft about seated passengers; a purser-only "Fleet
glossary" whose first word the dispatcher's catalog also uses. The clock is the catalog's own."""
from __future__ import annotations

from datetime import datetime, timezone

import pytest
from conftest import asker

from core.catalog.envelope import Behavior
from core.explain.render import render_text

AT = datetime(2027, 8, 2, 9, 0, tzinfo=timezone.utc)
ROLES = ["dispatcher", "purser"]
OWNER = "Harbour Analytics (Odile Marr)"


def _metric(name: str, title: str, version: str, formula: str, acl: list[str], valid_from: str,
            valid_to: str | None = None, aliases: list[str] = (), text: str = "") -> dict:
    out = {"evidence_id": f"metric.{name}.v{version}", "entity_id": f"metric.{name}", "kind": "metric_definition",
           "title": f"{title} v{version}", "version": version, "authority": "authoritative", "lifecycle": "current",
           "authority_class": "semantic_registry", "valid_from": valid_from, "acl": acl, "owner": OWNER,
           "aliases": list(aliases), "metric": {"formula": formula, "grain": "one row per sailing", "unit": "count"},
           "text": text or f"{title}: {formula}."}
    if valid_to:
        out["valid_to"] = valid_to
    return out


def _doc(evidence_id: str, entity_id: str, title: str, acl: list[str], text: str, lifecycle: str = "current",
         authority_class: str = "wiki", valid_from: str = "2024-01-01") -> dict:
    return {"evidence_id": evidence_id, "entity_id": entity_id, "kind": "documentation", "title": title,
            "version": "1", "authority": "non_authoritative", "lifecycle": lifecycle, "authority_class": authority_class,
            "valid_from": valid_from, "acl": acl, "owner": OWNER, "text": text}


EVIDENCE = [
    # Its head noun is "passengers": the only word a question about the hidden boarding fee shares with it.
    _metric("seated_passengers", "Seated passengers", "1", "COUNT(DISTINCT ticket_id) WHERE seat_assigned",
            ROLES, "2024-01-01", text="Passengers with an assigned seat on a sailing, counted across the fleet."),
    # Purser only: for the dispatcher it does not exist, exactly like a name nobody ever wrote.
    _metric("passenger_boarding_fee", "Passenger boarding fee", "1", "SUM(boarding_fee_eur) / COUNT(ticket_id)",
            ["purser"], "2024-01-01", aliases=["pbf", "boarding fee"],
            text="What we charge to board a passenger, averaged per ticket."),
    _metric("fare_revenue", "Fare revenue", "1", "SUM(fare_eur)", ROLES, "2024-01-01", "2025-01-01"),
    _metric("fare_revenue", "Fare revenue", "2", "SUM(fare_eur) - SUM(refund_eur)", ROLES, "2025-01-01"),
    # Drafts that disagree: fare revenue's is the purser's only; the dispatcher's review queue holds only the
    # seated passengers draft, which the old reading answered in place of fare revenue.
    _doc("draft.fare_revenue.2025", "metric.fare_revenue", "Draft - fare revenue net of port taxes", ["purser"],
         "DRAFT. Proposal to subtract port taxes from fare revenue. Not approved.", "draft", "finance_draft",
         "2025-03-01"),
    _doc("draft.seated_passengers.2025", "metric.seated_passengers", "Draft - seated passengers incl. standby",
         ROLES, "DRAFT. Proposal to count standby passengers as seated. Not approved.", "draft", "ops_draft",
         "2025-02-01"),
    # The purser's glossary: the dispatcher knows the word "fleet" (the seated passengers text uses it) but may not
    # see this document.
    _doc("doc.fleet_glossary.2023", "doc.fleet_glossary", "Fleet glossary (2023)", ["purser"],
         "Terms used on board. A passenger is anyone holding a ticket for the sailing, crew excluded."),
]


@pytest.fixture(scope="module")
def ask_ferry(tmp_path_factory, embedder):
    return asker(tmp_path_factory, embedder, "ferry", ROLES, EVIDENCE, AT)


def shown(env) -> str:
    """Everything a user or a client can read: the envelope as JSON and the text rendering."""
    return env.model_dump_json(exclude={"evaluated_at"}) + render_text(env)


def not_found(env) -> str:
    assert env.behavior is Behavior.not_found_or_not_authorized, (env.behavior, env.entity_id, env.verdict)
    assert env.entity_id is None and not env.selected and not env.documents
    return render_text(env)
