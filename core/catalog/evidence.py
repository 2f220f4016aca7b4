"""The catalog's contract: evidence objects (brief section 4), roles and principals.

Validated once at ingest so that everything after works on trusted, typed objects.
"""
from __future__ import annotations

import hashlib
import json
import unicodedata
from collections.abc import Iterable, Sequence
from datetime import date, datetime, timedelta, timezone
from enum import Enum
from functools import lru_cache
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

# Input bounds, checked at ingest (core/ingest/load.py) and not on every read of a stored object.
MAX_ID_CHARS = 512          # evidence and entity ids, role and principal names, ACL entries, link targets
MAX_TEXT_CHARS = 200_000    # any one text field (a 50 MB field would take minutes to index)


def id_problem(value: str) -> str | None:
    """Why `value` cannot be an id, or None. Ids are printed in answers, logs and terminals and matched by
    eye: printable, bounded, without surrounding white space, and already in Unicode NFKC form (so that no
    two ids, and no id and its normalised reading, look alike)."""
    if len(value) > MAX_ID_CHARS:
        return f"is {len(value):,} characters long; an id has at most {MAX_ID_CHARS}"
    if not value.isprintable():
        bad = next(c for c in value if not c.isprintable())
        return (f"contains the invisible or control character U+{ord(bad):04X} "
                f"({unicodedata.name(bad, 'unnamed').lower()}); ids are printable text")
    if value != value.strip():
        return "starts or ends with white space"
    if not value.isascii() and unicodedata.normalize("NFKC", value) != value:
        return (f"is not in Unicode NFKC form: it reads as {ascii(unicodedata.normalize('NFKC', value))}, a "
                "look-alike of another id; write it that way")
    return None


def _too_long(value, path: str, out: list[tuple[str, str]]) -> None:
    if isinstance(value, str):
        if len(value) > MAX_TEXT_CHARS:
            out.append((path, f"is {len(value):,} characters long, over the {MAX_TEXT_CHARS:,}-character limit "
                              "for one text field"))
    elif isinstance(value, BaseModel):
        for key, item in value.__dict__.items():
            _too_long(item, f"{path}.{key}", out)
    elif isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            _too_long(item, f"{path}[{i}]", out)
    elif isinstance(value, dict):
        for key, item in value.items():
            _too_long(key, f"{path} (a key)", out)
            _too_long(item, f"{path}.{key}" if len(str(key)) <= 80 else path, out)


def input_problems(obj: "Evidence | Role | Principal") -> list[tuple[str, str]]:
    """(field, message) for each id that is not one (see id_problem) and each text over MAX_TEXT_CHARS."""
    out: list[tuple[str, str]] = []
    if isinstance(obj, Evidence):
        ids = [("evidence_id", obj.evidence_id), ("entity_id", obj.entity_id), ("supersedes", obj.supersedes),
               ("superseded_by", obj.superseded_by)]
        ids += [(f"acl[{i}]", r) for i, r in enumerate(obj.acl)]
        ids += [(f"links.{k}[{i}]", t) for k, targets in obj.links.items() for i, t in enumerate(targets)]
    elif isinstance(obj, Role):
        ids = [("name", obj.name)]
    else:
        ids = [("name", obj.name)] + [(f"roles[{i}]", r) for i, r in enumerate(obj.roles)]
    for field, value in ids:
        problem = id_problem(value) if value is not None else None
        if problem:
            out.append((field, f"not a valid id: {problem}"))
    # A field can only be too long when the whole object's JSON is (each character is at least one byte of
    # it): the walk that names the field runs only then, not over every value of a 100k catalog.
    if len(obj.__pydantic_serializer__.to_json(obj)) > MAX_TEXT_CHARS:
        for key, value in obj.__dict__.items():
            _too_long(value, key, out)
    return out


class Kind(str, Enum):
    metric_definition = "metric_definition"
    model = "model"
    lineage = "lineage"
    source = "source"
    freshness_policy = "freshness_policy"
    freshness_observation = "freshness_observation"
    documentation = "documentation"
    policy = "policy"
    note = "note"


class Authority(str, Enum):
    authoritative = "authoritative"
    non_authoritative = "non_authoritative"
    untrusted = "untrusted"


