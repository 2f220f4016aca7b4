"""One question, in the brief's order: access -> intent -> when -> entity -> resolve -> expand -> envelope.

Each step appends to the trace what it decided and by which rule.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime, timezone

from core.answer import decision_note, values
from core.answer.entity import _intent_entity, _llm_reading, _named_objects, _pick_entity
from core.answer.intents import route as intents
from core.answer.resolution import _resolve
from core.catalog import history
from core.catalog.access import Visible, seen_text, visible
from core.catalog.envelope import (
    Behavior,
    CatalogState,
    ColumnLineage,
    Envelope,
    IndexStatus,
    TraceStep,
)
from core.catalog.store import Store
from core.compute.engine import ValueEngine
from core.read.dates import recorded, when
from core.read.dates.when import dates_read
from core.read.intents.intent import Intent
from core.read.reading import Reading, check_length, read
from core.resolve.outcome import _clarify
from core.resolve.search_pass import SEARCH_K, _search_filters
from core.retrieve.index import IndexUnavailable
from core.retrieve.search import Searcher
from core.settings import budget


class UnknownRole(ValueError):
    pass


@dataclass
class Question:
    role: str
    text: str
    day: date | None = None
    period: tuple[date, date] | None = None  # half-open
    at: datetime | None = None
    entity: str | None = None  # chosen on the form (a clarification answer); must be visible
    date_from_form: bool = False  # the user confirmed the form's date over dates written in the text
    recorded_at: datetime | None = None  # transaction time: answer from the catalog as it stood then
    # Evidence ids this question may read beyond the role's ACL: a steward's review queue (core/answer/steward.py)
    # and nothing else. Everything after authorization sees them exactly as it sees the role's own objects.
    grants: frozenset[str] = frozenset()
    # A follow-up's word on what it carried from the asker's last question (core/answer/conversation.py): said
    # first in the notes when `entity` resolves, so an answer never rests on a carried subject silently.
    carried: str | None = None
    # What a follow-up keeps from the last answer beyond its subject and period (core/answer/conversation.py): a
    # number was asked for (and by which grain), or two periods are set side by side ("vs last year?").
    asks_value: bool = False
    value_grain: str | None = None
    compare: tuple[tuple[date, date], tuple[date, date]] | None = None
    compare_versions: tuple[str, str] | None = None  # version labels a follow-up compares ("between them")
    asks_freshness: bool = False  # a follow-up naming only a new moment after a freshness answer ("and at 6pm?")


@dataclass
class _Run:
    q: Question
    view: Visible
    reading: Reading  # the question, read once: later steps read this, never the text
    intent: Intent  # reading.intent
    revision: str
    at: datetime
    searcher: Searcher | None = None
    trace: list[TraceStep] = field(default_factory=list)
    day: date | None = None
    period: tuple[date, date] | None = None
    notes: list[str] = field(default_factory=list)
    columns: ColumnLineage | None = None
    read_as: str | None = None  # how a misspelt name was read
    llm_reading: object = None  # the LLM's reading, when one was asked for and could be read
    dates_read: list = field(default_factory=list)  # how each date in the text was read
    now: list = field(default_factory=list)  # "now" words read as the evaluation time (the form's date stood)
    refs: list = field(default_factory=list)  # visible objects named exactly (named.named_objects)
    bare: bool = False  # the question is only such names (and words like "what does ... say")
    other_versions: list = field(default_factory=list)  # no date given: the versions not in effect today
    answer_vector: object = None  # the answer pass's vector search, started before the entity is chosen
    moment: datetime | None = None  # freshness judged at a moment the question named ("at 6pm yesterday")

    def step(self, rule: str, detail: str) -> None:
        budget.check()  # between steps: a question that has spent its time budget stops here
        self.trace.append(TraceStep(rule=rule, detail=detail))

    def envelope(self, behavior: Behavior, verdict: str, **kw) -> Envelope:
        ignored = []
        if self.intent.overrides:
            ignored = [f"request to {o.replace('_', ' ')}: not followed" for o in self.intent.overrides]
        index = self.searcher.status_for(self.view.role, self.view.grants) if self.searcher else None
        if "intent" not in kw and self.intent.kind == "upcoming":
            kw["intent"] = "upcoming"
        return Envelope(behavior=behavior, role=self.q.role, reporting_date=self.day, index=index,
                        period_start=self.period[0] if self.period else None,
                        period_end=self.period[1] if self.period else None, evaluated_at=self.at,
                        asked=sorted(self.intent.aspects | ({"exists"} if self.reading.asks_exists else set())),
                        verdict=verdict, notes=self.notes,
                        ignored_instructions=ignored, trace=self.trace, catalog_revision=self.revision,
                        columns=self.columns, entity_read_as=self.read_as,
                        today_by_default=bool(self.other_versions), other_versions=self.other_versions,
                        dates_read=self.dates_read, moment=self.moment,
                        asks_stale="freshness_status" in self.intent.aspects and self.reading.asks_stale, **kw)


def ask(store: Store, q: Question, now: datetime | None = None, searcher: Searcher | None = None,
        llm: tuple[str, float] | None = None, engine: ValueEngine | None = None) -> Envelope:
    """Answer one question. `searcher` adds the semantic path and the conflict pass; without it the
    answer comes from the catalog alone. A recorded-at time (on the form or in the text) answers from the
    catalog as it stood then (core/catalog/history.py), from DuckDB alone. An index that cannot be read (at opening
    or mid-question) gives the catalog-only answer with a notice, never a Lance traceback. `llm` (model,
    timeout s) adds a checked LLM reading of the question (core/read/llm/reading.py); without it the reading is
    deterministic. `engine` computes metric values when the question asks for numbers (core/answer/values.py);
    without it such an answer says that no warehouse is configured.

    A question longer than budget.MAX_QUESTION_CHARS raises budget.QuestionTooLong before anything reads it;
    an answer that spends its time budget (budget.ANSWER_BUDGET_S) stops and says so (an abstain envelope)."""
    check_length(q)
    with budget.answer_budget():
        try:
            return _ask_within_budget(store, q, now, searcher, llm, engine)
        except budget.OverBudget as exc:
            return _over_budget(store, q, now, str(exc))


def _over_budget(store: Store, q: Question, now: datetime | None, message: str) -> Envelope:
    at = q.at or now or store.now()
    revision = visible(store, q.role, q.grants).revision
    return Envelope(behavior=Behavior.abstain, role=q.role, evaluated_at=at if at.tzinfo else
                    at.replace(tzinfo=timezone.utc), verdict=message, catalog_revision=revision,
                    trace=[TraceStep(rule="time budget", detail=f"stopped after {budget.ANSWER_BUDGET_S:g} s of work "
                                                                "(core/settings/budget.py)")])


def _ask_within_budget(store: Store, q: Question, now: datetime | None, searcher: Searcher | None,
                       llm: tuple[str, float] | None, engine: ValueEngine | None = None) -> Envelope:
    try:
        store, q, state = recorded.resolve(store, q)
    except history.NothingRecorded as exc:
        return Envelope(behavior=Behavior.not_found_or_not_authorized, role=q.role, evaluated_at=exc.at,
                        verdict=f"I can't answer as recorded then: {exc}.", catalog_revision="(nothing recorded)",
                        recorded=CatalogState(recorded_at=exc.at, revision="(nothing recorded)", catalog_only=True,
                                              current_revision=visible(store, q.role, q.grants).revision,
                                              detail=str(exc)))
    if engine is not None and hasattr(engine, "bind"):
        # An engine that computes with what the catalog recorded (MetricFlow's kept semantic manifest) follows
        # the state that answers: a recorded-at question's values use the definition recorded then.
        engine = engine.bind(store)
    if state.catalog_only:
        searcher = None
        now = now or state.recorded_at  # what we knew then: freshness too is evaluated at that moment
    try:
        env = _ask(store, q, now, searcher, llm, engine)
        problem = searcher.problem if searcher is not None and not searcher.available else None
    except IndexUnavailable as exc:
        env, problem = _ask(store, q, now, None, llm, engine), str(exc)
    if problem:
        env.index = IndexStatus(status="unavailable", detail=problem)
        env.notes.append(f"Search index unavailable: {problem}.")
    env.recorded = state
    env.granted = sorted(q.grants)
    decision_note.cite(store, env)
    if q.carried and q.entity and env.entity_id == q.entity:
        env.notes.insert(0, q.carried)
    if q.grants:
        _say_widened(store, q, env)
    return env


STEWARD_VIEW = "Steward view (read-only)"


def _say_widened(store: Store, q: Question, env: Envelope) -> None:
    """A view widened by grants (a steward's review queue, core/answer/steward.py) says so when the answer shows
    anything the role's own ACL leaves out: every renderer shows the note, and a replay reproduces it."""
    beyond = sorted(env.evidence_ids() & q.grants - visible(store, q.role).visible_ids(set(q.grants)))
    if beyond:
        # Said in a reader's words ("ACL" was jargon to a stranger), with why a steward's lists and counts can be
        # shorter than another role's: outside the queue the role sees only its own objects.
        what = f"{len(beyond)} objects shown here come" if len(beyond) > 1 else f"{beyond[0]} comes"
        env.notes.append(f"{STEWARD_VIEW}: {what} from your review queue, which role {q.role} may not otherwise "
                         f"see; everything else is only what role {q.role} may see, so lists and counts can be "
                         "shorter than another role's")


def _ask(store: Store, q: Question, now: datetime | None, searcher: Searcher | None,
         llm: tuple[str, float] | None = None, engine: ValueEngine | None = None) -> Envelope:
    """One question in the brief's order, top to bottom. Each step either decides the answer (an envelope:
    a clarification, an intent's answer, not found) or leaves what it read on the run for the next step."""
    run = _authorize(store, q, now, searcher)  # access: the role's view; nothing after reads anything else
    _read(run, llm)  # read: the names written out in full, and the optional checked LLM reading
    env = (intents.before_when(run, _intent_entity)  # intents that read their own dates (compare, review)
           or _decide_when(run)  # when: the reporting date or period, and the evaluation time
           or intents.after_when(run, _intent_entity)  # owner, discover, downstream, document, upcoming
           or _named_document(run)  # a document asked for by its exact title or id is the answer
           or _definition(run))  # entity -> resolve -> expand -> envelope
    values.attach(run.view, env, run.intent, engine)  # numbers, under what was resolved, when asked for
    return env


def _authorize(store: Store, q: Question, now: datetime | None, searcher: Searcher | None) -> _Run:
    """Authorization first: the role's view (widened by a steward's queue grants), and the question read once."""
    roles = [r.name for r in store.roles()]
    if q.role not in roles:
        raise UnknownRole(f"unknown role {q.role!r}; roles in this catalog: {', '.join(roles)}")
    at = q.at or now or store.now()
    if at.tzinfo is None:
        at = at.replace(tzinfo=timezone.utc)
    view = visible(store, q.role, q.grants)
    reading = read(q, at.date(), store.fiscal_year_start_month).cues_outside_names(view)
    run = _Run(q=q, view=view, reading=reading, intent=reading.intent, revision=view.revision, at=at,
               searcher=searcher if searcher and searcher.available else None)
    if run.searcher:
        run.searcher.prepare(reading.search_query)
    # Counted as the sidebar counts (access.seen_text): the role's own objects, then what its review queue adds.
    run.step("authorization", f"role {q.role}: {seen_text(view)}")
    return run


def _read(run: _Run, llm: tuple[str, float] | None) -> None:
    _named_objects(run)
    if llm:
        with budget.not_counted():  # an LLM call has its own timeout (llm_timeout_s)
            _llm_reading(run, llm)


def _named_document(run: _Run) -> Envelope | None:
    if run.bare and not run.q.entity and all(r.document for r in run.refs):
        # A visible document, note or lineage page asked for by its exact title or id: it is the answer.
        from core.answer.intents import documents
        return documents.named(run)
    return None


def _definition(run: _Run) -> Envelope:
    """Which entity (the form's choice, else the ranker's), then what governs it on the date, expanded."""
    if run.searcher:
        # The answer pass's vector search is over the role's approved rows for the question's text: it does not
        # depend on the entity, so it runs on the searcher's threads while this one chooses the entity.
        run.answer_vector = run.searcher.submit(run.searcher.vector, run.reading.search_query, _search_filters(run)[1],
                                                k=2 * SEARCH_K)
    try:
        return _definition_answer(run)
    finally:
        if run.answer_vector is not None:  # answered without the search pass: not started yet, it never is
            run.answer_vector.cancel()


def _definition_answer(run: _Run) -> Envelope:
    view, q = run.view, run.q
    if q.entity and q.entity in view.entities:
        run.step("entity", f"{q.entity} chosen on the form")
        _, toks = run.reading.match_entities(view.entities, view.phrases)
        return _resolve(run, view.entities, view.entities[q.entity], [], toks)
    from core.answer.intents import documents
    block = documents.doc_block(run)  # a dbt doc block whose name is the topic is the answer
    if block is not None:
        return block
    picked = _pick_entity(run, view.entities)
    if isinstance(picked, Envelope):
        if (picked.behavior is Behavior.not_found_or_not_authorized and run.refs
                and all(r.document for r in run.refs)):
            # A document named exactly (by title, name or id) when nothing else is: it is what is asked about.
            from core.answer.intents import documents
            return documents.named(run) or picked
        return picked
    primary, matches, toks = picked
    return _resolve(run, view.entities, primary, matches, toks)


def _decide_when(run: _Run) -> Envelope | None:
    q = run.q
    run.dates_read = dates_read(run.intent.dates)
    freshness = bool(run.intent.aspects & {"freshness_status", "freshness_policy"})
    decided = when.decide(q.day, q.period, run.at, q.at is not None, run.intent.dates, q.date_from_form, freshness,
                          run.intent.moment)
    if isinstance(decided, when.AskBack):
        run.day, run.period = q.day, q.period
        return _clarify(run, decided.question, decided.options, decided.why)
    run.day, run.period, run.at, run.now = decided.day, decided.period, decided.at, decided.now
    run.moment = decided.at if decided.moment else None
    if decided.now:
        run.dates_read = dates_read(run.intent.dates, decided.now, decided.at)
    run.trace.extend(decided.steps)
    return None
