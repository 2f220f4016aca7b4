"""Everything `python -m core ingest` can read, merged into one validated Catalog, and what changed.

Inputs: a hand-written catalog (JSON/YAML), a dbt target folder, OpenLineage events, a governance overlay
and loose Markdown documents. Nothing is written here (but the decisions file's source check, which counts only
once an ingest writes the revision it names); the CLI writes the catalog and the index only when this returns
without problems.
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timezone
from itertools import chain
from pathlib import Path

import duckdb

from core.catalog.evidence import Catalog, evidence_keys
from core.catalog.spilled import SpilledEvidence
from core.catalog.store import open_data_file
from core.ingest.dbt import dbt_evidence, read_target
from core.ingest.decision_apply import reapply
from core.ingest.load import CatalogError, Problem, build_catalog, catalog_files, parse_file
from core.ingest.openlineage import read_openlineage
from core.ingest.overlay import Overlay, read_documents
from core.ingest.oversize import cut_oversized


@dataclass
class Changes:
    """Per-object fingerprints against the database being replaced (the added ones counted: a first ingest of a
    million objects would list every id)."""
    added: int = 0
    changed: list[str] = field(default_factory=list)
    acl_changed: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    unchanged: int = 0
    # What the inputs held, said once per input that has more to tell than its objects (OpenLineage's events).
    read: list[str] = field(default_factory=list)

    def summary(self) -> str:
        return (f"{self.added} added, {len(self.changed)} changed, {len(self.acl_changed)} with new "
                f"permissions, {len(self.removed)} removed, {self.unchanged} unchanged")


def _previous(db_path: str | Path) -> dict[str, tuple[str, str, datetime | None]]:
    path = Path(db_path)
    if not path.exists():
        return {}
    try:
        con = open_data_file(path)
        try:
            rows = con.execute("SELECT evidence_id, content_hash, acl_revision, recorded_at FROM evidence").fetchall()
        finally:
            con.close()
    except duckdb.Error:
        return {}  # an unreadable old file is replaced whole
    return {r[0]: (r[1], r[2], r[3]) for r in rows}


def _relations(evidence: list[dict]) -> dict[str, str]:
    """Relation names (db.schema.table, schema.table) of dbt nodes -> their ids, for OpenLineage datasets."""
    out = {}
    # A seed and a source can name the same table; the source is what pipelines read.
    rank = {"dbt_source": 0, "dbt_model": 1, "dbt_snapshot": 2, "dbt_seed": 3}
    for e in sorted(evidence, key=lambda e: rank.get(e.get("authority_class"), 4)):
        rel = ((e.get("model") or {}).get("relation") or "").lower()
        if rel and e["kind"] in ("model", "source"):
            parts = rel.split(".")
            for i in range(len(parts) - 1):
                out.setdefault(".".join(parts[i:]), e["evidence_id"])
    return out


def _entity_keys(evidence: list[dict]) -> dict[str, str]:
    keys = {}
    for e in evidence:
        keys[e["evidence_id"]] = keys[e["entity_id"]] = e["entity_id"]
        prefix, _, rest = e["entity_id"].partition(".")
        keys.setdefault(f"{prefix}:{rest.rsplit('.', 1)[-1]}", e["entity_id"])
        keys.setdefault(f"{prefix}:{rest}", e["entity_id"])
    return keys


def read_inputs(db_path: str | Path, catalog: str | Path | None = None, dbt: str | Path | None = None,
                openlineage: str | Path | None = None, overlay: str | Path | None = None,
                documents: str | Path | None = None) -> tuple[Catalog, Changes]:
    if not any((catalog, dbt, openlineage)):
        raise CatalogError([Problem(file="(command line)", message="nothing to ingest: give a CATALOG, --dbt "
                                                                   "or --openlineage")])
    problems: list[Problem] = []
    files = catalog_files(Path(catalog)) if catalog else []
    gov = Overlay.read(overlay)
    generated: list[dict] = []
    dbt_file = None
    warnings = []
    read: list[str] = []
    stage = "(inputs)"
    try:
        if dbt:
            stage = str(Path(dbt) / "manifest.json")
            art = read_target(dbt)
            dbt_file = art.files["manifest"]
            models = dbt_evidence(art)
            warnings += [f"{dbt_file}: {w}" for w in cut_oversized(models)]  # kept, cut, named: never dropped
            generated += models
        if openlineage:
            stage = str(openlineage)
            ol = read_openlineage(openlineage, _relations(generated))
            warnings += [f"{s.file}: event skipped: {s.reason}" for s in ol.skipped]
            warnings += [f"{s.file}: {s.reason}" for s in ol.not_read]
            read.append(ol.summary())
            warnings += [f"{s.file}: {s.reason}" for s in ol.warnings]
            generated += ol.evidence
        if generated or gov.path != "(no overlay)":
            stage = gov.path
            generated = gov.apply(generated)
            problems += gov.problems
    except (AttributeError, TypeError, KeyError, ValueError, IndexError, RecursionError) as exc:
        # The readers check the shapes they rely on; this catches any they missed, as a clear error.
        raise CatalogError([Problem(file=stage, message=f"content the reader cannot use "
                                                        f"({type(exc).__name__}: {str(exc)[:200]})")]) from exc
    folder = documents or gov.documents
    if folder:
        acl = list(gov.defaults.get("acl") or [])
        if not acl:
            first = gov.roles[0]
            acl = [first if isinstance(first, str) else first.get("name")]
        pages, doc_problems = read_documents(folder, _entity_keys(generated), acl)
        problems += doc_problems
    previous = _previous(db_path)
    now = datetime.now(timezone.utc)
    for e in generated:
        # First appearance survives re-ingests: it is when AsOf first saw the object.
        e.setdefault("recorded_at", (previous.get(e["evidence_id"]) or (None, None, None))[2] or now)
    head: list[tuple[str, dict]] = []
    tail: list[tuple[str, dict]] = [(f, {"evidence": [d]}) for f, d in pages] if folder else []
    if generated or dbt or openlineage:
        name = dbt_file or str(openlineage)
        roles = list(gov.roles) if (dbt or openlineage or overlay) else []
        head.append((name, {"roles": roles, "evidence": generated}))
    if gov.principals:  # named by the overlay's file when one is wrong
        tail.append((gov.path, {"principals": gov.principals}))
    # The catalog's files are parsed one at a time as validation reaches them, and its objects kept on disk
    # (core/catalog/spilled.py): a large catalog is never held whole, parsed or validated.
    docs = chain(head, _parsed(files, Path(catalog) if catalog else None, problems), tail)
    result = build_catalog(docs, str(catalog or dbt or openlineage), problems, into=SpilledEvidence())
    result.warnings.extend(warnings)
    # Steward decisions recorded beside the database stay in force over the source until it says the same
    # (carried) or contradicts them (back in the review queue): core/ingest/decision_apply.py.
    result = reapply(db_path, result, str(catalog or dbt or openlineage))
    changes = diff(result, previous)
    changes.read = read
    return result, changes


def _parsed(files: list[Path], named: Path | None, problems: list[Problem]) -> Iterator[tuple[str, dict | None]]:
    """Each catalog file parsed when it is reached; a file that cannot be read adds its problems and yields None."""
    for file in files:
        try:
            yield str(file), parse_file(file, follow=file == named)  # only the named path may be a link
        except CatalogError as exc:
            problems.extend(exc.problems)
            yield str(file), None


def refuse_wholesale_removal(changes: Changes, db_path: str | Path, allow_empty: bool) -> None:
    """An ingest that would remove every object of the current catalog is almost always a mistake (an
    empty file, a wrong path, a duplicate `evidence:` key): refused unless asked for with --allow-empty."""
    kept = len(changes.changed) + len(changes.acl_changed) + changes.unchanged
    if changes.removed and not kept and not allow_empty:
        raise CatalogError([Problem(file=str(db_path), message=(
            f"this ingest would remove all {len(changes.removed)} objects of the current catalog "
            f"({changes.added} added); nothing was written. Check the inputs, or pass --allow-empty "
            "to replace the catalog anyway"))])


def diff(catalog: Catalog, previous: dict[str, tuple]) -> Changes:
    ch = Changes()
    ids = set()
    for eid, content_hash, acl_revision in evidence_keys(catalog.evidence):
        old = previous.get(eid)
        if old is None:
            ch.added += 1
            continue
        ids.add(eid)
        if old[0] != content_hash:
            ch.changed.append(eid)
        elif old[1] != acl_revision:
            ch.acl_changed.append(eid)
        else:
            ch.unchanged += 1
    ch.removed = sorted(set(previous) - ids)
    return ch
