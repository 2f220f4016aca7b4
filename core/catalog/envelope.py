"""The evidence envelope: the structured, reproducible answer to one question."""
from __future__ import annotations

from datetime import date, datetime, timedelta
from enum import Enum

from pydantic import BaseModel, Field

from core.catalog.evidence import Evidence, MetaValue, MetricSpec, ModelSpec, RunResult
from core.catalog.explanation import Explanation
from core.catalog.values import Values

Day = date  # ClarifyOption has a field named `date`


# The one answer for a hidden object and a made-up one: existence of restricted objects is not leaked.
NOT_FOUND = ("I can't find that in the catalog you have access to. It may not exist, or it may not be shared "
             "with your role.")


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
    description: str | None = None
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
                   owner=ev.owner, description=ev.description, source_uri=ev.source_uri, source_revision=ev.source_revision,
                   content_hash=ev.content_hash, metric=ev.metric, model=ev.model, text=ev.text,
                   role_in_answer=role_in_answer)


class EvidenceLabel(BaseModel):
    """What a conflict and a quoted document both say about the evidence object they show."""
    evidence_id: str
    entity_id: str
    title: str
    kind: str
    authority: str
    lifecycle: str


class Conflict(EvidenceLabel):
    version: str | None = None
    valid_from: date | None = None
    valid_to: date | None = None
    label: str  # DRAFT | SUPERSEDED | UNTRUSTED | NON-AUTHORITATIVE | NOT IN EFFECT | DEPRECATED
    why: str
    named_in_question: bool = False
    text: str = ""


class LineageNode(BaseModel):
    id: str
    kind: str  # metric | model | source | seed | node
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
    # Models with no parents at all (date spines, SQL-generated seeds): the data starts there, but they are
    # not raw sources.
    generated: list[str] = Field(default_factory=list)
    # Seeds (CSV files checked into the project and loaded by dbt) where the chain starts: data someone wrote
    # into the repository, listed as seeds and never as raw sources.
    seeds: list[str] = Field(default_factory=list)
    # True when some shown node has an upstream this role may not see: the chain continues beyond the view.
    # What is beyond is never named or counted.
    continues_beyond_view: bool = False
    # The shown nodes where it does (visible ones only): which of several walked chains continues. Not serialized.
    stops: list[str] = Field(default_factory=list, exclude=True)


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


class CatalogState(BaseModel):
    """Transaction time: which recorded state of the catalog answered, and today's, by ingest number.

    Not part of the answer's hash (see core.serve.audit): it says when the answer was read, not what it says."""
    recorded_at: datetime | None = None  # asked "as recorded at"; None = the current catalog
    ingest: int | None = None  # the ingest whose content answered
    ingested_at: datetime | None = None
    revision: str  # catalog revision of that state, as the role sees it (like Envelope.catalog_revision)
    current_ingest: int | None = None
    current_revision: str  # today's, as the role sees it
    acl_ingest: int | None = None  # whose permissions applied (always the current ones when asked)
    catalog_only: bool = False  # past states are read from DuckDB; the search index holds only current content
    detail: str = ""


class TraceStep(BaseModel):
    rule: str
    detail: str


# ---- Intents the catalog answers without a definition (discover, compare, owner, downstream, document). ----
# Each is an optional field of the envelope; `Envelope.intent` says which one the question asked.

class VersionSummary(BaseModel):
    evidence_id: str
    version: str | None = None
    valid_from: date | None = None
    valid_to: date | None = None  # exclusive
    authority: str
    lifecycle: str
    in_effect: bool = False  # on the reporting date (or today when none was given)


class TableTest(BaseModel):
    name: str
    column: str | None = None
    generic: bool = True
    test_id: str | None = None
    severity: str | None = None
    result: RunResult | None = None  # the last recorded run's outcome; None: none recorded (never a pass)


class TableColumn(BaseModel):
    name: str
    type: str | None = None
    description: str | None = None
    tests: list[str] = Field(default_factory=list)  # the names of the tests on this column


class TableFacts(BaseModel):
    """A table's make-up as the role may see it (core/answer/intents/table_facts.py): its columns and the tests on it."""
    evidence_id: str
    asked: str  # tests | columns | test_results | last_run | properties
    column: str | None = None  # the column asked about, when one was
    columns: list[TableColumn] = Field(default_factory=list)
    tests: list[TableTest] = Field(default_factory=list)
    # What dbt records of it (core/ingest/dbt_facts.py): its own last run, tags, meta and configuration.
    last_run: RunResult | None = None
    tags: list[str] = Field(default_factory=list)
    meta: dict[str, MetaValue] = Field(default_factory=dict)
    materialized: str | None = None
    enabled: bool | None = None
    access: str | None = None
    contract: bool | None = None
    group: str | None = None


