"""OpenLineage run events as lineage evidence: jobs, their input and output datasets, and column lineage.

Accepts one event per file, a JSON array of events, or a folder of either. An event that breaks the spec
(not JSON, no job name, no run id, a dataset without namespace or name, ...) is reported with its file and
reason and skipped; the rest still load. A run id that is not a UUID is only noted. Datasets that are dbt relations take the dbt node's id, so OpenLineage edges
join the manifest's graph instead of running beside it.
"""
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from pathlib import Path

from core.ingest.load import CatalogError, folder_files, parse_text, read_text


@dataclass
class Skipped:
    file: str
    reason: str

    def __str__(self) -> str:
        return f"{self.file}: {self.reason}"


@dataclass
class OpenLineageRead:
    evidence: list[dict] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    events: int = 0
    warnings: list[Skipped] = field(default_factory=list)  # loaded, but worth knowing
    files: list[str] = field(default_factory=list)


def _files(path: Path) -> tuple[list[Path], list[Skipped]]:
    """The event files, and each symbolic link among them skipped by name (load.folder_files says why)."""
    if path.is_dir():
        found, links = folder_files(path, {".json"})
        return found, [Skipped(p.file, p.message) for p in links]
    return [path], []


def _named(value) -> bool:
    return isinstance(value, dict) and all(isinstance(value.get(k), str) and value[k] for k in ("namespace", "name"))


def _problem(event) -> str | None:
    """Why an event cannot be read (wrong JSON types included), or None."""
    if not isinstance(event, dict):
        return "an event must be a JSON object"
    for key in ("eventTime", "run", "job"):
        if key not in event:
            return f"missing {key}"
    job, run = event.get("job"), event.get("run")
    if not isinstance(job, dict):
        return "job must be an object"
    if not isinstance(run, dict):
        return "run must be an object"
    if not _named(job):
        return "job needs namespace and name"
    if not isinstance(run.get("runId"), str) or not run["runId"].strip():
        return "run needs a runId"
    if not isinstance(event["eventTime"], str):
        return "eventTime must be a string"
    for side in ("inputs", "outputs"):
        if not isinstance(event.get(side) or [], list):
            return f"{side} must be a list"
        for i, ds in enumerate(event.get(side) or []):
            if not _named(ds):
                return f"{side}[{i}] needs namespace and name"
            if not isinstance(ds.get("facets") or {}, dict):
                return f"{side}[{i}].facets must be an object"
    return None


def _column_fields(d: dict, where: str, warnings: list[Skipped]) -> dict[str, list[dict]]:
    """columnLineage facet -> {output column: [input fields]}; a malformed part is noted and left out."""
    facet = (d.get("facets") or {}).get("columnLineage") or {}
    fields = facet.get("fields") if isinstance(facet, dict) else None
    if not fields:
        return {}
    if not isinstance(fields, dict):
        warnings.append(Skipped(where, f"dataset {d['name']}: columnLineage.fields must be an object; "
                                       "its column lineage is left out"))
        return {}
    out: dict[str, list[dict]] = {}
    for column, spec in fields.items():
        inputs = (spec or {}).get("inputFields") if isinstance(spec, dict) else None
        if spec is not None and (not isinstance(spec, dict) or not isinstance(inputs or [], list)):
            warnings.append(Skipped(where, f"dataset {d['name']}: columnLineage.fields.{column}.inputFields must "
                                           "be a list; that column's lineage is left out"))
            continue
        out[column] = [f for f in inputs or [] if isinstance(f, dict)
                       and all(isinstance(f.get(k), str) and f[k] for k in ("namespace", "name", "field"))]
    return out


def dataset_id(namespace: str, name: str, relations: dict[str, str]) -> str:
    """The dbt node for a relation this dataset names, else an id of its own."""
    key = name.lower().replace('"', "")
    return relations.get(key) or f"dataset:{namespace}/{name}"


