"""dbt artifacts (a `target/` folder) as catalog evidence: models, sources, seeds, snapshots, exposures, docs,
semantic models and metrics, lineage from `parent_map`, column types, last build status and source freshness.

Reads manifest schema v10-v12 (dbt 1.6-1.11) by asking for fields, never assuming them. Every object gets
dbt's own unique_id as its evidence id; governance facts dbt does not know (business intervals, authority,
who may see what) come from the overlay, with defaults that make a first run just work.
"""
from __future__ import annotations

import gzip
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path
from typing import Any

from core.ingest.artifacts import artifact_problems
from core.ingest.dbt_facts import node_facts, run_results
from core.ingest.dbt_tests import column_details, node_tests
from core.ingest.load import (
    MAX_FILE_BYTES,
    CatalogError,
    Problem,
    file_in,
    linked_file,
    open_regular,
    parse_text,
    pinned,
    read_text,
)

NODE_TYPES = ("model", "seed", "snapshot")
HOURS = {"minute": 1 / 60, "hour": 1, "day": 24}
AGG = {"sum": "sum({})", "count": "count({})", "count_distinct": "count(distinct {})", "average": "avg({})",
       "avg": "avg({})", "min": "min({})", "max": "max({})", "median": "median({})",
       "sum_boolean": "sum(case when {} then 1 else 0 end)", "percentile": "percentile({})"}


@dataclass
class DbtArtifacts:
    folder: Path
    manifest: dict
    semantic: dict | None = None
    catalog: dict | None = None
    run_results: dict | None = None
    sources: dict | None = None
    files: dict[str, str] = field(default_factory=dict)  # artifact -> path, for messages

    @property
    def project(self) -> str:
        return self.manifest.get("metadata", {}).get("project_name") or ""

    @property
    def generated_at(self) -> date:
        stamp = self.manifest.get("metadata", {}).get("generated_at")
        return _ts(stamp).date() if stamp else date.today()


def _ts(value: str | None) -> datetime | None:
    if not value:
        return None
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


def _artifact(folder: Path, name: str) -> Path | None:
    """`name.json`, or `name.json.gz` (large projects' artifacts are kept compressed); a link is refused, named."""
    for path in (folder / f"{name}.json", folder / f"{name}.json.gz"):
        refused = linked_file(path, folder)
        if refused:
            raise refused
        found = file_in(folder, path.name)  # read later only if still this file, in this folder (load.Listed)
        if found is not None:
            return found
    return None


def _gunzip(path: Path) -> str:
    """A gzipped artifact's text, read through the same checks as any file and bounded after
    decompression too (a small archive can expand without limit)."""
    try:
        # Never through a link (one put in its place after _artifact looked): the rule of every file in a folder.
        with open_regular(path, follow=False) as raw, gzip.open(raw, "rb") as fh:
            data = fh.read(MAX_FILE_BYTES + 1)
        if len(data) > MAX_FILE_BYTES:
            raise CatalogError([Problem(file=str(path), message="expands past the file size limit (ASOF_MAX_FILE_MB)")])
        return data.decode("utf-8")
    except (OSError, EOFError, UnicodeDecodeError) as exc:
        raise CatalogError([Problem(file=str(path), message=f"unreadable gzip artifact: {exc}")]) from exc