class ListedEntity(BaseModel):
    """One visible entity in a discover answer: never anything the role may not see."""
    entity_id: str
    label: str
    role: str  # metric | model | source | document | policy
    owner: str | None = None
    status: str  # current version vN on DAY | no current version on DAY | draft only | not authoritative
    evidence_id: str  # the object the row is read from (the version in effect, else the latest visible)
    title: str
    description: str = ""
    versions: list[VersionSummary] = Field(default_factory=list)
    # A whole-catalog freshness question ("which sources are stale?"): the source's freshness as a question about it
    # alone reads it (status, hours since the last load, thresholds); `status` then says it in words.
    freshness: FreshnessEntry | None = None
    # The same question asked of a metric, model or dashboard: the stale sources its upstream lineage on the day reaches
    # (visible ones only), and whether that lineage continues beyond what the role may see.
    reads_stale: list[FreshnessEntry] = Field(default_factory=list)
    lineage_continues: bool = False


class ReviewFinding(BaseModel):
    """One item of the governance review queue (core/answer/intents/review.py), computed over the asking view only."""
    category: str  # overlap | draft_conflict | superseded_surfaced | untrusted_instructions | empty_acl | stale_index
    title: str
    detail: str
    action: str
    evidence_ids: list[str] = Field(default_factory=list)


class ReviewAnswer(BaseModel):
    """A governance reviewer's question ("which drafts contradict ...?") answered from the review queue."""
    categories: list[str]
    as_of: date
    items: list[ReviewFinding] = Field(default_factory=list)
    # The question's own words for what the items are about ("gross margin"), normalized; empty when it asks about a
    # kind of item alone. Items are narrowed to them: to the visible metric they name, else to titles holding them.
    subject: list[str] = Field(default_factory=list)


class Listing(BaseModel):
    kind: str  # metric | model | source | document | exposure (dbt exposures: dashboards, reports)
    topic: list[str] = Field(default_factory=list)  # words the names had to contain; empty = everything
    as_of: date
    items: list[ListedEntity] = Field(default_factory=list)
    # A whole-catalog question's condition ("is deprecated", "has no owner"): items are the visible ones that
    # meet it, out of `checked` visible ones (never a count of anything hidden).
    condition: str | None = None
    condition_many: str | None = None  # the same said of several ("are stale", "have no owner")
    checked: int | None = None
    # A yes/no question ("is anything stale?", "are all sources fresh?"): yes | no | not known, from the visible ones only.
    answer: str | None = None
    # Freshness: the visible sources with no recorded load, neither stale nor fresh (never among `items`).
    not_known: list[ListedEntity] = Field(default_factory=list)


class FieldChange(BaseModel):
    field: str
    before: str | None = None
    after: str | None = None
    changed: bool
    # Prose fields (the description): the sentences only the earlier side has, and only the later side has,
    # quoted as written, so a reader sees which sentence changed, not two whole paragraphs.
    removed: list[str] = Field(default_factory=list)
    added: list[str] = Field(default_factory=list)


class Comparison(BaseModel):
    """Two versions of one entity, field by field; `left` is the earlier. Or two entities of one kind, each as
    in effect on the reporting date; `right_label` then names the second."""
    left: EvidenceRef
    right: EvidenceRef
    how: str  # how the two were chosen
    fields: list[FieldChange] = Field(default_factory=list)
    left_model: str | None = None  # backing model evidence ids (metrics)
    right_model: str | None = None
    right_label: str | None = None
    # Two revisions of one object that ingests recorded (core/answer/intents/recorded_change.py): the ingest that recorded
    # the later one, and its day.
    recorded_ingest: int | None = None
    recorded_on: date | None = None

    @property
    def changed(self) -> list[FieldChange]:
        return [f for f in self.fields if f.changed]


class Ownership(BaseModel):
    entity_id: str
    owner: str | None
    evidence_id: str  # where the owner is recorded
    version: str | None = None
    from_draft: bool = False  # no authoritative version: the owner of the latest non-governing object
    history: list[VersionSummary] = Field(default_factory=list)
    owners_by_version: dict[str, str | None] = Field(default_factory=dict)  # evidence_id -> owner


