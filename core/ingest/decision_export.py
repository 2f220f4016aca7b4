"""Steward decisions back to the team's source of truth: a unified diff against the files the catalog was ingested
from, for people to review in a pull request. AsOf never writes it into their repository.

A hand-written catalog (YAML files with `evidence:` lists) gets each decided field edited in place inside the
object's own `- evidence_id: ...` block, keeping every other line as written. An object no catalog file holds
(a dbt node, an OpenLineage dataset) goes to the governance overlay instead (`--source` names the overlay YAML),
under `objects:` keyed by its evidence id, in the overlay's own field names. Once the team applies the patch and
ingests again, each decision reads as carried into the source (core/ingest/decision_apply.py).
"""
from __future__ import annotations

import difflib
import re
from datetime import date
from pathlib import Path
from typing import Any

import yaml

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


def _is_overlay(path: Path) -> bool:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError):
        return False
    return isinstance(data, dict) and "evidence" not in data and bool(
        {"objects", "defaults", "roles", "documents"} & set(data)) and "principals" not in data


def export_patch(db_path: str | Path, since: date, source: Path) -> str:
    """The decisions standing since `since` as one unified diff against `source`; paths are relative to the
    source folder (a file's own folder), so `git apply` / `patch -p1` apply it there."""
    records = read_records(db_path)
    chosen = [d for d in records.standing() if d.at.date() >= since and d.objects]
    if not source.exists():
        raise CatalogError([Problem(file=str(source), message="no such catalog file, folder or overlay")])
    root = source if source.is_dir() else source.parent
    changes = net_changes(chosen)
    files = [source] if source.is_file() and _is_overlay(source) else catalog_files(source)
    done: set[str] = set()
    out: list[str] = []
    for file in files:
        if file.suffix == ".json":
            continue  # hand-written JSON catalogs are left to the team; their objects are named below
        old = file.read_text(encoding="utf-8")
        new = _overlay_edit(old, changes, done) if _is_overlay(file) else _catalog_edit(old, changes, done)
        if new != old:
            rel = file.relative_to(root).as_posix()
            out += difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True),
                                        fromfile=f"a/{rel}", tofile=f"b/{rel}")
    missing = sorted(set(changes) - done)
    if missing:
        raise CatalogError([Problem(file=str(source), field=eid, message=(
            "a steward decision changed this object, but no YAML file under the source holds it; export against "
            "the governance overlay (--source OVERLAY.yml) for dbt and OpenLineage objects")) for eid in missing])
    head = [f"# AsOf steward decisions since {since.isoformat()}: review this patch in a pull request.\n"]
    head += [f"#   {d.decision} {d.at:%Y-%m-%d} by {d.by}: {d.summary}. Reason: {' '.join(d.reason.split())}\n"
             for d in chosen]
    return "".join(head + out) if out else "".join(head) + "# nothing to change: the source already says it\n"
