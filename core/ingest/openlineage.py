"""OpenLineage run events as lineage evidence: jobs, their input and output datasets, and column lineage.

Accepts one event per file, a JSON array of events, JSON Lines (one event per line: what openlineage-python's
file transport writes with `append: true`, whatever the file is called), or a folder of these (`.json`, `.jsonl`,
`.ndjson`; any other file in it is named as not read). An event that breaks the spec (not JSON, no job name, no
run id, a dataset without namespace or name, ...) is reported with its file, line and reason and skipped; the
rest still load. A run id that is not a UUID is only noted. Datasets that are dbt relations take the dbt node's
id, so OpenLineage edges join the manifest's graph instead of running beside it. A dbt test's run (openlineage-dbt
names the test's audit relation as its output) is counted as a test run: its audit table is neither a model nor
downstream of what the test reads.
"""
from __future__ import annotations

import os
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from core.ingest.load import CatalogError, folder_files, parse_text, read_text

EVENT_SUFFIXES = frozenset({".json", ".jsonl", ".ndjson"})


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
    not_read: list[Skipped] = field(default_factory=list)  # other files in the folder: named, never opened
    jobs: int = 0          # jobs whose events named datasets (dbt test runs apart)
    test_runs: int = 0     # dbt test jobs: their audit relations are not tables of the project
    table_edges: int = 0
    column_edges: int = 0

    def summary(self) -> str:
        """What `ingest` says it read: events, jobs, edges, and events skipped, grouped by why."""
        tests = f" and {self.test_runs} dbt test job(s), whose audit tables are not models" if self.test_runs else ""
        out = (f"OpenLineage: {self.events} event(s) read from {len(self.files)} file(s): {self.jobs} job(s) with "
               f"datasets{tests}, {self.table_edges} table edge(s), {self.column_edges} column edge(s)")
        if self.skipped:
            why = Counter(s.reason.split(":")[0] for s in self.skipped)
            out += f"; {len(self.skipped)} skipped (" + ", ".join(f"{n} {r}" for r, n in why.most_common()) + ")"
        return out + (f"; {len(self.not_read)} other file(s) in the folder not read" if self.not_read else "")


NOT_READ = "not read"


def _files(path: Path) -> tuple[list[Path], list[Skipped], list[Skipped]]:
    """The event files, each symbolic link among them skipped by name (load.folder_files says why), and every
    other file of the folder named as not read: a producer's file under another name is never dropped unseen."""
    if not path.is_dir():
        return [path], [], []
    found, links = folder_files(path, EVENT_SUFFIXES)
    others = [Skipped(str(Path(root) / name), f"{NOT_READ}: OpenLineage events are read from "
                                              f"{', '.join(sorted(EVENT_SUFFIXES))} files")
              for root, _, names in os.walk(path) for name in sorted(names)  # listed, never opened
              if Path(name).suffix not in EVENT_SUFFIXES]
    return found, [Skipped(p.file, p.message) for p in links], others


def _events(file: Path, text: str, out: "OpenLineageRead") -> list[tuple[str, object]]:
    """(where, event) for each event of a file: one JSON document (an event or an array of them), or JSON Lines.
    A `.json` file that is not one document but whose lines are is read as lines (the file transport appends
    events to whatever file it was given). A line that is not JSON is skipped, named by its line number."""
    if file.suffix == ".json":
        try:
            data = parse_text(text, file, as_json=True)
            if isinstance(data, list):
                return [(f"{file} [event {n}]", e) for n, e in enumerate(data)]
            return [(str(file), data)]
        except CatalogError as exc:
            why = "; ".join(p.message for p in exc.problems)
            lines = [ln for ln in text.splitlines() if ln.strip()]
            if len(lines) < 2 or not _is_json_object(lines[0]):
                out.skipped.append(Skipped(str(file), f"not JSON: {why}" if why.startswith("malformed") else why))
                return []
    found = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            found.append((f"{file} line {n}", parse_text(line, file, as_json=True)))
        except CatalogError as exc:
            why = "; ".join(p.message for p in exc.problems)
            out.skipped.append(Skipped(f"{file} line {n}", f"not JSON: {why}" if why.startswith("malformed") else why))
    return found


def _is_json_object(line: str) -> bool:
    try:
        return isinstance(parse_text(line, "(line)", as_json=True), dict)
    except CatalogError:
        return False


def _dbt_test(event: dict) -> bool:
    """A dbt test's run, as openlineage-dbt reports it: job type TEST, or the dbt node it ran is a test."""
    facets = event["job"].get("facets") or {}
    kind = (facets.get("jobType") or {}).get("jobType") if isinstance(facets.get("jobType"), dict) else None
    node = (facets.get("dbt_node") or {}).get("unique_id") if isinstance(facets.get("dbt_node"), dict) else None
    return kind == "TEST" or (isinstance(node, str) and node.startswith("test."))


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
    tests: set[str] = set()
    files, out.skipped, out.not_read = _files(path)
    for file in files:
        out.files.append(str(file))
        # Cited as its place inside what was given, so the same events read from another folder hash alike.
        rel = str(file.relative_to(path)) if path.is_dir() else file.name
        try:
            text = read_text(file, follow=not path.is_dir())
        except CatalogError as exc:
            out.skipped.append(Skipped(str(file), "; ".join(p.message for p in exc.problems)))
            continue
        for where, event in _events(file, text, out):
            reason = _problem(event)
            if reason:
                out.skipped.append(Skipped(where, reason))
                continue
            out.events += 1
            if _dbt_test(event):
                tests.add(f"{event['job']['namespace']}/{event['job']['name']}")
                continue
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
        out.jobs += 1
        out.table_edges += sum(1 for e in j["edges"] if e[2] is None)
        out.column_edges += sum(1 for e in j["edges"] if e[2] is not None)
        out.evidence.append({
            "evidence_id": f"lineage.openlineage.{key}", "entity_id": f"lineage.openlineage.{key}",
            "kind": "lineage", "title": f"OpenLineage job {j['name']}",
            # Its datasets are edges, cut per role when read: the text neither names nor counts them.
            "text": f"OpenLineage job {j['name']} in {j['namespace']}, from {len(j['runs'])} run(s); "
                    f"last event {j['last'].strip()}.",
            "authority": "authoritative", "lifecycle": "current", "authority_class": "openlineage_job",
            "source_system": "openlineage", "source_uri": j["file"], "edges": edges})
    out.test_runs = len(tests)
    return out


def _dataset(datasets: dict, d: dict, relations: dict, file: str) -> None:
    ds_id = dataset_id(d["namespace"], d["name"], relations)
    entry = datasets.setdefault(ds_id, {"namespace": d["namespace"], "name": d["name"], "columns": set(),
                                        "file": file})
    schema = (d.get("facets") or {}).get("schema") or {}
    fields = schema.get("fields") if isinstance(schema, dict) else None
    entry["columns"] |= {f["name"] for f in (fields if isinstance(fields, list) else [])
                         if isinstance(f, dict) and isinstance(f.get("name"), str) and f["name"]}