class DownstreamItem(BaseModel):
    id: str  # lineage node id
    kind: str  # exposure | metric | model | document | source | node
    label: str
    depth: int
    evidence_id: str | None = None  # the visible object behind the node, if any
    version: str | None = None
    exposure_type: str | None = None  # dashboard | notebook | analysis | ml | application (dbt exposures)
    owner: str | None = None
    via: list[str] = Field(default_factory=list)  # lineage evidence carrying the edge into it


class Inclusion(BaseModel):
    """A yes/no question about what the governing definition counts ("does CAC include agency fees?"),
    answered from the definition's structured fields (core/resolve/inclusion.py)."""
    term: str
    verdict: str  # yes (the formula names it) | no (an exclusion names it) | not_stated
    where: str | None = None  # the exclusion or the formula that names it
    evidence_id: str  # the governing definition the verdict reads


class Disagreement(BaseModel):
    """A question whether drafts, pages or other documents disagree with the definition ("are there drafts or wiki
    pages that contradict how churn is defined?"), answered from the answer's own conflicts, which are the role's
    (core/resolve/disagreement.py): yes when one of the kinds asked disagrees, else no."""
    asked: list[str] = Field(default_factory=list)  # kinds the question names (draft, wiki, note ...); empty: any
    verdict: str  # yes | no
    evidence_ids: list[str] = Field(default_factory=list)  # the conflicts of the kinds asked, in the answer's order
    others: list[str] = Field(default_factory=list)  # conflicts of other kinds, which disagree too
    governing: str  # the version that governs, whatever disagrees with it


class Downstream(BaseModel):
    starts: list[str]
    as_of: date
    asked: str | None = None  # dashboards | reports | models | metrics ... as the question put it
    items: list[DownstreamItem] = Field(default_factory=list)


class DocumentEvidence(EvidenceLabel):
    """A document answered as evidence: quoted and cited, labelled by its authority; it never governs."""
    authority_class: str | None = None
    label: str  # e.g. AUTHORITATIVE DOCUMENT, UNTRUSTED, SUPERSEDED, DRAFT
    owner: str | None = None
    version: str | None = None
    valid_from: date | None = None
    valid_to: date | None = None
    about: list[str] = Field(default_factory=list)  # entity ids it documents
    quote: str
    text: str = ""
    source_uri: str | None = None


class DateReading(BaseModel):
    """How one date written in the question was read, and by which rule."""
    text: str
    read_as: str
    rule: str


class VersionAsked(BaseModel):
    """A version named in a question asking yes or no whether it was in force ("was the draft of X in force in Q3?",
    "did v7 of X apply?"): whether the role can see such a version, and which one it is."""
    said: str  # "draft", or the version as a label ("v7")
    exists: bool  # a version so named is among what the role can see
    evidence_id: str | None = None  # the one it names, when it exists


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
    # A freshness question put the stale way ("is AOV stale?"): its Yes is the bad news (core/read/intents/described.py).
    asks_stale: bool = False
    verdict: str
    selected: list[EvidenceRef] = Field(default_factory=list)
    conflicts: list[Conflict] = Field(default_factory=list)
    lineage: Lineage = Field(default_factory=Lineage)
    columns: ColumnLineage | None = None
    freshness: list[FreshnessEntry] = Field(default_factory=list)
    clarify: Clarify | None = None
    # No reporting date was given and one version is in effect on the evaluation date: the answer is for that
    # day (reporting_date), and these are the other versions, each a click away (issue 19 item 3).
    today_by_default: bool = False
    other_versions: list[ClarifyOption] = Field(default_factory=list)
    inclusion: Inclusion | None = None
    disagreement: Disagreement | None = None
    splits: list[SubPeriod] = Field(default_factory=list)
    supporting: list[SearchHit] = Field(default_factory=list)
    index: IndexStatus | None = None
    notes: list[str] = Field(default_factory=list)
    ignored_instructions: list[str] = Field(default_factory=list)
    trace: list[TraceStep] = Field(default_factory=list)
    catalog_revision: str
    # Evidence ids read beyond the role's ACL: a steward's review queue (core/answer/steward.py); empty otherwise.
    granted: list[str] = Field(default_factory=list)
    recorded: CatalogState | None = None  # the catalog state answered from (transaction time)
    explanation: Explanation | None = None  # added on request (`ask --explain`, the Ask page)
    intent: str | None = None  # discover | compare | owner | downstream | document | upcoming | review | tests | columns
    # (None = definition)
    listing: Listing | None = None
    comparison: Comparison | None = None
    ownership: Ownership | None = None
    downstream: Downstream | None = None
    documents: list[DocumentEvidence] = Field(default_factory=list)
    review: ReviewAnswer | None = None
    table_facts: TableFacts | None = None  # tests | columns: a table's tests or columns
    values: Values | None = None  # metric values, when the question asks for numbers (core/answer/values.py)
    # The one-line answer the Ask page leads with (core/explain/headline.py), set by every surface that hands the
    # envelope on (CLI --json and --batch, MCP), so a consumer relays what a person reads. Derived, not hashed.
    headline: str | None = None
    # The moment freshness was judged at when the question named one ("was X fresh at the end of Q2 2024?", "at 6pm
    # yesterday"): the answer speaks of that moment, from the loads recorded up to it. None: the clock's now.
    moment: datetime | None = None
    # "was the draft of X in force in Q3?": the version the question named, and whether it exists (core/answer/resolution.py)
    version_asked: VersionAsked | None = None

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
        if self.values:
            shown = self.values.values + [v for r in (self.values.restatement.rows if self.values.restatement else [])
                                          for v in (r.governing, r.other)]
            ids |= {i for v in shown for i in (v.evidence_id, v.model_evidence_id) if i}
        return ids | set(intent_facts(self))


