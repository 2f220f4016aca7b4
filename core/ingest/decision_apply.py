"""Steward decisions applied to a catalog: after every ingest of the team's files, and as the new revision a
decision writes.

A standing decision (core/ingest/decision_file.py) sets overlay fields on evidence objects. Against what an ingest
read from the source, each decision is one of:
  - carried: the source already says what the decision set (the team applied the exported patch); nothing to do;
  - in force: the source still says what it said before the decision; the decision's values are applied;
  - contradicted: the source now says something else (or no longer has the object); the decision is not applied,
    the source's statement stands, and the review queue shows the item again with both sides
    (core/answer/decision_queue.py).
"""
from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from core.catalog.evidence import Catalog, CatalogSettings, Evidence, Principal
from core.catalog.spilled import SpilledEvidence
from core.catalog.store import Store
from core.ingest.decision_file import (
    FIELDS,
    Contradiction,
    Decision,
    SourceCheck,
    append,
    now_utc,
    read_records,
)


def field_value(ev: Evidence, name: str) -> Any:
    """An object's value of one overlay field, in the form a decisions file writes it."""
    if name == "valid_through":
        return (ev.valid_to - timedelta(days=1)).isoformat() if ev.valid_to else None
    value = getattr(ev, name)
    if name == "acl":
        return sorted(value)
    if isinstance(value, date):
        return value.isoformat()
    return getattr(value, "value", value)


def normal(name: str, value: Any) -> Any:
    """A recorded value in the same form as `field_value` (YAML reads dates back as dates)."""
    if value is None:
        return None
    if name == "acl":
        return sorted(str(v) for v in value)
    if isinstance(value, date):
        return value.isoformat()
    return str(value)


def with_fields(ev: Evidence, fields: dict[str, Any]) -> Evidence:
    """`ev` with these overlay fields set (validated as a catalog file's would be; a new content hash)."""
    data = ev.model_dump()
    for name, value in fields.items():
        if name not in FIELDS:
            raise ValueError(f"a decision cannot set {name!r}; it sets {', '.join(FIELDS)}")
        if name == "valid_through":
            data["valid_to"] = date.fromisoformat(str(value)) + timedelta(days=1) if value else None
        else:
            data[name] = value
    data["content_hash"] = None
    return Evidence.model_validate(data)


def judge(decision: Decision, by_id: dict[str, Evidence]) -> list[Contradiction] | str:
    """"carried", "apply", or the fields where the source contradicts the decision."""
    carried, clashes = True, []
    for eid, fields in decision.objects.items():
        ev = by_id.get(eid)
        for name, value in fields.items():
            decided, before = normal(name, value), normal(name, decision.before.get(eid, {}).get(name))
            now = None if ev is None else field_value(ev, name)
            if ev is None:
                clashes.append(Contradiction(evidence_id=eid, field=name, decided=decided, source="(no such object)"))
            elif now != decided:
                carried = False
                if now != before:
                    clashes.append(Contradiction(evidence_id=eid, field=name, decided=decided, source=now))
    if clashes:
        return clashes
    return "carried" if carried else "apply"


def apply(evidence: Sequence[Evidence], decisions: list[Decision]) -> tuple[Sequence[Evidence], SourceCheck]:
    """The evidence with every standing decision applied in order, and what the source said of each. Only the
    objects the decisions name are held (an ingest keeps the others on disk: core/catalog/spilled.py)."""
    named = {eid for d in decisions for eid in d.objects}
    by_id = {e.evidence_id: e for e in evidence if e.evidence_id in named}
    applied: set[str] = set()
    check = SourceCheck(source_check="", at=now_utc())
    for d in decisions:
        verdict = judge(d, by_id)
        if verdict == "carried":
            check.carried.append(d.decision)
        elif verdict == "apply":
            for eid, fields in d.objects.items():
                by_id[eid] = with_fields(by_id[eid], fields)
                applied.add(eid)
        else:
            check.contradicted[d.decision] = verdict
    if not applied:
        return evidence, check
    out = [] if isinstance(evidence, list) else SpilledEvidence()
    for e in evidence:
        out.append(by_id[e.evidence_id] if e.evidence_id in applied else e)
    return out, check


def reapply(db_path: str | Path, catalog: Catalog, source: str) -> Catalog:
    """After an ingest read the team's files: the standing decisions applied again, and a source check recorded
    (keyed by the revision it describes, so it counts once an ingest writes that revision)."""
    records = read_records(db_path)
    standing = [d for d in records.standing() if d.objects]  # accepting the source changes nothing to check
    if not standing:
        return catalog
    evidence, check = apply(catalog.evidence, standing)
    out = catalog.model_copy(update={"evidence": evidence, "warnings": list(catalog.warnings)})
    check.source_check, check.source, check.ingest = out.revision(), source, _next_ingest(db_path)
    for d in standing:
        if d.decision in check.carried:
            out.warnings.append(f"steward decision {d.decision} ({d.summary}) is now in the source: carried")
        elif d.decision in check.contradicted:
            sides = "; ".join(f"{c.evidence_id} {c.field}: decided {c.decided}, the source says {c.source}"
                              for c in check.contradicted[d.decision])
            out.warnings.append(f"the source contradicts steward decision {d.decision} ({d.summary}): {sides}; "
                                "it is not applied and its item is back in the review queue")
    append(db_path, check)
    return out


def _next_ingest(db_path: str | Path) -> int | None:
    if not Path(db_path).exists():
        return 1
    try:
        store = Store(db_path)
    except Exception:  # noqa: BLE001 (an unreadable old file is replaced whole: its history starts again)
        return 1
    try:
        return (store.con.execute("SELECT max(ingest) FROM ingests").fetchone()[0] or 0) + 1
    finally:
        store.close()


def catalog_of(store: Store) -> Catalog:
    """The current catalog as one Catalog, read back from its database: what a decision's revision starts from
    (no source file is read again)."""
    meta = store.meta()
    settings = CatalogSettings(fiscal_year_start_month=store.fiscal_year_start_month, evaluation_time=store.clock)
    principals = [Principal(name=p, roles=r) for p, r in store.principals().items()]
    return Catalog(settings=settings, roles=store.roles(), principals=principals,
                   evidence=store.all_evidence_for_review(), warnings=json.loads(meta.get("warnings") or "[]"))
