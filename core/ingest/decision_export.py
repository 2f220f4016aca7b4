"""Steward decisions back to the team's source of truth: a unified diff against the files the catalog was ingested
from, for people to review in a pull request. AsOf never writes it into their repository.

A hand-written catalog (YAML files with `evidence:` lists) gets each decided field edited in place inside the
object's own `- evidence_id: ...` block, keeping every other line as written. An object no catalog file holds
(a dbt node, an OpenLineage dataset) goes to the governance overlay instead (`--source` names the overlay YAML),
under `objects:`, in the overlay's own field names: under the key already written for exactly that object, else
under its evidence id (a dbt unique_id). A Markdown page gets its front matter edited, in the overlay's documents
folder or under the catalog folder. Once the team applies the patch and
ingests again, each decision reads as carried into the source (core/ingest/decision_apply.py).
"""
from __future__ import annotations

import difflib
import re
from datetime import date
from pathlib import Path
from typing import Any

import yaml

from core.catalog.evidence import Evidence
from core.catalog.store import Store
from core.ingest.decision_apply import normal
from core.ingest.decision_file import Decision, read_records
from core.ingest.load import CatalogError, Problem, catalog_files

DATE_FIELDS = {"valid_from", "valid_through", "expires_at"}
# Where a field goes when the block does not have it yet: after the first of these it has.
ANCHORS = {"valid_through": ("valid_from", "lifecycle"), "valid_from": ("lifecycle", "authority"),
           "expires_at": ("valid_through", "valid_to", "valid_from", "lifecycle")}


def _value(name: str, value: Any) -> str:
    if name in DATE_FIELDS:
        return str(value)
    text = yaml.safe_dump(value, default_flow_style=True, allow_unicode=True, width=1000).strip()
    return text.removesuffix("...").strip()


def net_changes(decisions: list[Decision]) -> dict[str, dict[str, Any]]:
    """evidence id -> field -> the value the last standing decision set (decisions applied in order)."""
    out: dict[str, dict[str, Any]] = {}
    for d in decisions:
        for eid, fields in d.objects.items():
            for name, value in fields.items():
                out.setdefault(eid, {})[name] = normal(name, value)
    return out


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _blank(line: str) -> bool:
    return not line.strip() or line.lstrip().startswith("#")


def _extent(lines: list[str], start: int, end: int, indent: int) -> int:
    """The line after field `start` and its continuation lines (deeper indented, or a list at the same indent)."""
    k = start + 1
    while k < end and (_blank(lines[k]) or _indent(lines[k]) > indent
                       or (_indent(lines[k]) == indent and lines[k].lstrip().startswith("- "))):
        k += 1
    return k


def _set_fields(lines: list[str], start: int, end: int, indent: int, fields: dict[str, Any]) -> list[str]:
    """Lines[start:end] is one mapping whose keys sit at `indent`: set these fields in it."""
    block = lines[start:end]
    for name, value in fields.items():
        keys = {}
        for n, line in enumerate(block):
            m = re.match(rf"^ {{{indent}}}([A-Za-z_]\w*):", line)
            if m and not _blank(line):
                keys.setdefault(m.group(1), n)
        names = [name] + (["valid_to"] if name == "valid_through" else [])
        found = next((keys[x] for x in names if x in keys), None)
        new = [] if value is None else [f"{' ' * indent}{name}: {_value(name, value)}\n"]
        if found is not None:
            stop = _extent(block, found, len(block), indent)
            block[found:stop] = new
        elif new:
            anchor = next((keys[a] for a in ANCHORS.get(name, ()) if a in keys), None)
            at = _extent(block, anchor, len(block), indent) if anchor is not None else len(block)
            while at > 0 and at == len(block) and _blank(block[at - 1]):
                at -= 1  # after the block's last field, not after trailing blank lines
            block[at:at] = new
    return lines[:start] + block + lines[end:]