def intent_facts(env: "Envelope") -> dict[str, list[str]]:
    """What the intent fields say about each evidence id: what a sentence citing it may draw on."""
    out: dict[str, list[str]] = {}

    def add(evidence_id: str | None, *parts) -> None:
        if evidence_id:
            out.setdefault(evidence_id, []).extend(str(p) for p in parts if p)

    def dates(v) -> list:
        return [v.valid_from, v.valid_to, v.valid_to and (v.valid_to - timedelta(days=1))]

    if env.listing:
        for it in env.listing.items + env.listing.not_known:
            add(it.evidence_id, it.entity_id, it.label, it.title, it.owner, it.status, it.description,
                *(x for v in it.versions for x in (v.version, v.lifecycle, v.authority, *dates(v))))
            f = it.freshness
            for eid in (f.evidence_id, f.policy_evidence_id) if f else ():
                add(eid, it.entity_id, it.label, f.status, f.age_hours, f.warn_after_hours, f.error_after_hours,
                    f.loaded_at, f.evaluated_at)
            for f in it.reads_stale:  # a metric's stale sources: each cited by its own load and policy
                for eid in (f.evidence_id, f.policy_evidence_id):
                    add(eid, f.source, f.status, f.age_hours, f.warn_after_hours, f.error_after_hours,
                        f.loaded_at, f.evaluated_at)
    if env.comparison:
        c = env.comparison
        for ref, model in ((c.left, c.left_model), (c.right, c.right_model)):
            add(ref.evidence_id, model, *(x for f in c.fields for x in (f.field, f.before, f.after)))
    if env.ownership:
        o = env.ownership
        add(o.evidence_id, o.entity_id, o.owner, o.version)
        for v in o.history:
            add(v.evidence_id, o.entity_id, v.version, o.owners_by_version.get(v.evidence_id), *dates(v))
    if env.review:
        for it in env.review.items:
            for eid in it.evidence_ids:
                add(eid, it.category, it.title, it.detail)
    if env.downstream:
        for it in env.downstream.items:
            add(it.evidence_id, it.id, it.label, it.kind, it.exposure_type, it.owner, it.version)
            for via in it.via:
                add(via, it.id, it.label)
    if env.table_facts:
        t = env.table_facts
        runs = [x.result for x in t.tests if x.result] + ([t.last_run] if t.last_run else [])
        add(t.evidence_id, t.evidence_id, t.materialized, t.access, t.group, *t.tags,
            *(x for c in t.columns for x in (c.name, c.type, c.description, *c.tests)),
            *(x for x in t.tests for x in (x.name, x.column, x.severity)),
            *(x for r in runs for x in (r.status, r.failures, r.execution_time_s, r.completed_at and r.completed_at.date())))
    for d in env.documents:
        add(d.evidence_id, d.entity_id, d.title, d.text, d.quote, d.owner, d.version, d.authority,
            d.lifecycle, d.authority_class, d.label, *d.about, *dates(d))
    return out
