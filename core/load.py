"""Reads a catalog from a JSON/YAML file or a folder of them and validates all of it.

Every problem is reported with its file, evidence_id and field; nothing is written unless the
whole catalog is valid (the store writes only what this returns).
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ValidationError

from .catalog import Catalog, CatalogSettings, Evidence, Kind, Principal, Role

SUFFIXES = {".json", ".yaml", ".yml"}


class Problem(BaseModel):
    file: str
    evidence_id: str | None = None
    field: str | None = None
    message: str

    def __str__(self) -> str:
        where = self.file
        if self.evidence_id:
            where += f": evidence {self.evidence_id}"
        if self.field:
            where += f": field {self.field}"
        return f"{where}: {self.message}"


class CatalogError(Exception):
    def __init__(self, problems: list[Problem]):
        self.problems = problems
        super().__init__("\n".join(str(p) for p in problems))


def catalog_files(path: Path) -> list[Path]:
    if not path.exists():
        raise CatalogError([Problem(file=str(path), message="no such file or folder")])
    if path.is_dir():
        found = sorted(p for p in path.rglob("*") if p.suffix in SUFFIXES and p.is_file())
        if not found:
            raise CatalogError([Problem(file=str(path), message="folder holds no .json/.yaml/.yml catalog file")])
        return found
    return [path]


def parse_file(path: Path) -> Any:
    text = path.read_text(encoding="utf-8")
    try:
        if path.suffix == ".json":
            return json.loads(text)
        return yaml.safe_load(text)
    except json.JSONDecodeError as exc:
        raise CatalogError([Problem(file=str(path), message=f"malformed JSON at line {exc.lineno} column {exc.colno}: {exc.msg}")])
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        at = f" at line {mark.line + 1} column {mark.column + 1}" if mark else ""
        raise CatalogError([Problem(file=str(path), message=f"malformed YAML{at}: {getattr(exc, 'problem', exc)}")])


def _field(loc: tuple) -> str:
    return ".".join(str(part) for part in loc) or "(object)"


def load_catalog(path: str | Path) -> Catalog:
    """Load and validate; raises CatalogError listing every problem found."""
    docs, problems = [], []
    for file in catalog_files(Path(path)):
        try:
            docs.append((str(file), parse_file(file)))
        except CatalogError as exc:
            problems.extend(exc.problems)
    return build_catalog(docs, str(path), problems)


def build_catalog(docs: list[tuple[str, Any]], where: str, problems: list[Problem] | None = None) -> Catalog:
    """Validate catalog documents (each named by the file it came from) into one Catalog, or raise
    CatalogError with every problem. The dbt and OpenLineage readers produce documents too."""
    problems = list(problems or [])
    warnings: list[str] = []
    roles: dict[str, Role] = {}
    principals: list[Principal] = []
    evidence: list[Evidence] = []
    origin: dict[str, str] = {}
    settings: dict[str, Any] = {}

    for fname, doc in docs:
        if doc is None:
            continue
        if not isinstance(doc, dict):
            problems.append(Problem(file=fname, message="top level must be a mapping with 'roles' and/or 'evidence'"))
            continue
        unknown = set(doc) - {"roles", "principals", "evidence", "settings"}
        if unknown:
            problems.append(Problem(file=fname, field=", ".join(sorted(unknown)), message="unknown top-level key"))
        for i, raw in enumerate(doc.get("roles") or []):
            try:
                role = Role.model_validate(raw)
                roles[role.name] = role
            except ValidationError as exc:
                for err in exc.errors():
                    problems.append(Problem(file=fname, field=f"roles[{i}].{_field(err['loc'])}", message=err["msg"]))
        raw_settings = doc.get("settings") or {}
        try:
            settings.update(CatalogSettings.model_validate(raw_settings).model_dump(exclude_unset=True))
        except ValidationError as exc:
            for err in exc.errors():
                problems.append(Problem(file=fname, field=f"settings.{_field(err['loc'])}", message=err["msg"]))
        for i, raw in enumerate(doc.get("principals") or []):
            try:
                principals.append(Principal.model_validate(raw))
            except ValidationError as exc:
                for err in exc.errors():
                    problems.append(Problem(file=fname, field=f"principals[{i}].{_field(err['loc'])}", message=err["msg"]))
        items = doc.get("evidence") or []
        if not isinstance(items, list):
            problems.append(Problem(file=fname, field="evidence", message="must be a list"))
            continue
        for i, raw in enumerate(items):
            eid = raw.get("evidence_id") if isinstance(raw, dict) else None
            label = eid or f"#{i}"
            if not isinstance(raw, dict):
                problems.append(Problem(file=fname, evidence_id=label, message="evidence item must be a mapping"))
                continue
            try:
                ev = Evidence.model_validate(raw)
            except ValidationError as exc:
                for err in exc.errors():
                    msg = err["msg"]
                    if err["type"] == "enum":
                        msg = f"{msg} (got {err.get('input')!r})"
                    problems.append(Problem(file=fname, evidence_id=label, field=_field(err["loc"]), message=msg))
                continue
            if ev.evidence_id in origin:
                problems.append(Problem(file=fname, evidence_id=ev.evidence_id, field="evidence_id",
                                        message=f"duplicate evidence_id (first defined in {origin[ev.evidence_id]})"))
                continue
            origin[ev.evidence_id] = fname
            evidence.append(ev)

    if not roles:
        problems.append(Problem(file=where, field="roles", message="the catalog declares no roles"))
    problems.extend(_cross_checks(evidence, roles, principals, origin, warnings))
    if problems:
        raise CatalogError(problems)
    return Catalog(settings=CatalogSettings(**settings), roles=list(roles.values()), principals=principals,
                   evidence=evidence, warnings=warnings)


def _cross_checks(evidence: list[Evidence], roles: dict[str, Role], principals: list[Principal],
                  origin: dict[str, str], warnings: list[str]) -> list[Problem]:
    problems: list[Problem] = []
    ids = {e.evidence_id for e in evidence}
    entities = {e.entity_id for e in evidence}
    freshness_sources = {e.freshness.source for e in evidence if e.freshness and e.freshness.source}
    for p in principals:
        for r in p.roles:
            if r not in roles:
                problems.append(Problem(file="(catalog)", field=f"principals.{p.name}.roles",
                                        message=f"unknown role {r!r}"))
    for ev in evidence:
        fname = origin[ev.evidence_id]
        if not ev.acl:
            warnings.append(f"{fname}: evidence {ev.evidence_id}: field acl: empty ACL, nobody can see it")
        for r in ev.acl:
            if r not in roles:
                problems.append(Problem(file=fname, evidence_id=ev.evidence_id, field="acl",
                                        message=f"unknown role {r!r}; declared roles: {', '.join(sorted(roles))}"))
        for link_type, target in ev.link_targets():
            if target not in ids and target not in entities:
                problems.append(Problem(file=fname, evidence_id=ev.evidence_id, field=f"links.{link_type}",
                                        message=f"links to missing object {target!r}"))
        unknown: dict[str, int] = {}
        for n, edge in enumerate(ev.edges):
            for end in (edge.upstream, edge.downstream):
                if end not in ids and end not in entities and end not in freshness_sources:
                    unknown.setdefault(end, n)
        for end, n in unknown.items():
            warnings.append(f"{fname}: evidence {ev.evidence_id}: field edges[{n}]: "
                            f"lineage edge to unknown node {end!r}")
        if ev.kind is Kind.metric_definition and ev.metric is None and ev.authority.value == "authoritative":
            warnings.append(f"{fname}: evidence {ev.evidence_id}: field metric: authoritative metric without "
                            "a structured definition; only its text can be shown")
    return problems