def _catalog_edit(text: str, changes: dict[str, dict[str, Any]], done: set[str]) -> str:
    lines = text.splitlines(keepends=True)
    for eid, fields in changes.items():
        pattern = re.compile(rf"^(\s*)-\s+evidence_id:\s*['\"]?{re.escape(eid)}['\"]?\s*(#.*)?$")
        start = next((n for n, line in enumerate(lines) if pattern.match(line.rstrip("\n"))), None)
        if start is None:
            continue
        indent = len(pattern.match(lines[start].rstrip("\n")).group(1)) + 2
        end = start + 1
        while end < len(lines) and (_blank(lines[end]) or _indent(lines[end]) >= indent):
            end += 1
        # The first field sits on the "- " line: edit from the next line, whose keys share the field indent.
        lines = lines[:start + 1] + _set_fields(lines[start + 1:end], 0, end - start - 1, indent, fields) + lines[end:]
        done.add(eid)
    return "".join(lines)


def _overlay_edit(text: str, changes: dict[str, dict[str, Any]], done: set[str]) -> str:
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    top = next((n for n, line in enumerate(lines) if re.match(r"^objects:\s*(#.*)?$", line.rstrip("\n"))), None)
    if top is None:
        lines += ["objects:\n"]
        top = len(lines) - 1
    end = top + 1
    while end < len(lines) and (_blank(lines[end]) or _indent(lines[end]) > 0):
        end += 1
    child = next((_indent(line) for line in lines[top + 1:end] if not _blank(line)), 2)
    for eid, fields in changes.items():
        if eid in done:
            continue
        key = re.compile(rf"^ {{{child}}}['\"]?{re.escape(eid)}['\"]?:\s*(#.*)?$")
        at = next((n for n in range(top + 1, end) if key.match(lines[n].rstrip("\n"))), None)
        if at is None:
            new = [f"{' ' * child}{eid}:\n"] + [f"{' ' * (child + 2)}{k}: {_value(k, v)}\n"
                                                 for k, v in fields.items() if v is not None]
            while end > top + 1 and _blank(lines[end - 1]):
                end -= 1
            lines[end:end] = new
            end += len(new)
        else:
            stop = _extent(lines, at, end, child)
            before = len(lines)
            lines = _set_fields(lines, at + 1, stop, child + 2, fields)
            end += len(lines) - before
        done.add(eid)
    return "".join(lines)


def _front_matter_edit(text: str, fields: dict[str, Any]) -> str | None:
    """A Markdown page's front matter (between its --- lines) with these fields set; None without front matter."""
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].rstrip() != "---":
        return None
    end = next((n for n in range(1, len(lines)) if lines[n].rstrip() == "---"), None)
    if end is None:
        return None
    return "".join(_set_fields(lines, 1, end, 0, fields))


def _overlay_key(data: dict, ev: Evidence, everything: list[Evidence]) -> str:
    """The overlay key already written for exactly this object (a dbt unique_id, its entity id or kind:name), so its
    settings stay in one place; else the evidence id, which the overlay matches exactly."""
    for key in (data.get("objects") or {}):
        key = str(key)
        if key == ev.evidence_id:
            return key
        hits = [e for e in everything if e.entity_id == key]
        if not hits and ":" in key:
            kind, name = key.split(":", 1)
            hits = [e for e in everything if e.evidence_id.split(".")[0] == kind and
                    (e.evidence_id.endswith("." + name) or e.entity_id.endswith("." + name))]
        if [e.evidence_id for e in hits] == [ev.evidence_id]:
            return key
    return ev.evidence_id


def _is_overlay(path: Path) -> bool:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError):
        return False
    return isinstance(data, dict) and "evidence" not in data and bool(
        {"objects", "defaults", "roles", "documents"} & set(data)) and "principals" not in data