class Lifecycle(str, Enum):
    current = "current"
    historical = "historical"
    superseded = "superseded"
    deprecated = "deprecated"
    draft = "draft"
    retired = "retired"


# Members by value: `Kind(value)` goes through Enum.__call__ (255 ns against 12 for a dict lookup), and a
# whole-catalog listing at a million objects reads three of them for each of 280,000 rows.
KIND = {k.value: k for k in Kind}
AUTHORITY = {a.value: a for a in Authority}
LIFECYCLE = {c.value: c for c in Lifecycle}

# Kinds that may govern an answer about their entity. Documentation and notes never govern;
# lineage and freshness objects support the chain but are not "the definition".
GOVERNING_KINDS = {Kind.metric_definition, Kind.model, Kind.source, Kind.freshness_policy, Kind.policy}
DOCUMENT_KINDS = {Kind.documentation, Kind.note}


class MetricSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")
    formula: str
    grain: str | None = None
    unit: str | None = None
    time_dimension: str | None = None
    filters: list[str] = Field(default_factory=list)
    exclusions: list[str] = Field(default_factory=list)
    # One SELECT computing the value over the half-open period [$start, $end) as a column named `value`;
    # `{{ model }}` stands for the backing model version's relation. Checked at ingest (core/ingest/metric_sql.py).
    sql: str | None = None
    # How values over several periods make one: summed (a flow: revenue, orders), the last one (a stock held at a
    # moment: subscribers, recurring revenue at month end) or their average. None: summed for a currency or a count,
    # never rolled up for a rate (core/resolve/values.py: over_time). dbt's non_additive_dimension maps to `last`.
    time_aggregation: Literal["sum", "last", "average"] | None = None


# A value of dbt `meta`: what a team writes there (owner, PII flags, update frequency, ...), kept as JSON scalars
# or lists of them; nested mappings are flattened to dotted keys when read (core/ingest/dbt_facts.py).
MetaValue = str | int | float | bool | None | list[str | int | float | bool | None]


class ColumnSpec(BaseModel):
    """One column as its authors described it (dbt's schema.yml) and as the warehouse types it (catalog.json)."""
    model_config = ConfigDict(extra="forbid")
    name: str = Field(min_length=1)
    type: str | None = None
    description: str | None = None
    tags: list[str] = Field(default_factory=list)      # dbt's column tags
    meta: dict[str, MetaValue] = Field(default_factory=dict)  # dbt's column meta (pii, deprecated, ...)


class RunResult(BaseModel):
    """What the last recorded run did with a node or a test (dbt's run_results.json): its status, when it finished
    and how long it took. No RunResult means no run was recorded, never that it passed."""
    model_config = ConfigDict(extra="forbid")
    # models: success, error, skipped; tests: pass, fail, warn, error, skipped; as dbt writes them
    status: str = Field(min_length=1)
    completed_at: datetime | None = None  # the execute step's end, else the run's generated_at
    execution_time_s: float | None = Field(default=None, ge=0, allow_inf_nan=False)
    failures: int | None = None  # a test's failing rows
    message: str | None = None

    @field_validator("completed_at")
    @classmethod
    def _utc(cls, value: datetime | None) -> datetime | None:
        if value is not None and value.tzinfo is None:
            value = value.replace(tzinfo=timezone.utc)
        return value


class DataTest(BaseModel):
    """A data test that runs on a model or source: dbt's generic tests (`not_null` on a column) and singular ones
    (a SQL file). `models` is every node it reads: it is shown only to a role that may see all of them, since its
    name and arguments can name each."""
    model_config = ConfigDict(extra="forbid")
    name: str = Field(min_length=1)  # the test as written: `not_null`, `relationships`, or a singular test's file
    test_id: str | None = None  # dbt's unique_id
    generic: bool = True
    column: str | None = None
    models: list[str] = Field(default_factory=list)
    severity: str | None = None      # dbt's config.severity (error, warn) when set
    result: RunResult | None = None  # the last recorded run's outcome; None: no result recorded


# Added after catalogs were first hashed: each counts only when set (see Evidence.compute_hash). `[]` marks a field
# of every item of a list.
_LATER_FIELDS = ("label", "model.column_details", "model.tests", "model.tests[].severity", "model.tests[].result",
                 "model.tags", "model.meta", "model.materialized", "model.enabled", "model.access", "model.contract",
                 "model.group", "model.last_run", "model.column_details[].tags", "model.column_details[].meta",
                 "metric.time_aggregation")


class ModelSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")
    relation: str | None = None
    grain: str | None = None
    primary_key: list[str] = Field(default_factory=list)
    columns: list[str] = Field(default_factory=list)
    column_details: list[ColumnSpec] = Field(default_factory=list)
    tests: list[DataTest] = Field(default_factory=list)
    # What dbt records of a model or source beyond its columns (core/ingest/dbt_facts.py).
    tags: list[str] = Field(default_factory=list)
    meta: dict[str, MetaValue] = Field(default_factory=dict)
    materialized: str | None = None   # view, table, incremental, ephemeral, snapshot, seed, ...
    enabled: bool | None = None       # False: disabled in dbt (config enabled: false), never built
    access: str | None = None         # public, protected, private
    contract: bool | None = None      # True: contract enforced
    group: str | None = None
    last_run: RunResult | None = None  # its own last recorded build; None: none recorded


class Edge(BaseModel):
    model_config = ConfigDict(extra="forbid")
    upstream: str
    downstream: str
    upstream_column: str | None = None
    downstream_column: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _from_pair(cls, value: Any) -> Any:
        # The common spelling is a pair [upstream, downstream]; a 4-list adds columns.
        if isinstance(value, (list, tuple)):
            if len(value) == 2:
                return {"upstream": value[0], "downstream": value[1]}
            if len(value) == 4:
                return {"upstream": value[0], "downstream": value[1],
                        "upstream_column": value[2], "downstream_column": value[3]}
            raise ValueError("an edge is [upstream, downstream] or [upstream, downstream, up_col, down_col]")
        return value


class Freshness(BaseModel):
    # NaN compares false with everything, so a NaN threshold would silently never fire: refused.
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)
    source: str | None = None  # defaults to the object's entity_id
    warn_after_hours: float | None = Field(default=None, ge=0)
    error_after_hours: float | None = Field(default=None, ge=0)
    loaded_at: datetime | None = None
    observed_at: datetime | None = None

    @field_validator("loaded_at", "observed_at")
    @classmethod
    def _utc(cls, value: datetime | None) -> datetime | None:
        if value is not None and value.tzinfo is None:
            value = value.replace(tzinfo=timezone.utc)
        return value

    @model_validator(mode="after")
    def _thresholds(self) -> "Freshness":
        if (self.warn_after_hours is not None and self.error_after_hours is not None
                and self.error_after_hours < self.warn_after_hours):
            raise ValueError("error_after_hours must be >= warn_after_hours")
        return self


# What json.dumps(body, sort_keys=True) builds on every call, built once: the same text, so the same hashes.
_HASH_JSON = json.JSONEncoder(sort_keys=True)

LINK_TYPES = ("implemented_by", "lineage", "conflicts_with", "documents", "supersedes", "superseded_by")


