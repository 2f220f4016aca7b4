"""The evidence envelope: the structured, reproducible answer to one question."""
from __future__ import annotations

from datetime import date, datetime
from enum import Enum

from pydantic import BaseModel, Field

from .catalog import Evidence, MetricSpec, ModelSpec
from .explanation import Explanation

Day = date  # ClarifyOption has a field named `date`


class Behavior(str, Enum):
    answer = "answer"
    clarify = "clarify"
    split = "split"
    abstain = "abstain"
    not_found_or_not_authorized = "not_found_or_not_authorized"
    human_review = "human_review"
    refuse = "refuse"


class EvidenceRef(BaseModel):
    evidence_id: str
    entity_id: str
    kind: str
    title: str
    version: str | None
    valid_from: date | None
    valid_to: date | None
    authority: str
    lifecycle: str
    authority_class: str | None = None
    owner: str | None = None
    source_uri: str | None = None
    source_revision: str | None = None
    content_hash: str | None = None
    metric: MetricSpec | None = None
    model: ModelSpec | None = None
    text: str = ""
    role_in_answer: str = ""

    @classmethod
    def of(cls, ev: Evidence, role_in_answer: str) -> "EvidenceRef":
        return cls(evidence_id=ev.evidence_id, entity_id=ev.entity_id, kind=ev.kind.value, title=ev.title,
                   version=ev.version, valid_from=ev.valid_from, valid_to=ev.valid_to,
                   authority=ev.authority.value, lifecycle=ev.lifecycle.value, authority_class=ev.authority_class,
                   owner=ev.owner, source_uri=ev.source_uri, source_revision=ev.source_revision,
                   content_hash=ev.content_hash, metric=ev.metric, model=ev.model, text=ev.text,
                   role_in_answer=role_in_answer)


class Conflict(BaseModel):
    evidence_id: str
    entity_id: str
    title: str
    kind: str
    authority: str
    lifecycle: str
    version: str | None = None
    valid_from: date | None = None
    valid_to: date | None = None
    label: str  # DRAFT | SUPERSEDED | UNTRUSTED | NON-AUTHORITATIVE | NOT IN EFFECT | DEPRECATED
    why: str
    named_in_question: bool = False
    text: str = ""


class LineageNode(BaseModel):
    id: str
    kind: str  # metric | model | source | node
    label: str
    version: str | None = None
    evidence_id: str | None = None


class LineageEdge(BaseModel):
    upstream: str
    downstream: str
    evidence_id: str


class Lineage(BaseModel):
    nodes: list[LineageNode] = Field(default_factory=list)
    edges: list[LineageEdge] = Field(default_factory=list)
    raw_sources: list[str] = Field(default_factory=list)


class ColumnHop(BaseModel):
    upstream: str
    upstream_column: str
    downstream: str
    downstream_column: str
    evidence_id: str


class ColumnLineage(BaseModel):
    """Where one column comes from: column-level edges when they exist, else a plain statement that only
    table-level lineage is recorded."""
    column: str
    found_in: str | None = None  # the node whose column was traced
    hops: list[ColumnHop] = Field(default_factory=list)
    raw_columns: list[str] = Field(default_factory=list)  # node.column with no recorded upstream
    table_only: bool = False
    detail: str


class FreshnessEntry(BaseModel):
    source: str
    status: str  # pass | warn | error | unknown
    age_hours: float | None
    warn_after_hours: float | None
    error_after_hours: float | None
    loaded_at: datetime | None
    evaluated_at: datetime
    evidence_id: str | None = None
    policy_evidence_id: str | None = None


class ClarifyOption(BaseModel):
    label: str
    date: Day | None = None
    entity_id: str | None = None
    version: str | None = None
    evidence_id: str | None = None


class Clarify(BaseModel):
    question: str
    options: list[ClarifyOption]


class SubPeriod(BaseModel):
    start: date
    end: date  # exclusive
    behavior: Behavior
    selected: list[EvidenceRef] = Field(default_factory=list)
    verdict: str


class SearchHit(BaseModel):
    """Found by hybrid search inside the requester's visible set; supports, never governs."""
    evidence_id: str
    title: str
    kind: str
    authority: str
    lifecycle: str
    score: float


class IndexStatus(BaseModel):
    """The third clock: whether the search index reflects the catalog's content and permissions."""
    status: str  # current | stale | absent
    indexed_objects: int = 0
    stale_content: list[str] = Field(default_factory=list)
    stale_acl: list[str] = Field(default_factory=list)
    missing: list[str] = Field(default_factory=list)
    detail: str = ""


class TraceStep(BaseModel):
    rule: str
    detail: str


class DateReading(BaseModel):
    """How one date written in the question was read, and by which rule."""
    text: str
    read_as: str
    rule: str


class Envelope(BaseModel):
    behavior: Behavior
    role: str
    reporting_date: date | None = None
    period_start: date | None = None
    period_end: date | None = None  # exclusive
    evaluated_at: datetime
    entity_id: str | None = None
    entity_label: str | None = None
    entity_read_as: str | None = None  # "read 'net reveneu' as Net revenue": a misspelt name was read
    dates_read: list[DateReading] = Field(default_factory=list)
    asked: list[str] = Field(default_factory=list)
    verdict: str
    selected: list[EvidenceRef] = Field(default_factory=list)
    conflicts: list[Conflict] = Field(default_factory=list)
    lineage: Lineage = Field(default_factory=Lineage)
    columns: ColumnLineage | None = None
    freshness: list[FreshnessEntry] = Field(default_factory=list)
    clarify: Clarify | None = None
    splits: list[SubPeriod] = Field(default_factory=list)
    supporting: list[SearchHit] = Field(default_factory=list)
    index: IndexStatus | None = None
    notes: list[str] = Field(default_factory=list)
    ignored_instructions: list[str] = Field(default_factory=list)
    trace: list[TraceStep] = Field(default_factory=list)
    catalog_revision: str
    explanation: Explanation | None = None  # added on request (`ask --explain`, the Ask page)

    def evidence_ids(self) -> set[str]:
        ids = {s.evidence_id for s in self.selected} | {c.evidence_id for c in self.conflicts}
        ids |= {e.evidence_id for e in self.lineage.edges}
        ids |= {n.evidence_id for n in self.lineage.nodes if n.evidence_id}
        if self.columns:
            ids |= {h.evidence_id for h in self.columns.hops}
        ids |= {f.evidence_id for f in self.freshness if f.evidence_id}
        ids |= {f.policy_evidence_id for f in self.freshness if f.policy_evidence_id}
        ids |= {h.evidence_id for h in self.supporting}
        for sp in self.splits:
            ids |= {s.evidence_id for s in sp.selected}
        if self.clarify:
            ids |= {o.evidence_id for o in self.clarify.options if o.evidence_id}
        return ids
