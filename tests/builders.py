"""Catalog objects the tests build their own catalogs from (each test file gives them names of its own)."""
from __future__ import annotations


def watched_source(name: str, acl: list[str], loaded_at: str | None, *, owner: str, since: str,
                   text: str | None = None, warn: int = 6, error: int = 24) -> list[dict]:
    """A raw source table as dbt describes it, its freshness policy, and its last recorded load (none when
    `loaded_at` is None: a source nobody has loaded yet)."""
    entity = f"source.{name}"
    common = {"entity_id": entity, "authority": "authoritative", "lifecycle": "current", "acl": acl}
    out = [
        {**common, "evidence_id": f"{entity}.table", "kind": "source", "title": f"{name} (source table)",
         "version": "1", "authority_class": "dbt_manifest", "valid_from": since, "owner": owner,
         "text": text or f"{name} rows."},
        {**common, "evidence_id": f"freshness.{name}.policy", "kind": "freshness_policy",
         "title": f"Freshness policy for {name}", "version": "1", "authority_class": "dbt_source_config",
         "valid_from": since, "freshness": {"warn_after_hours": warn, "error_after_hours": error},
         "text": f"Warn after {warn} h, error after {error} h."},
    ]
    if loaded_at:
        out.append({**common, "evidence_id": f"freshness.{name}.load", "kind": "freshness_observation",
                    "title": f"{name} last load", "version": loaded_at, "authority_class": "dbt_run_results",
                    "freshness": {"loaded_at": loaded_at}, "text": "Max loaded_at recorded by dbt source freshness."})
    return out