class Evidence(BaseModel):
    """One immutable revision of one business entity."""
    model_config = ConfigDict(extra="forbid", use_enum_values=False)

    evidence_id: str = Field(min_length=1)
    entity_id: str = Field(min_length=1)
    kind: Kind
    title: str
    # The display name people know it by ("Lab turnaround (p90)" for lab_tat_p90): headlines say it instead of the
    # raw id. Written `label` or `name` in a catalog file; dbt's `label`.
    label: str | None = None
    text: str = ""
    version: str | None = None
    authority: Authority
    lifecycle: Lifecycle
    authority_class: str | None = None
    valid_from: date | None = None
    valid_to: date | None = None  # exclusive; None = open
    recorded_at: datetime | None = None
    expires_at: date | None = None
    acl: list[str]
    owner: str | None = None
    description: str | None = None  # the source system's own description (dbt), shown verbatim
    aliases: list[str] = Field(default_factory=list)
    supersedes: str | None = None
    superseded_by: str | None = None
    links: dict[str, list[str]] = Field(default_factory=dict)
    metric: MetricSpec | None = None
    model: ModelSpec | None = None
    edges: list[Edge] = Field(default_factory=list)
    freshness: Freshness | None = None
    # Words in this object's text or formula that name another object, mapped to its id. Read per role
    # (access.Visible): a name whose object the reader may not see is replaced, never shown.
    mentions: dict[str, str] = Field(default_factory=dict)
    source_uri: str | None = None
    source_system: str | None = None
    source_revision: str | None = None
    content_hash: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _name_is_label(cls, data: Any) -> Any:
        if isinstance(data, dict) and "name" in data:
            data = dict(data)
            name = data.pop("name")
            if data.get("label") is not None and name is not None and str(name) != str(data["label"]):
                raise ValueError(f"label {str(data['label'])[:60]!r} and name {str(name)[:60]!r} disagree: the display "
                                 "name is given once, as label or as name")
            data.setdefault("label", name)
        if isinstance(data, dict) and isinstance(data.get("label"), str):
            data["label"] = " ".join(data["label"].split()) or None
        return data

    @model_validator(mode="before")
    @classmethod
    def _valid_through(cls, data: Any) -> Any:
        # valid_through is the inclusive last day people write; the contract stores exclusive valid_to.
        if isinstance(data, dict) and "valid_through" in data:
            data = dict(data)
            through = data.pop("valid_through")
            if data.get("valid_to") is not None and through is not None:
                raise ValueError("give valid_to (exclusive) or valid_through (inclusive), not both")
            if through is not None:
                day = through if isinstance(through, date) else date.fromisoformat(str(through))
                # The last day the calendar has (9999-12-31) has no day after it: open-ended.
                data["valid_to"] = day + timedelta(days=1) if day < date.max else None
        return data

    @field_validator("links", mode="before")
    @classmethod
    def _links_as_lists(cls, value: Any) -> Any:
        if isinstance(value, dict):
            return {k: ([v] if isinstance(v, str) else v) for k, v in value.items()}
        return value

    @field_validator("links")
    @classmethod
    def _known_link_types(cls, value: dict[str, list[str]]) -> dict[str, list[str]]:
        for key in value:
            if key not in LINK_TYPES:
                raise ValueError(f"unknown link type {key!r}; expected one of {', '.join(LINK_TYPES)}")
        return value

    @model_validator(mode="after")
    def _interval(self) -> "Evidence":
        if self.valid_from and self.valid_to and self.valid_to <= self.valid_from:
            raise ValueError(
                f"valid_to {self.valid_to} must be after valid_from {self.valid_from} (valid_to is exclusive)")
        if self.valid_from and self.expires_at and self.expires_at < self.valid_from:
            raise ValueError(f"expires_at {self.expires_at} is before valid_from {self.valid_from}")
        if self.content_hash is None:
            self.content_hash = self.compute_hash()
        return self

    def compute_hash(self) -> str:
        body = self.model_dump(mode="json", exclude={"content_hash", "acl", "recorded_at"})
        for key in _LATER_FIELDS:
            # Fields added after catalogs were first hashed count only when set: an object that does not use them
            # keeps the hash it had, so a re-ingest does not report it changed.
            owner, _, name = key.rpartition(".")
            if owner.endswith("[]"):
                parent, _, listed = owner[:-2].rpartition(".")
                holders = ((body.get(parent) if parent else body) or {}).get(listed) or []
            else:
                holders = [body.get(owner) if owner else body]
            for holder in holders:
                if isinstance(holder, dict) and holder.get(name) in (None, [], {}):
                    holder.pop(name, None)
        return "sha256:" + hashlib.sha256(_HASH_JSON.encode(body).encode()).hexdigest()[:32]

    @property
    def acl_revision(self) -> str:
        return _acl_revision(tuple(self.acl))

    def valid_on(self, day: date) -> bool:
        """The effective-time rule: valid_from <= day < valid_to, open ends unbounded."""
        return (self.valid_from is None or self.valid_from <= day) and (self.valid_to is None or day < self.valid_to)

    def overlaps(self, start: date | None, end: date | None) -> bool:
        """Whether [valid_from, valid_to) meets [start, end) (None = unbounded)."""
        lo_ok = self.valid_to is None or start is None or start < self.valid_to
        hi_ok = self.valid_from is None or end is None or self.valid_from < end
        return lo_ok and hi_ok

    @property
    def governs(self) -> bool:
        """Only authoritative evidence of a governing kind may decide an answer; drafts never."""
        return (self.authority is Authority.authoritative and self.kind in GOVERNING_KINDS
                and self.lifecycle not in (Lifecycle.draft, Lifecycle.retired))

    def link_targets(self) -> list[tuple[str, str]]:
        out = [(kind, target) for kind, targets in self.links.items() for target in targets]
        if self.supersedes:
            out.append(("supersedes", self.supersedes))
        if self.superseded_by:
            out.append(("superseded_by", self.superseded_by))
        return out