def read_target(folder: str | Path) -> DbtArtifacts:
    """Read the artifacts; manifest.json is required, the others are used when present."""
    folder = pinned(Path(folder))  # every artifact is read from the folder as it is now, never one swapped in later
    problems, loaded, files = [], {}, {}
    if _artifact(folder, "manifest") is None:
        raise CatalogError([Problem(file=str(folder), message="no manifest.json: give a dbt target/ folder "
                                                              "(run `dbt parse` or `dbt build` first)")])
    for name in ("manifest", "semantic_manifest", "catalog", "run_results", "sources"):
        path = _artifact(folder, name)
        if path is None:
            continue
        files[name] = str(path)
        try:
            loaded[name] = parse_text(_gunzip(path) if path.suffix == ".gz" else read_text(path, follow=False), path,
                                      as_json=True)
        except CatalogError as exc:
            problems += exc.problems
    # Wrong JSON types (a null metadata, a node that is a string, ...) stop here, named by file, object, field.
    problems = problems or artifact_problems(loaded, files)
    if problems:
        raise CatalogError(problems)
    manifest = loaded["manifest"]
    version = str(manifest.get("metadata", {}).get("dbt_schema_version", ""))
    if not any(f"/manifest/v{v}." in version for v in (10, 11, 12)):
        raise CatalogError([Problem(file=files["manifest"], field="metadata.dbt_schema_version",
                                    message=f"unsupported manifest schema {version or '(missing)'}; "
                                            "AsOf reads v10-v12 (dbt 1.6-1.11)")])
    return DbtArtifacts(folder, manifest, loaded.get("semantic_manifest"), loaded.get("catalog"),
                        loaded.get("run_results"), loaded.get("sources"), files)


def _hours(threshold: dict | None) -> float | None:
    if not threshold or threshold.get("count") is None or not threshold.get("period"):
        return None
    return float(threshold["count"]) * HOURS[threshold["period"]]


def _entity(uid: str, version: Any = None) -> str:
    """Versioned models share one entity; the unique_id carries `.v<version>`."""
    suffix = f".v{version}"
    return uid[: -len(suffix)] if version is not None and uid.endswith(suffix) else uid


def _columns_text(node: dict, cat: dict | None) -> tuple[list[str], str]:
    cols = dict(node.get("columns") or {})
    typed = ((cat or {}).get("columns") or {})
    names = list(dict.fromkeys(list(cols) + list(typed)))
    parts = []
    for name in names:
        kind = (typed.get(name) or {}).get("type") or (cols.get(name) or {}).get("data_type")
        desc = (cols.get(name) or {}).get("description")
        parts.append(f"{name}{f' {kind}' if kind else ''}{f': {desc}' if desc else ''}")
    return names, ("Columns: " + "; ".join(parts) + ".") if parts else ""


