"""The JSON shapes the dbt reader relies on, checked once when the artifacts are loaded.

dbt's artifacts are large and loosely typed; the reader in `dbt.py` asks for fields with `.get` and
assumes each one has the type dbt writes. A hand-edited or corrupted artifact (a null `metadata`, a
node that is a string, a freshness count written as a string) would otherwise end in a Python
traceback deep inside the reader. This module walks the artifacts against a declarative shape and
reports every wrong type with its file, object (dbt unique_id or name) and field, so the ingest stops
with a clear message and nothing written. Unknown fields are ignored: dbt adds new ones every release.
"""
from __future__ import annotations

from datetime import datetime
from typing import Any

from core.ingest.load import Problem

NONE = type(None)
STR = (str, NONE)            # a string or null
NUM = (int, float, NONE)     # a number or null (bool is refused separately)
SCALAR = (str, int, float, NONE)


class Obj:
    """A JSON object with known fields (others ignored); `required` fields may not be null."""

    def __init__(self, fields: dict[str, Any], nullable: bool = True, required: tuple[str, ...] = ()):
        self.fields, self.nullable, self.required = fields, nullable, required


class MapOf:
    """A JSON object used as a map from unique_id (or name) to values of one shape."""

    def __init__(self, item: Any):
        self.item = item


class ListOf:
    def __init__(self, item: Any):
        self.item = item


class Timestamp:
    """An ISO 8601 timestamp or date string (dbt writes `...Z`)."""


class OneOf:
    def __init__(self, *values: str):
        self.values = values


NAMED = Obj({"name": STR})
COLUMNS = MapOf(Obj({"description": STR, "data_type": STR, "type": STR}))
THRESHOLD = Obj({"count": NUM, "period": OneOf("minute", "hour", "day")})
FRESHNESS = Obj({"warn_after": THRESHOLD, "error_after": THRESHOLD})

NODE = Obj({
    "resource_type": STR, "name": (str,), "version": SCALAR, "latest_version": SCALAR,
    "columns": COLUMNS, "deprecation_date": Timestamp(), "access": STR, "group": STR, "description": STR,
    "contract": Obj({}), "relation_name": STR, "database": STR, "schema": STR, "alias": STR,
    "original_file_path": STR, "primary_key": ListOf(STR), "column_name": STR, "attached_node": STR,
    "test_metadata": Obj({"name": STR, "kwargs": Obj({"column_name": STR})}),
    "depends_on": Obj({"nodes": ListOf((str,))})}, nullable=False, required=("name",))
SOURCE = Obj({
    "source_name": STR, "name": STR, "identifier": STR, "source_description": STR, "description": STR,
    "loaded_at_field": STR, "relation_name": STR, "original_file_path": STR, "columns": COLUMNS,
    "freshness": FRESHNESS, "config": Obj({"freshness": FRESHNESS})}, nullable=False)
EXPOSURE = Obj({"owner": Obj({"name": STR, "email": STR}), "label": STR, "name": STR,
                "original_file_path": STR}, nullable=False)
DOC = Obj({"package_name": STR, "name": STR, "block_contents": STR, "original_file_path": STR}, nullable=False)
MEASURE = Obj({"name": STR, "expr": SCALAR, "agg": (str,), "agg_params": Obj({"percentile": NUM}),
               "agg_time_dimension": STR,
               "non_additive_dimension": Obj({"name": STR, "window_choice": STR, "window_groupings": ListOf(STR)})},
              nullable=False)
SEMANTIC_MODEL = Obj({
    "name": STR, "description": STR, "primary_entity": STR, "entities": ListOf(Obj({"name": STR, "type": STR})),
    "dimensions": ListOf(Obj({"name": STR, "type": STR})), "measures": ListOf(MEASURE),
    "defaults": Obj({"agg_time_dimension": STR}), "node_relation": Obj({"alias": STR}),
    "depends_on": Obj({"nodes": ListOf((str,))}), "original_file_path": STR}, nullable=False)
WINDOW = Obj({"count": NUM, "granularity": STR})
METRIC = Obj({
    "name": STR, "label": STR, "type": STR, "description": STR, "original_file_path": STR,
    "filter": Obj({"where_filters": ListOf(Obj({"where_sql_template": (str,)}, nullable=False))}),
    "type_params": Obj({
        "measure": NAMED, "input_measures": ListOf(NAMED), "numerator": NAMED, "denominator": NAMED,
        "metrics": ListOf(Obj({"name": STR, "alias": STR, "offset_window": WINDOW})), "expr": SCALAR,
        "window": (dict, str, NONE), "grain_to_date": STR,
        "cumulative_type_params": Obj({"window": (dict, str, NONE), "grain_to_date": STR}),
        "conversion_type_params": Obj({"base_measure": NAMED, "conversion_measure": NAMED, "entity": STR,
                                       "calculation": STR, "window": WINDOW})})}, nullable=False)