@lru_cache(maxsize=4096)
def _acl_revision(acl: tuple[str, ...]) -> str:
    # A catalog has few distinct ACLs and every object's is read several times per ingest (index rows, catalog
    # rows, the revision): each is hashed once.
    return hashlib.sha256(json.dumps(sorted(acl)).encode()).hexdigest()[:16]


class Role(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = Field(min_length=1)
    description: str = ""
    # Catalog stewards review the whole catalog (the governance queue); their answers still
    # follow their own ACL like everyone else's.
    steward: bool = False

    @model_validator(mode="before")
    @classmethod
    def _from_str(cls, value: Any) -> Any:
        return {"name": value} if isinstance(value, str) else value


class Principal(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str
    roles: list[str]


class CatalogSettings(BaseModel):
    """Catalog-wide settings, declared under a top-level `settings:` key in any catalog file."""
    model_config = ConfigDict(extra="forbid")
    fiscal_year_start_month: int = Field(1, ge=1, le=12)  # FY2025 / Q1 FY2026 follow it
    # The catalog's own clock: freshness is evaluated at this time unless the user or the question names
    # another. For a demo or fixture whose loads were recorded once, so its data stays fresh, stale and
    # failing as designed however far the wall clock has moved on. Unset (every real catalog): the real clock.
    evaluation_time: datetime | None = None

    @field_validator("evaluation_time")
    @classmethod
    def _utc_clock(cls, v: datetime | None) -> datetime | None:
        if v is not None and v.tzinfo is None:
            raise ValueError("needs a time zone, e.g. 2026-11-29T12:00:00Z")
        return v.astimezone(timezone.utc) if v else v


def evidence_keys(evidence) -> Sequence[tuple[str, str, str]]:
    """(evidence_id, content_hash, acl_revision) of every object: kept beside objects an ingest holds on disk
    (core/catalog/spilled.py `keys`), so the revision and the change summary read no object back."""
    keys = getattr(evidence, "keys", None)
    if keys is not None:
        return keys
    return [(e.evidence_id, e.content_hash, e.acl_revision) for e in evidence]


def evidence_ids(keys: Sequence[tuple[str, str, str]]):
    """The keys' evidence ids as one Arrow array (from the columns where an ingest holds them so)."""
    import pyarrow as pa  # the ingest's, not a question's: answering never imports it through here

    table = getattr(keys, "table", None)
    if table is not None:
        return table().column("evidence_id").combine_chunks()
    return pa.array([k[0] for k in keys], pa.string())


def keys_in_order(evidence) -> Iterable[tuple[str, str, str]]:
    """The keys sorted, without a million tuples held at once where an ingest holds them as columns."""
    keys = evidence_keys(evidence)
    by_id = getattr(keys, "by_id", None)
    return by_id() if by_id else sorted(keys)


class Catalog(BaseModel):
    settings: CatalogSettings = Field(default_factory=CatalogSettings)
    roles: list[Role]
    principals: list[Principal] = Field(default_factory=list)
    evidence: list[Evidence]
    warnings: list[str] = Field(default_factory=list)

    @property
    def role_names(self) -> list[str]:
        return [r.name for r in self.roles]

    def revision(self) -> str:
        """Identifies this exact catalog content and permissions; envelopes cite it."""
        digest = hashlib.sha256()
        for eid, content_hash, acl_revision in keys_in_order(self.evidence):
            digest.update(f"{eid}|{content_hash}|{acl_revision}\n".encode())
        digest.update(json.dumps(sorted(self.role_names)).encode())
        if self.settings != CatalogSettings():  # default settings leave existing revisions unchanged
            digest.update(self.settings.model_dump_json().encode())
        return digest.hexdigest()[:16]
