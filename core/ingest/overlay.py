"""The governance overlay: what dbt and OpenLineage do not know, in one small YAML file.

Business effective intervals (per object, per dbt model version, and earlier versions no longer in dbt),
authority and lifecycle, who may see what, aliases and owners, plus loose Markdown documents with front
matter. Without an overlay every object is authoritative, open-ended and visible to the role `analyst`.
Lineage and freshness objects follow the object they describe, so narrowing a model narrows its edges.
"""
from __future__ import annotations

import copy
import os
from pathlib import Path
from typing import Any

from core.ingest.load import CatalogError, Problem, folder_files, parse_file, parse_text, read_text

DEFAULT_ROLE = "analyst"
OBJECT_FIELDS = {"acl", "aliases", "owner", "authority", "lifecycle", "authority_class", "valid_from",
                 "valid_through", "valid_to", "expires_at", "version", "title", "text", "versions", "history"}
VERSION_FIELDS = {"acl", "owner", "authority", "lifecycle", "valid_from", "valid_through", "valid_to", "text"}
HISTORY_FIELDS = VERSION_FIELDS | {"version", "formula", "title", "grain", "description"}
DOC_FIELDS = {"evidence_id", "entity_id", "about", "title", "kind", "authority", "lifecycle", "authority_class",
              "valid_from", "valid_through", "valid_to", "expires_at", "acl", "owner", "version", "aliases",
              "supersedes", "superseded_by"}
# Objects that describe another one take its permissions (and are dropped with it).
FOLLOWERS = ("lineage", "freshness_policy", "freshness_observation")
# dbt objects that document other nodes: never visible where none of those nodes is.
DOCUMENTS_OF = ("dbt_semantic_model", "dbt_doc")