class _Reader:
    def __init__(self, art: DbtArtifacts):
        self.art = art
        m = art.manifest
        self.nodes = m.get("nodes") or {}
        self.catalog_nodes = {**((art.catalog or {}).get("nodes") or {}), **((art.catalog or {}).get("sources") or {})}
        self.built = {r.get("unique_id"): r for r in (art.run_results or {}).get("results") or []}
        self.groups = {g.get("name"): g for g in (m.get("groups") or {}).values() if isinstance(g, dict)}
        self.semantic_models: dict[str, dict] = {}
        self.results = run_results(art.run_results)
        self.tests = node_tests(m, self.results)
        self.out: list[dict] = []

    def _table(self, uid: str, node: dict, relation: str, cols: list[str], enabled: bool = True, **extra) -> dict:
        """A model's or source's `model` field: its relation, columns as described and typed, its tests with their
        last results, what dbt records of it (tags, meta, materialization, ...) and its own last run."""
        run = self.results.get(uid)
        return {"relation": relation.replace('"', ""), "columns": cols, **extra,
                "column_details": column_details(node, self.catalog_nodes.get(uid)),
                "tests": self.tests.get(uid, []), **node_facts(node, enabled),
                **({"last_run": run} if run else {})}

    def _all_nodes(self):
        """(unique_id, node, enabled): the manifest's nodes, then its disabled ones (`disabled`: a list per id).
        A disabled node whose name an enabled node of its type holds is one the project overrides (a package's seed
        replaced by the project's own): that name is the enabled node's, and the shadow is left out."""
        for uid, n in self.nodes.items():
            yield uid, n, True
        held = {(n.get("resource_type"), n.get("name")) for n in self.nodes.values() if isinstance(n, dict)}
        for uid, found in (self.art.manifest.get("disabled") or {}).items():
            if uid in self.nodes or not isinstance(found, list):
                continue
            n = next((x for x in found if isinstance(x, dict)), None)
            if n is not None and (n.get("resource_type"), n.get("name")) not in held:
                yield uid, n, False

    def _build(self, uid: str) -> str:
        r = self.built.get(uid)
        if not r:
            return ""
        when = next((t.get("completed_at") for t in r.get("timing") or [] if t.get("name") == "execute"), None)
        return f" Last dbt run: {r.get('status')}{f' at {when}' if when else ''}."

    def _owner(self, node: dict) -> str | None:
        """Who owns a node, as dbt records it: meta.owner, then config.meta.owner, then its group's owner."""
        for meta in (node.get("meta"), (node.get("config") or {}).get("meta")):
            owner = (meta or {}).get("owner") if isinstance(meta, dict) else None
            if owner:
                return _person(owner)
        group = self.groups.get(node.get("group") or (node.get("config") or {}).get("group"))
        return _person((group or {}).get("owner"))

    def _add(self, uid: str, kind: str, title: str, text: str, file: str, **extra) -> dict:
        item = {"evidence_id": uid, "entity_id": extra.pop("entity_id", uid), "kind": kind, "title": title,
                "text": " ".join(text.split()), "authority": "authoritative", "lifecycle": "current",
                "authority_class": extra.pop("authority_class", f"dbt_{kind}"), "source_system": "dbt",
                "source_uri": file, **extra}
        self.out.append(item)
        return item

    def models(self) -> None:
        for uid, n, enabled in self._all_nodes():
            rtype = n.get("resource_type")
            if rtype not in NODE_TYPES:
                continue
            version, latest = n.get("version"), n.get("latest_version")
            cols, cols_text = _columns_text(n, self.catalog_nodes.get(uid))
            labels, lifecycle = [], "current"
            if version is not None and latest is not None:
                if _newer(version, latest):
                    labels.append(f"pre-release (newer than latest_version {latest})")
                    lifecycle = "draft"
                elif str(version) == str(latest):
                    labels.append("latest_version")
            dep = n.get("deprecation_date")
            if dep:
                labels.append(f"deprecated from {dep[:10]}")
                if lifecycle == "current" and _ts(dep).date() <= self.art.generated_at:
                    lifecycle = "deprecated"
            access = n.get("access")
            contract = (n.get("contract") or {}).get("enforced")
            owner = self._owner(n)
            facts = [f"dbt {rtype} {n.get('name')}" + (f" version {version}" if version is not None else "")
                     + (f" ({', '.join(labels)})" if labels else "") + "."]
            if n.get("description"):
                facts.append(n["description"])
            if access:
                facts.append(f"Access: {access}.")
            if n.get("group"):
                facts.append(f"Group: {n['group']}.")
            if owner:
                facts.append(f"Owner: {owner}.")
            if contract:
                facts.append("Contract enforced.")
            if not enabled:
                facts.append("Disabled in dbt (enabled: false): it is not built.")
            if cols_text:
                facts.append(cols_text)
            facts.append(self._build(uid))
            relation = n.get("relation_name") or ".".join(x for x in (n.get("database"), n.get("schema"),
                                                                       n.get("alias") or n.get("name")) if x)
            title = n.get("name") + (f" v{version}" if version is not None else "")
            if rtype != "model":
                title += f" ({rtype})"
            item = self._add(uid, "model" if rtype != "seed" else "source", title, " ".join(facts),
                             n.get("original_file_path") or "manifest.json",
                             entity_id=_entity(uid, version), authority_class=f"dbt_{rtype}",
                             model=self._table(uid, n, relation, cols, enabled,
                                               primary_key=n.get("primary_key") or []),
                             version=str(version) if version is not None else None, lifecycle=lifecycle,
                             description=n.get("description") or None, owner=owner, label=_label(n))
            if dep and (version is not None or lifecycle == "deprecated"):
                item["valid_to"] = dep[:10]  # dbt stops supporting it then

    def sources(self) -> None:
        fresh = {r.get("unique_id"): r for r in (self.art.sources or {}).get("results") or []}
        for uid, s in (self.art.manifest.get("sources") or {}).items():
            cols, cols_text = _columns_text(s, self.catalog_nodes.get(uid))
            name = f"{s.get('source_name')}.{s.get('name')}"
            text = " ".join(x for x in (f"dbt source {name}.", s.get("source_description") or "",
                                        s.get("description") or "", cols_text,
                                        f"Loaded-at field: {s['loaded_at_field']}." if s.get("loaded_at_field") else "")
                            if x)
            self._add(uid, "source", name, text, s.get("original_file_path") or "manifest.json",
                      description=s.get("description") or s.get("source_description") or None, owner=self._owner(s),
                      label=_label(s),
                      aliases=[s.get("identifier") or s.get("name")] if (s.get("identifier") or s.get("name")) != name else [],
                      model=self._table(uid, s, s.get("relation_name") or name, cols))
            policy = s.get("freshness") or (s.get("config") or {}).get("freshness") or {}
            result = fresh.get(uid)
            # The manifest's thresholds are the project's now; a sources.json result keeps the ones of its own run,
            # which a later edit of the project replaces (its load time still counts, judged by the new thresholds).
            own = _hours(policy.get("warn_after")) is not None or _hours(policy.get("error_after")) is not None
            criteria = policy if own else (result or {}).get("criteria") or {}
            warn, error = _hours(criteria.get("warn_after")), _hours(criteria.get("error_after"))
            if warn is not None or error is not None:
                self._add(f"freshness.{uid}.policy", "freshness_policy", f"Freshness policy for {name}",
                          f"dbt source freshness: warn after {warn} hours, error after {error} hours.",
                          s.get("original_file_path") or "manifest.json", entity_id=uid,
                          authority_class="dbt_source_freshness",
                          freshness={"source": uid, "warn_after_hours": warn, "error_after_hours": error})
            if result and result.get("max_loaded_at"):
                snap = result.get("snapshotted_at")
                self._add(f"freshness.{uid}.{snap}", "freshness_observation", f"{name} freshness check {snap[:19]}",
                          f"dbt source freshness at {snap}: max_loaded_at {result['max_loaded_at']}, "
                          f"status {result.get('status')}.", "sources.json",
                          entity_id=uid, authority_class="dbt_source_freshness", version=snap,
                          freshness={"source": uid, "loaded_at": result["max_loaded_at"], "observed_at": snap})

    def exposures_and_docs(self) -> None:
        """An exposure (dashboard, notebook, ML model, app) is an entity of its own: what people ask about
        ("who owns the Weekly Business Review dashboard?", "which models feed it?"). Its upstream models are
        lineage edges from `parent_map`, cut per role like any other, so its text names none of them."""
        for uid, e in (self.art.manifest.get("exposures") or {}).items():
            owner = _person(e.get("owner")) or self._owner(e)
            label = e.get("label") or e.get("name")
            text = (f"dbt exposure {label}: {e.get('type') or 'exposure'}, maturity {e.get('maturity') or 'unset'}. "
                    f"{e.get('description') or ''} Owner: {owner or 'not recorded'}. URL: {e.get('url') or 'none'}.")
            self._add(uid, "model", label, text, e.get("original_file_path") or "manifest.json",
                      owner=owner, authority_class="dbt_exposure", description=e.get("description") or None,
                      label=e.get("label") or None,
                      aliases=[e["name"]] if e.get("name") and e.get("name") != label else [])
        users: dict[str, list[str]] = {}
        for kind in ("nodes", "sources", "exposures"):
            for uid, n in (self.art.manifest.get(kind) or {}).items():
                for block in (n.get("doc_blocks") or []) if isinstance(n, dict) else []:
                    users.setdefault(block, []).append(uid)
                for col in ((n.get("columns") or {}).values() if isinstance(n, dict) else []):
                    for block in (col.get("doc_blocks") or []) if isinstance(col, dict) else []:
                        users.setdefault(block, []).append(uid)
        known = {o["evidence_id"]: o for o in self.out}
        for uid, d in (self.art.manifest.get("docs") or {}).items():
            if d.get("package_name") == "dbt":  # dbt's own built-in overview page
                continue
            # Documentation of the nodes that use it: filed under the one node that does, linked to all.
            used_by = [u for u in dict.fromkeys(users.get(uid, [])) if u in known]
            entity = known[used_by[0]]["entity_id"] if len(used_by) == 1 else uid
            self._add(uid, "documentation", d.get("name"), d.get("block_contents") or "",
                      d.get("original_file_path") or "manifest.json", authority_class="dbt_doc",
                      entity_id=entity, links={"documents": used_by} if used_by else {})

    def semantic(self) -> None:
        sem = self.art.semantic or {}
        manifest_sms = {v.get("name"): (k, v) for k, v in (self.art.manifest.get("semantic_models") or {}).items()}
        sms = sem.get("semantic_models") or [v for _, v in manifest_sms.values()]
        measure_home: dict[str, tuple[str, dict, dict]] = {}
        for sm in sms:
            uid, msm = manifest_sms.get(sm.get("name"), (f"semantic_model.{self.art.project}.{sm.get('name')}", {}))
            model_uid = next(iter((msm.get("depends_on") or {}).get("nodes") or []), None)
            primary = next((e.get("name") for e in sm.get("entities") or [] if e.get("type") == "primary"),
                           sm.get("primary_entity"))
            defaults = sm.get("defaults") or {}
            for meas in sm.get("measures") or []:
                measure_home[meas.get("name")] = (uid, sm, meas)
            # Its model is named here: a semantic model takes its model's permissions (overlay._follow).
            model_name = (self.nodes.get(model_uid) or {}).get("name") or (sm.get("node_relation") or {}).get("alias")
            parts = [f"dbt semantic model {sm.get('name')} on {model_name}.",
                     sm.get("description") or "",
                     "Entities: " + ", ".join(f"{e.get('name')} ({e.get('type')}, {e.get('expr') or e.get('name')})"
                                              for e in sm.get("entities") or []) + ".",
                     "Dimensions: " + ", ".join(f"{d.get('name')} ({d.get('type')})" for d in sm.get("dimensions") or []) + ".",
                     "Measures: " + ", ".join(f"{x.get('name')} = {_agg(x)}" for x in sm.get("measures") or []) + "."]
            self.semantic_models[uid] = {"model": model_uid, "primary": primary,
                                         "time": defaults.get("agg_time_dimension")}
            # Filed under its dbt model's entity: it documents that model, it is not a rival to it.
            model_node = self.nodes.get(model_uid) or {}
            self._add(uid, "documentation", f"{sm.get('name')} (semantic model)", " ".join(parts),
                      msm.get("original_file_path") or "semantic_manifest.json", authority_class="dbt_semantic_model",
                      entity_id=_entity(model_uid, model_node.get("version")) if model_uid else uid,
                      links={"documents": [model_uid]} if model_uid else {})
        manifest_metrics = {v.get("name"): (k, v) for k, v in (self.art.manifest.get("metrics") or {}).items()}
        metrics = sem.get("metrics") or [v for _, v in manifest_metrics.values()]
        by_name = {m.get("name"): m for m in metrics}
        for m in metrics:
            uid, mm = manifest_metrics.get(m.get("name"), (f"metric.{self.art.project}.{m.get('name')}", {}))
            homes = self._homes(m, by_name, measure_home)
            models = sorted({self.semantic_models[h]["model"] for h in homes if self.semantic_models[h]["model"]})
            first = self.semantic_models[homes[0]] if homes else {}
            tp = m.get("type_params") or {}
            measure = (tp.get("measure") or {}).get("name")
            time_dim = (measure_home.get(measure, (None, {}, {}))[2].get("agg_time_dimension")
                        if measure else None) or first.get("time")
            filters = [f.get("where_sql_template", "").strip() for f in ((m.get("filter") or {}).get("where_filters") or [])]
            # Input metrics are named in the formula; `mentions` lets each reader's view redact the ones it
            # may not see. Semantic models and backing models are links, never text.
            inputs = _input_metrics(m)
            mentions = {n: manifest_metrics.get(n, (f"metric.{self.art.project}.{n}", {}))[0]
                        for n in inputs if n != m.get("name")}
            text = (f"dbt {m.get('type')} metric {m.get('name')}. {m.get('description') or ''} "
                    f"Formula: {_formula(m, measure_home)}."
                    + (f" Filter: {'; '.join(filters)}." if filters else ""))
            self._add(uid, "metric_definition", m.get("label") or m.get("name"), text,
                      mm.get("original_file_path") or "semantic_manifest.json", authority_class="dbt_metric",
                      aliases=[m.get("name")] if m.get("label") and m.get("label") != m.get("name") else [],
                      metric={"formula": _formula(m, measure_home), "grain": first.get("primary"),
                              "time_dimension": time_dim, "filters": filters,
                              "time_aggregation": _over_time(m, measure_home)},
                      links={"implemented_by": models} if models else {},
                      description=m.get("description") or None, mentions=mentions, label=m.get("label") or None,
                      owner=self._owner(mm) if mm else None)

    def _homes(self, m: dict, by_name: dict, measure_home: dict, seen: frozenset = frozenset()) -> list[str]:
        """Semantic models a metric reads, through input measures and input metrics."""
        tp = m.get("type_params") or {}
        names = [x.get("name") for x in tp.get("input_measures") or []]
        for key in ("measure",):
            if tp.get(key):
                names.append(tp[key].get("name"))
        conv = tp.get("conversion_type_params") or {}
        names += [(conv.get(k) or {}).get("name") for k in ("base_measure", "conversion_measure")]
        homes = [measure_home[n][0] for n in names if n in measure_home]
        inputs = [x.get("name") for x in tp.get("metrics") or []]
        inputs += [(tp.get(k) or {}).get("name") for k in ("numerator", "denominator")]
        for name in inputs:
            if name in by_name and name not in seen:
                homes += self._homes(by_name[name], by_name, measure_home, seen | {m.get("name")})
        return list(dict.fromkeys(homes))

    def lineage(self) -> None:
        """One lineage object per downstream node, holding its edges from parent_map."""
        known = {o["evidence_id"]: o for o in self.out}
        for child, parents in (self.art.manifest.get("parent_map") or {}).items():
            if child not in known:
                continue  # tests, unit tests, saved queries, macros: not part of the answer chain
            ups = [p for p in parents if p in known]
            if not ups:
                continue
            node = known[child]
            # The parents are edges (cut per role when read), never prose: a visible child's lineage text
            # must not name or count a parent the reader may not see.
            self._add(f"lineage.{child}", "lineage", f"Lineage into {node['title']}",
                      f"dbt lineage into {node['title']}, from the manifest's parent_map.",
                      "manifest.json", entity_id=f"lineage.{child}",
                      authority_class="dbt_parent_map", edges=[[p, child] for p in ups],
                      links={"lineage": [child]})