def _pages(source: Path) -> Path | None:
    """Where the Markdown pages are: the overlay's `documents:` folder, or the source folder itself."""
    if source.is_dir():
        return source
    data = yaml.safe_load(source.read_text(encoding="utf-8")) or {}
    folder = data.get("documents") if isinstance(data, dict) else None
    return (source.parent / str(folder)) if folder else None


def export_patch(db_path: str | Path, since: date, source: Path) -> str:
    """The decisions standing since `since` as one unified diff against `source`; paths are relative to the
    source folder (a file's own folder), so `git apply` / `patch -p1` apply it there."""
    records = read_records(db_path)
    chosen = [d for d in records.standing() if d.at.date() >= since and d.objects]
    if not source.exists():
        raise CatalogError([Problem(file=str(source), message="no such catalog file, folder or overlay")])
    root = source if source.is_dir() else source.parent
    changes = net_changes(chosen)
    store = Store(db_path)
    try:
        everything = store.all_evidence_for_review()
    finally:
        store.close()
    by_id = {e.evidence_id: e for e in everything}
    edited: dict[Path, str] = {}
    problems: list[Problem] = []

    def text(file: Path) -> str:
        return edited.get(file) if file in edited else file.read_text(encoding="utf-8")

    # Markdown pages: their front matter.
    pages = _pages(source)
    for eid in [e for e in changes if by_id.get(e) and by_id[e].source_system == "markdown"]:
        page = (pages / str(by_id[eid].source_uri)) if pages else None
        new = _front_matter_edit(text(page), changes[eid]) if page and page.is_file() else None
        if new is None:
            problems.append(Problem(file=str(page or source), field=eid, message=(
                "a steward decision changed this Markdown page, but its file (with front matter) is not under the "
                "source's documents folder")))
        else:
            edited[page] = new
        changes.pop(eid)
    done: set[str] = set()
    if source.is_file() and _is_overlay(source):
        history = [e for e in changes if by_id.get(e) and by_id[e].source_uri == source.name]
        for eid in history:
            problems.append(Problem(file=str(source), field=eid, message=(
                "an earlier version kept in the overlay's history: edit its history entry by hand")))
            changes.pop(eid)
        data = yaml.safe_load(source.read_text(encoding="utf-8")) or {}
        keyed = {_overlay_key(data, by_id[e], everything) if e in by_id else e: f for e, f in changes.items()}
        new = _overlay_edit(text(source), keyed, set())
        done |= set(changes)
        if new != source.read_text(encoding="utf-8"):
            edited[source] = new
    else:
        for file in catalog_files(source):
            if file.suffix == ".json":
                continue  # hand-written JSON catalogs are left to the team; their objects are named below
            new = _catalog_edit(text(file), changes, done)
            if new != file.read_text(encoding="utf-8"):
                edited[file] = new
    problems += [Problem(file=str(source), field=eid, message=(
        "a steward decision changed this object, but no YAML file under the source holds it; export against the "
        "governance overlay (--source OVERLAY.yml) for dbt and OpenLineage objects")) for eid in sorted(set(changes) - done)]
    if problems:
        raise CatalogError(problems)
    out: list[str] = []
    for file, new in sorted(edited.items()):
        try:
            rel = file.resolve().relative_to(root.resolve()).as_posix()
        except ValueError:
            raise CatalogError([Problem(file=str(file), message=f"outside {root}: the patch edits files under the "
                                                                  "source folder only")]) from None
        out += difflib.unified_diff(file.read_text(encoding="utf-8").splitlines(keepends=True),
                                    new.splitlines(keepends=True), fromfile=f"a/{rel}", tofile=f"b/{rel}")
    head = [f"# AsOf steward decisions since {since.isoformat()}: review this patch in a pull request.\n"]
    head += [f"#   {d.decision} {d.at:%Y-%m-%d} by {d.by}: {d.summary}. Reason: {' '.join(d.reason.split())}\n"
             for d in chosen]
    return "".join(head + out) if out else "".join(head) + "# nothing to change: the source already says it\n"