class Overlay:
    def __init__(self, data: dict, path: str | None, problems: list[Problem]):
        self.path = path or "(no overlay)"
        self.roles = data.get("roles") or [DEFAULT_ROLE]
        self.defaults = data.get("defaults") or {}
        self.objects: dict[str, dict] = data.get("objects") or {}
        self.documents = data.get("documents")
        self.problems = problems

    @classmethod
    def read(cls, path: str | Path | None) -> "Overlay":
        if path is None:
            return cls({}, None, [])
        path = Path(path)
        if not path.exists():
            raise CatalogError([Problem(file=str(path), message="no such overlay file")])
        data = parse_file(path) or {}  # the catalog reader's YAML errors, with line and column
        problems = []
        if not isinstance(data, dict):
            raise CatalogError([Problem(file=str(path), message="an overlay is a mapping with roles, defaults, "
                                                                "objects and documents")])
        for key in set(data) - {"roles", "defaults", "objects", "documents"}:
            problems.append(Problem(file=str(path), field=str(key), message="unknown top-level key"))
        shape = _shape_problems(data, str(path))
        if shape:  # everything below reads these shapes; stop here with every wrong one named
            raise CatalogError(problems + shape)
        for key, spec in (data.get("objects") or {}).items():
            if not isinstance(spec, dict):
                problems.append(Problem(file=str(path), field=f"objects.{key}", message="must be a mapping"))
                continue
            for f in set(spec) - OBJECT_FIELDS:
                problems.append(Problem(file=str(path), field=f"objects.{key}.{f}",
                                        message=f"unknown field; expected one of {', '.join(sorted(OBJECT_FIELDS))}"))
        overlay = cls(data, str(path), problems)
        if data.get("documents"):
            folder, link = _documents_folder(path, str(data["documents"]))
            overlay.documents = None if link else folder  # a refused folder is not read at all
            if link:
                problems.append(Problem(file=str(path), field="documents", message=(
                    f"{link} is a symbolic link; the documents folder is read only through real folders below the "
                    "overlay's own (an absolute path is taken as written)")))
        return overlay

    def _match(self, key: str, items: dict[str, dict]) -> list[str]:
        """A dbt unique_id, an entity id, or kind:name (metric:revenue, model:orders, source:ecom.raw_orders)."""
        if key in items:
            return [key]
        hits = [i for i, o in items.items() if o["entity_id"] == key]
        if hits or ":" not in key:
            return hits
        kind, name = key.split(":", 1)
        return [i for i, o in items.items() if i.split(".")[0] == kind and
                (i.endswith("." + name) or o["entity_id"].endswith("." + name))]

    def apply(self, evidence: list[dict]) -> list[dict]:
        out = {e["evidence_id"]: copy.deepcopy(e) for e in evidence}
        base_acl = list(self.defaults.get("acl") or [self.roles[0] if isinstance(self.roles[0], str)
                                                       else self.roles[0].get("name")])
        for e in out.values():
            e.setdefault("acl", list(base_acl))
            if self.defaults.get("authority") is not None:
                e["authority"] = self.defaults["authority"]
            # A default owner fills the gap; an owner dbt records (meta, group, exposure) is kept.
            if self.defaults.get("owner") is not None and not e.get("owner"):
                e["owner"] = self.defaults["owner"]
        history: list[dict] = []
        for key, spec in self.objects.items():
            if not isinstance(spec, dict):
                continue
            targets = [t for t in self._match(key, out) if out[t]["kind"] not in FOLLOWERS]
            if not targets:
                self.problems.append(Problem(file=self.path, field=f"objects.{key}",
                                             message="matches no dbt or OpenLineage object"))
                continue
            for t in targets:
                e = out[t]
                for f in ("acl", "aliases", "owner", "authority", "lifecycle", "authority_class", "title", "text",
                          "valid_from", "valid_to", "valid_through", "expires_at", "version"):
                    if f in spec:
                        e[f] = spec[f]
                if "valid_through" in spec:
                    e.pop("valid_to", None)  # dbt's deprecation date yields to the business interval
                per_version = (spec.get("versions") or {})
                if e.get("version") is not None and str(e["version"]) in {str(v) for v in per_version}:
                    vspec = {str(k): v for k, v in per_version.items()}[str(e["version"])] or {}
                    for f in set(vspec) - VERSION_FIELDS:
                        self.problems.append(Problem(file=self.path, field=f"objects.{key}.versions.{e['version']}.{f}",
                                                     message="unknown field"))
                    for f in VERSION_FIELDS & set(vspec):
                        e[f] = vspec[f]
                    if "valid_through" in vspec:
                        e.pop("valid_to", None)
            for i, h in enumerate(spec.get("history") or []):
                where = f"objects.{key}.history[{i}]"
                if not isinstance(h, dict) or not h.get("version"):
                    self.problems.append(Problem(file=self.path, field=where, message="needs at least a version"))
                    continue
                for f in set(h) - HISTORY_FIELDS:
                    self.problems.append(Problem(file=self.path, field=f"{where}.{f}", message="unknown field"))
                base = out[targets[0]]
                old = copy.deepcopy(base)
                old.update({"evidence_id": f"{base['evidence_id']}.v{h['version']}", "version": str(h["version"]),
                            "lifecycle": h.get("lifecycle", "historical"), "title": h.get("title", base["title"]),
                            "text": h.get("text", f"Earlier definition of {base['title']} (governance overlay).")})
                old.pop("valid_to", None)
                old.pop("valid_through", None)
                # dbt describes the version it holds, today's: an earlier version says only what the overlay says of it.
                old["description"] = h.get("description")
                for f in ("valid_from", "valid_through", "valid_to", "acl", "owner", "authority"):
                    if f in h:
                        old[f] = h[f]
                if old.get("metric") and ("formula" in h or "grain" in h):
                    old["metric"] = {**old["metric"], **{k: h[k] for k in ("formula", "grain") if k in h}}
                old["source_uri"] = Path(self.path).name  # content, not where the file was read from
                history.append(old)
        for e in history:
            out[e["evidence_id"]] = e
        self._follow(out)
        return list(out.values())

    @staticmethod
    def _follow(out: dict[str, dict]) -> None:
        for e in out.values():
            if e.get("authority_class") in DOCUMENTS_OF and (e.get("links") or {}).get("documents"):
                # A semantic model or doc block documents dbt nodes (and may be filed under one's entity):
                # it is visible only to roles that may see a node it documents.
                leads = [out[x] for x in e["links"]["documents"] if x in out]
                if leads:
                    may = {r for lead in leads for r in lead.get("acl") or []}
                    e["acl"] = [r for r in e.get("acl") or [] if r in may]
                continue
            if e["kind"] not in FOLLOWERS:
                continue
            if e["kind"] == "lineage":
                lead_id = e["edges"][0][1] if e.get("edges") else None
            else:
                lead_id = (e.get("freshness") or {}).get("source") or e["entity_id"]
            lead = out.get(lead_id) or next((o for o in out.values() if o["entity_id"] == lead_id
                                             and o["kind"] not in FOLLOWERS), None)
            if lead is not None:
                e["acl"] = list(lead.get("acl") or [])
                if e["kind"] == "lineage":
                    for f in ("valid_from", "valid_to", "valid_through"):
                        e.pop(f, None)
                        if f in lead:
                            e[f] = lead[f]


def _kind(value: Any) -> str:
    return {dict: "a mapping", list: "a list", str: "a string", bool: "a boolean", int: "a number",
            float: "a number", type(None): "empty"}.get(type(value), type(value).__name__)