def _over_time(m: dict, measure_home: dict) -> str | None:
    """A simple metric on a measure with a non-additive dimension taken at its max (MetricFlow: a balance or a
    count of subscribers read at the period's last snapshot) rolls up over time as its last value; any other
    metric as its unit says (core/resolve/values.py: over_time). A window choice of min (the first snapshot) has
    no counterpart and is left undeclared."""
    if m.get("type") != "simple":
        return None
    name = ((m.get("type_params") or {}).get("measure") or {}).get("name")
    measure = measure_home.get(name, (None, {}, {}))[2]
    nad = measure.get("non_additive_dimension") or {}
    return "last" if nad and (nad.get("window_choice") or "max").lower() == "max" else None


def _label(node: dict) -> str | None:
    """A model's or source's display name: dbt gives models none of their own, so teams keep one in meta."""
    for meta in (node.get("meta"), (node.get("config") or {}).get("meta")):
        label = meta.get("label") if isinstance(meta, dict) else None
        if isinstance(label, str) and label.strip():
            return label.strip()
    return None


def _person(owner: Any) -> str | None:
    """dbt owners are a string or {name, email}: 'Name (email)', or whichever is given."""
    if isinstance(owner, str):
        return owner.strip() or None
    if isinstance(owner, dict):
        name, email = owner.get("name"), owner.get("email")
        if isinstance(email, list):
            email = ", ".join(str(x) for x in email)
        if name and email:
            return f"{name} ({email})"
        return (name or email) or None
    return None