def read_openlineage(path: str | Path, relations: dict[str, str] | None = None) -> OpenLineageRead:
    relations = relations or {}
    out = OpenLineageRead()
    path = Path(path)
    if not path.exists():
        out.skipped.append(Skipped(str(path), "no such file or folder"))
        return out
    jobs: dict[str, dict] = {}
    datasets: dict[str, dict] = {}
    files, out.skipped = _files(path)
    for file in files:
        out.files.append(str(file))
        # Cited as its place inside what was given, so the same events read from another folder hash alike.
        rel = str(file.relative_to(path)) if path.is_dir() else file.name
        try:
            data = parse_text(read_text(file, follow=not path.is_dir()), file, as_json=True)
        except CatalogError as exc:
            why = "; ".join(p.message for p in exc.problems)
            out.skipped.append(Skipped(str(file), f"not JSON: {why}" if why.startswith("malformed") else why))
            continue
        events = data if isinstance(data, list) else [data]
        for n, event in enumerate(events):
            where = f"{file}" + (f" [event {n}]" if isinstance(data, list) else "")
            reason = _problem(event)
            if reason:
                out.skipped.append(Skipped(where, reason))
                continue
            out.events += 1
            try:
                uuid.UUID(event["run"]["runId"])
            except ValueError:
                # The spec asks for a UUID; producers' test fixtures use placeholders. The edges still hold.
                out.warnings.append(Skipped(where, f"run.runId {event['run']['runId']!r} is not a UUID"))
            job = event["job"]
            key = f"{job['namespace']}/{job['name']}"
            entry = jobs.setdefault(key, {"edges": {}, "runs": set(), "last": "", "file": rel,
                                          "namespace": job["namespace"], "name": job["name"]})
            entry["runs"].add(event["run"]["runId"])
            entry["last"] = max(entry["last"], f"{event['eventTime']} {event.get('eventType', '')}")
            ins = [dataset_id(d["namespace"], d["name"], relations) for d in event.get("inputs") or []]
            for d in (event.get("inputs") or []) + (event.get("outputs") or []):
                _dataset(datasets, d, relations, rel)
            for d in event.get("outputs") or []:
                out_id = dataset_id(d["namespace"], d["name"], relations)
                datasets[out_id]["produced"] = True
                for up in ins:
                    if up != out_id:
                        entry["edges"][(up, out_id, None, None)] = True
                for column, inputs in _column_fields(d, where, out.warnings).items():
                    for f in inputs:
                        up = dataset_id(f["namespace"], f["name"], relations)
                        _dataset(datasets, {"namespace": f["namespace"], "name": f["name"]}, relations, rel)
                        entry["edges"][(up, out_id, f["field"], column)] = True
    for ds_id, d in datasets.items():
        if ds_id.startswith("dataset:"):
            cols = sorted(d["columns"])
            out.evidence.append({
                "evidence_id": ds_id, "entity_id": ds_id, "kind": "model" if d.get("produced") else "source",
                "title": d["name"], "text": f"OpenLineage dataset {d['name']} in {d['namespace']}."
                + (f" Columns: {', '.join(cols)}." if cols else ""),
                "authority": "authoritative", "lifecycle": "current", "authority_class": "openlineage_dataset",
                "source_system": "openlineage", "source_uri": d["file"],
                "model": {"relation": d["name"], "columns": cols}})
    for key, j in sorted(jobs.items()):
        if not j["edges"]:
            continue  # application- or DAG-level events name no datasets
        edges = [[u, d] if uc is None else [u, d, uc, dc] for (u, d, uc, dc) in j["edges"]]
        out.evidence.append({
            "evidence_id": f"lineage.openlineage.{key}", "entity_id": f"lineage.openlineage.{key}",
            "kind": "lineage", "title": f"OpenLineage job {j['name']}",
            # Its datasets are edges, cut per role when read: the text neither names nor counts them.
            "text": f"OpenLineage job {j['name']} in {j['namespace']}, from {len(j['runs'])} run(s); "
                    f"last event {j['last'].strip()}.",
            "authority": "authoritative", "lifecycle": "current", "authority_class": "openlineage_job",
            "source_system": "openlineage", "source_uri": j["file"], "edges": edges})
    return out


def _dataset(datasets: dict, d: dict, relations: dict, file: str) -> None:
    ds_id = dataset_id(d["namespace"], d["name"], relations)
    entry = datasets.setdefault(ds_id, {"namespace": d["namespace"], "name": d["name"], "columns": set(),
                                        "file": file})
    schema = (d.get("facets") or {}).get("schema") or {}
    fields = schema.get("fields") if isinstance(schema, dict) else None
    entry["columns"] |= {f["name"] for f in (fields if isinstance(fields, list) else [])
                         if isinstance(f, dict) and isinstance(f.get("name"), str) and f["name"]}