def _str_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _shape_problems(data: dict, file: str) -> list[Problem]:
    """Wrong YAML types (objects as a list, roles as a number, acl as a string, ...) named by field."""
    out: list[Problem] = []

    def bad(field: str, want: str, value: Any) -> None:
        out.append(Problem(file=file, field=field, message=f"must be {want}, got {_kind(value)}"))

    roles = data.get("roles")
    if roles is not None:
        if not isinstance(roles, list) or not roles:
            bad("roles", "a non-empty list of role names", roles)
        else:
            for i, r in enumerate(roles):
                if not (isinstance(r, str) and r) and not (isinstance(r, dict) and isinstance(r.get("name"), str)
                                                            and r["name"]):
                    bad(f"roles[{i}]", "a role name or a mapping with a name", r)
    for key, want in (("defaults", dict), ("objects", dict), ("documents", str)):
        if data.get(key) is not None and not isinstance(data[key], want):
            bad(key, "a mapping" if want is dict else "a folder path", data[key])
    defaults = data.get("defaults") if isinstance(data.get("defaults"), dict) else {}
    if defaults.get("acl") is not None and not _str_list(defaults["acl"]):
        bad("defaults.acl", "a list of role names", defaults["acl"])
    for f in ("authority", "owner"):
        if defaults.get(f) is not None and not isinstance(defaults[f], str):
            bad(f"defaults.{f}", "a string", defaults[f])
    objects = data.get("objects") if isinstance(data.get("objects"), dict) else {}
    for key, spec in objects.items():
        where = f"objects.{key}"
        if not isinstance(key, str):
            bad(where, "keyed by a name such as metric:revenue (a string)", key)
            continue
        if not isinstance(spec, dict):
            continue  # reported with the unknown fields below
        for f in ("acl", "aliases"):
            if spec.get(f) is not None and not _str_list(spec[f]):
                bad(f"{where}.{f}", "a list of strings", spec[f])
        if spec.get("versions") is not None:
            if not isinstance(spec["versions"], dict):
                bad(f"{where}.versions", "a mapping of dbt version to settings", spec["versions"])
            else:
                for v, vspec in spec["versions"].items():
                    if vspec is not None and not isinstance(vspec, dict):
                        bad(f"{where}.versions.{v}", "a mapping", vspec)
                    elif isinstance(vspec, dict) and vspec.get("acl") is not None and not _str_list(vspec["acl"]):
                        bad(f"{where}.versions.{v}.acl", "a list of role names", vspec["acl"])
        if spec.get("history") is not None and not isinstance(spec["history"], list):
            bad(f"{where}.history", "a list of earlier versions", spec["history"])
    return out


def _documents_folder(overlay: Path, setting: str) -> tuple[str, Path | None]:
    """The folder an overlay's `documents:` names, and the first symbolic link on the way to it from the overlay's
    folder, if any: a link committed beside the overlay must not publish whatever it points at. An absolute path is
    the author's own choice, as a path on the command line is."""
    where = overlay.parent / setting
    link = None
    if not Path(setting).is_absolute():
        step = overlay.parent
        for part in Path(setting).parts:
            step = step / part
            if step.is_symlink():
                link = step
                break
    return os.path.abspath(where), link


def read_documents(folder: str | Path, entities: dict[str, str], default_acl: list[str]) -> tuple[list[tuple[str, dict]], list[Problem]]:
    """Markdown files with YAML front matter -> (file, evidence) pairs. `about: metric:revenue` attaches a
    page to an entity; without front matter a page is a non-authoritative document about nothing."""
    folder = Path(folder)
    docs, problems = [], []
    if not folder.is_dir():
        return [], [Problem(file=str(folder), message="documents folder not found")]
    pages, problems = folder_files(folder, {".md"})
    for path in pages:
        try:
            raw = read_text(path, follow=False)
        except CatalogError as exc:
            problems += exc.problems
            continue
        meta: dict[str, Any] = {}
        body = raw
        if raw.startswith("---"):
            parts = raw.split("---", 2)
            if len(parts) < 3:
                problems.append(Problem(file=str(path), message="front matter opened with --- but never closed"))
                continue
            try:
                meta = parse_text(parts[1], path, as_json=False) or {}
            except CatalogError as exc:
                problems += [Problem(file=p.file, field=p.field, message=f"front matter: {p.message}")
                             for p in exc.problems]
                continue
            if not isinstance(meta, dict):
                problems.append(Problem(file=str(path), message=f"front matter must be a mapping, got {_kind(meta)}"))
                continue
            body = parts[2]
        for f in set(meta) - DOC_FIELDS:
            problems.append(Problem(file=str(path), field=str(f), message="unknown front-matter field"))
        if any(not isinstance(meta.get(f), str) for f in ("about", "entity_id", "title") if meta.get(f) is not None):
            problems.append(Problem(file=str(path), field="about/entity_id/title", message="must be a string"))
            continue
        about = meta.pop("about", None)
        entity = meta.pop("entity_id", None)
        if about:
            entity = entities.get(about) or entities.get(about.split(":", 1)[-1])
            if not entity:
                problems.append(Problem(file=str(path), field="about", message=f"{about!r} matches no object"))
                continue
        title = meta.pop("title", None) or next((ln.lstrip("# ").strip() for ln in body.splitlines()
                                                 if ln.startswith("#")), path.stem)
        doc = {"evidence_id": meta.pop("evidence_id", f"doc.{path.stem}"), "entity_id": entity or f"doc.{path.stem}",
               "kind": meta.pop("kind", "documentation"), "title": title, "text": " ".join(body.split()),
               "authority": meta.pop("authority", "non_authoritative"), "lifecycle": meta.pop("lifecycle", "current"),
               "acl": meta.pop("acl", list(default_acl)), "source_uri": str(path.relative_to(folder)),
               "source_system": "markdown"}
        doc.update({k: v for k, v in meta.items() if k in DOC_FIELDS})
        docs.append((str(path), doc))
    return docs, problems