def _input_metrics(m: dict) -> list[str]:
    tp = m.get("type_params") or {}
    names = [x.get("name") for x in tp.get("metrics") or [] if isinstance(x, dict)]
    names += [(tp.get(k) or {}).get("name") if isinstance(tp.get(k), dict) else tp.get(k)
              for k in ("numerator", "denominator")]
    return [n for n in dict.fromkeys(names) if isinstance(n, str) and n]


def _newer(version: Any, latest: Any) -> bool:
    try:
        return float(version) > float(latest)
    except (TypeError, ValueError):
        return str(version) > str(latest)


def _agg(measure: dict) -> str:
    expr = measure.get("expr") or measure.get("name")
    agg = measure.get("agg")
    # Our own templates only: an unknown aggregation from the manifest is text, never a format string.
    out = AGG[agg].format(expr) if isinstance(agg, str) and agg in AGG else f"{agg or ''}({expr})"
    params = measure.get("agg_params") or {}
    if params.get("percentile") is not None:
        out = f"percentile({expr}, {params['percentile']})"
    return out


def _formula(m: dict, measure_home: dict) -> str:
    tp = m.get("type_params") or {}
    kind = m.get("type")

    def measure(ref: dict | None) -> str:
        name = (ref or {}).get("name")
        return _agg(measure_home[name][2]) if name in measure_home else str(name)

    if kind == "simple":
        return measure(tp.get("measure"))
    if kind == "ratio":
        return f"{(tp.get('numerator') or {}).get('name')} / {(tp.get('denominator') or {}).get('name')}"
    if kind == "derived":
        inputs = []
        for x in tp.get("metrics") or []:
            alias = f"{x.get('alias')} = " if x.get("alias") else ""
            offset = x.get("offset_window")
            shift = f" offset {offset.get('count')} {offset.get('granularity')}" if offset else ""
            inputs.append(f"{alias}{x.get('name')}{shift}")
        return f"{tp.get('expr')} where " + ", ".join(inputs) if inputs else str(tp.get("expr"))
    if kind == "cumulative":
        cum = tp.get("cumulative_type_params") or {}
        window = cum.get("window") or tp.get("window")
        to_date = cum.get("grain_to_date") or tp.get("grain_to_date")
        span = (f" over {window.get('count')} {window.get('granularity')}" if isinstance(window, dict)
                else f" {to_date} to date" if to_date else " over all time")
        return f"cumulative {measure(tp.get('measure'))}{span}"
    if kind == "conversion":
        c = tp.get("conversion_type_params") or {}
        window = c.get("window") or {}
        return (f"{c.get('calculation', 'conversion_rate')}({measure(c.get('base_measure'))} -> "
                f"{measure(c.get('conversion_measure'))} by {c.get('entity')}"
                + (f" within {window.get('count')} {window.get('granularity')}" if window else "") + ")")
    return str(tp.get("expr") or m.get("name"))


def _short_entities(out: list[dict]) -> None:
    """Entity ids without the package ('metric.revenue', 'source.ecom.raw_orders'), so questions can name
    them; evidence ids stay dbt's unique_ids. Names that clash across packages keep the package."""
    def short(entity: str) -> str:
        parts = entity.split(".")
        return ".".join([parts[0], *parts[2:]]) if len(parts) >= 3 and parts[0] in DBT_TYPES else entity

    owners: dict[str, set[str]] = {}
    for e in out:
        owners.setdefault(short(e["entity_id"]), set()).add(e["entity_id"])
    for e in out:
        s = short(e["entity_id"])
        if len(owners[s]) == 1:
            e["entity_id"] = s


DBT_TYPES = {"model", "seed", "snapshot", "source", "metric", "semantic_model", "exposure", "doc"}


def dbt_evidence(art: DbtArtifacts) -> list[dict]:
    """Evidence objects (plain dicts, before the overlay and validation) from one dbt target folder."""
    r = _Reader(art)
    r.models()
    r.sources()
    r.exposures_and_docs()
    r.semantic()
    r.lineage()
    _short_entities(r.out)
    return r.out
