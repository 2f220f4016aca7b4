"""Whether a listed model or source meets a dbt condition (core/read/intents/dbt_listing.py), from what dbt recorded of it.

Read from the row's own object as the role's view hands it over: a test that reads a model the role may not see is
already gone (core/catalog/redact.py), so "models with a failing test" never counts a failure the role could not be
shown, and a source's freshness check is its freshness policy object, visible where the source is.
"""
from __future__ import annotations

from core.catalog.envelope import ListedEntity
from core.catalog.evidence import Evidence, Kind

_FALSY = {"false", "no", "none", "0", "off", "null", ""}
NAMED = 50  # names said in the verdict; the listing itself holds up to discover.MAX_ITEMS
CHECKED = {"tests": "the data tests recorded on each", "freshness": "whether each has a freshness policy",
           "tag": "each one's dbt tags", "materialized": "each one's materialization", "enabled": "whether dbt disables it",
           "group": "each one's dbt group", "contract": "whether its contract is enforced", "access": "its access level",
           "meta": "each one's dbt meta"}


def recorded(run, rows: list[ListedEntity]) -> dict[str, Evidence]:
    """Each row's object, parsed and redacted for the role (listing rows read only the evidence table's columns)."""
    return {e.evidence_id: e for e in run.view.by_ids([r.evidence_id for r in rows])}


def meets(value: str, row: ListedEntity, objs: list, full: dict[str, Evidence]) -> bool:
    field, _, arg = value.partition(":")
    if value == "freshness:none":
        return not any(o.kind is Kind.freshness_policy for o in objs)
    ev = full.get(row.evidence_id)
    spec = ev.model if ev is not None else None
    if spec is None:
        return False
    if value == "tests:without":
        return not spec.tests
    if value == "tests:with":
        return bool(spec.tests)
    if value == "tests:failing":
        return any(t.result is not None and t.result.status in ("fail", "error") for t in spec.tests)
    if field == "tag":
        return arg.lower() in {t.lower() for t in spec.tags}
    if field == "materialized":
        return (spec.materialized or "").lower() == arg
    if value == "enabled:false":
        return spec.enabled is False
    if field == "group":
        return (spec.group or "").lower() == arg.lower()
    if value == "contract:true":
        return spec.contract is True
    if field == "access":
        return (spec.access or "").lower() == arg
    if field == "meta":
        return meta_matches(value, spec.meta)
    return False


def checked_what(value: str) -> str:
    return CHECKED.get(value.partition(":")[0], "what dbt recorded of each")


def rest_note(total: int) -> str | None:
    """How to get the names the verdict leaves out."""
    if total <= NAMED:
        return None
    return (f"The answer names the first {NAMED} of {total}; the listing holds up to 200 (the Ask page's table, "
            "`ask --json` on the CLI, `listing.items` over MCP). Add a topic word, a tag or another condition to narrow "
            "it and see the rest.")


def meta_matches(value: str, meta: dict) -> bool:
    """Does a node's meta meet a meta condition? `meta:pii`: a key naming PII (or personal data) set to a true value;
    `meta:key=value`: that key (or its last dotted part) equal to the value, case-insensitively; `meta:key`: set."""
    arg = value.partition(":")[2]
    if arg == "pii":
        return any(("pii" in k.lower() or "personal" in k.lower()) and _truthy(v) for k, v in meta.items())
    key, _, want = arg.partition("=")
    for k, v in meta.items():
        if k.lower() != key and k.lower().rsplit(".", 1)[-1] != key:
            continue
        if not want:
            return _truthy(v)
        values = v if isinstance(v, list) else [v]
        if any(_said(x).lower() == want.lower() for x in values):
            return True
    return False


def _said(v) -> str:
    return "true" if v is True else "false" if v is False else "" if v is None else str(v)


def _truthy(v) -> bool:
    if isinstance(v, list):
        return bool(v)
    return _said(v).strip().lower() not in _FALSY