SHAPES: dict[str, Obj] = {
    "manifest": Obj({
        "metadata": Obj({"project_name": STR, "generated_at": Timestamp(), "dbt_schema_version": STR},
                        nullable=False),
        "nodes": MapOf(NODE), "sources": MapOf(SOURCE), "exposures": MapOf(EXPOSURE), "docs": MapOf(DOC),
        "semantic_models": MapOf(SEMANTIC_MODEL), "metrics": MapOf(METRIC),
        "parent_map": MapOf(ListOf((str,)))}, nullable=False, required=("metadata",)),
    "semantic_manifest": Obj({"semantic_models": ListOf(SEMANTIC_MODEL), "metrics": ListOf(METRIC)},
                             nullable=False),
    "catalog": Obj({"nodes": MapOf(Obj({"columns": COLUMNS}, nullable=False)),
                    "sources": MapOf(Obj({"columns": COLUMNS}, nullable=False))}, nullable=False),
    "run_results": Obj({"results": ListOf(Obj({
        "unique_id": (str,), "status": SCALAR,
        "timing": ListOf(Obj({"name": STR, "completed_at": STR}, nullable=False))}, nullable=False))},
        nullable=False),
    "sources": Obj({"results": ListOf(Obj({
        "unique_id": (str,), "criteria": FRESHNESS, "max_loaded_at": Timestamp(), "snapshotted_at": Timestamp(),
        "status": SCALAR}, nullable=False))}, nullable=False),
}

# Containers whose items are dbt objects: problems inside them name the object, not a path of keys.
_OBJECT_MAPS = {"nodes", "sources", "exposures", "docs", "semantic_models", "metrics", "parent_map"}


def _kind(value: Any) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean", int: "a number",
            float: "a number", NONE: "null"}.get(type(value), type(value).__name__)


def _want(types: tuple) -> str:
    names = [{str: "a string", int: "a number", float: "a number", dict: "an object", NONE: "null"}[t]
             for t in types]
    return " or ".join(dict.fromkeys(names))


class _Walk:
    def __init__(self, file: str):
        self.file, self.problems = file, []

    def bad(self, obj: str | None, field: str, message: str) -> None:
        if len(self.problems) < 50:  # a thoroughly broken file is reported, not recited
            self.problems.append(Problem(file=self.file, evidence_id=obj, field=field or "(object)",
                                         message=message))

    def check(self, value: Any, shape: Any, obj: str | None, field: str) -> None:
        if isinstance(shape, tuple):
            if isinstance(value, bool) and bool not in shape or not isinstance(value, shape):
                self.bad(obj, field, f"must be {_want(shape)}, got {_kind(value)}")
        elif isinstance(shape, Timestamp):
            if value is None:
                return
            try:
                datetime.fromisoformat(value.replace("Z", "+00:00"))
            except (AttributeError, ValueError):
                self.bad(obj, field, f"must be an ISO 8601 timestamp, got {_kind(value)} {str(value)[:40]!r}")
        elif isinstance(shape, OneOf):
            if value is not None and value not in shape.values:
                self.bad(obj, field, f"must be one of {', '.join(shape.values)}, got {str(value)[:40]!r}")
        elif isinstance(shape, Obj):
            if value is None:
                if not shape.nullable:
                    self.bad(obj, field, "must be an object, got null")
                return
            if not isinstance(value, dict):
                self.bad(obj, field, f"must be an object, got {_kind(value)}")
                return
            for key in shape.required:
                if key not in value:
                    self.bad(obj, f"{field}.{key}".lstrip("."), "is missing")
            for key, sub in shape.fields.items():
                if key in value:
                    self.check(value[key], sub, obj, f"{field}.{key}".lstrip("."))
        elif isinstance(shape, MapOf):
            if value is None:
                return
            if not isinstance(value, dict):
                self.bad(obj, field, f"must be an object keyed by id, got {_kind(value)}")
                return
            as_object = field in _OBJECT_MAPS
            for key, item in value.items():
                # Inside a dbt object, fields are named from that object (`freshness.warn_after.count`).
                self.check(item, shape.item, key if as_object else obj, "" if as_object else f"{field}.{key}")
        elif isinstance(shape, ListOf):
            if value is None:
                return
            if not isinstance(value, list):
                self.bad(obj, field, f"must be a list, got {_kind(value)}")
                return
            for i, item in enumerate(value):
                name = item.get("name") if isinstance(item, dict) and isinstance(item.get("name"), str) else None
                self.check(item, shape.item, obj or name, f"{field}[{i}]")


def artifact_problems(loaded: dict[str, Any], files: dict[str, str]) -> list[Problem]:
    """Every wrong JSON type in the loaded dbt artifacts ({artifact name: parsed JSON})."""
    problems: list[Problem] = []
    for name, data in loaded.items():
        walk = _Walk(files.get(name, f"{name}.json"))
        walk.check(data, SHAPES[name], None, "")
        if name == "sources" and not walk.problems:
            for r in (data.get("results") or []):
                if r.get("max_loaded_at") and not r.get("snapshotted_at"):
                    walk.bad(r.get("unique_id"), "snapshotted_at", "is missing beside max_loaded_at")
        problems += walk.problems
    return problems
