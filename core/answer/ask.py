"""One question, in the brief's order: access -> intent -> when -> entity -> resolve -> expand -> envelope.

Each step appends to the trace what it decided and by which rule.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, timezone

from core.answer import intents, values
from core.answer.ownership import owned_by
from core.catalog import budget, history
from core.catalog.access import Visible, seen_text, visible
from core.catalog.entities import Entity, Match, match_entities
from core.catalog.envelope import (
    NOT_FOUND,
    Behavior,
    CatalogState,
    Clarify,
    ClarifyOption,
    ColumnLineage,
    Conflict,
    Envelope,
    EvidenceRef,
    IndexStatus,
    Lineage,
    SearchHit,
    SubPeriod,
    TraceStep,
)
from core.catalog.evidence import Evidence
from core.catalog.store import Store
from core.catalog.text import STOPWORDS, tokenize, words
from core.compute.engine import ValueEngine
from core.read import when
from core.read.described import asks_stale, names_hold, says_data, subject_tables
from core.read.disagreement import asked_kinds
from core.read.intent import Intent, parse_intent
from core.read.ranker import MAX_OPTIONS, named_objects, rank_question
from core.read.stand_in import stands_in
from core.read.subject import names_no_subject, names_nothing_visible
from core.read.when import dates_read
from core.resolve import lineage as lineage_mod
from core.resolve import upcoming
from core.resolve.chain import chain_head, reads
from core.resolve.columns import trace_column
from core.resolve.disagreement import disagreement
from core.resolve.freshness import source_freshness
from core.resolve.inclusion import inclusion
from core.resolve.versions import (
    backing_model,
    backing_models,
    by_version,
    conflict_candidates,
    conflict_for,
    documents_not_conflicts,
    governing_versions,
    held_for_review,
    in_effect,
    interval_text,
    last_day,
    retrievable,
    segments,
    version_name,
)
from core.retrieve.index import IndexUnavailable
from core.retrieve.search import Searcher, fuse


class UnknownRole(ValueError):
    pass


SEARCH_K = 15
LINEAGE_CUT = ("Lineage continues beyond what your role may see: the chain shown stops there, and the nodes "
              "where it stops are not raw sources.")


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


@dataclass
class _Run:
    q: Question
    view: Visible
    intent: Intent
    revision: str
    at: datetime
    searcher: Searcher | None = None
    trace: list[TraceStep] = field(default_factory=list)
    day: date | None = None
    period: tuple[date, date] | None = None
    notes: list[str] = field(default_factory=list)
    columns: ColumnLineage | None = None
    read_as: str | None = None  # how a misspelt name was read
    reading: object = None  # the LLM's reading, when one was asked for and could be read
    dates_read: list = field(default_factory=list)  # how each date in the text was read
    now: list = field(default_factory=list)  # "now" words read as the evaluation time (the form's date stood)
    refs: list = field(default_factory=list)  # visible objects named exactly (ranker.named_objects)
    bare: bool = False  # the question is only such names (and words like "what does ... say")
    other_versions: list = field(default_factory=list)  # no date given: the versions not in effect today
    answer_vector: object = None  # the answer pass's vector search, started before the entity is chosen

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
                        asked=sorted(self.intent.aspects), verdict=verdict, notes=self.notes,
                        ignored_instructions=ignored, trace=self.trace, catalog_revision=self.revision,
                        columns=self.columns, entity_read_as=self.read_as,
                        today_by_default=bool(self.other_versions), other_versions=self.other_versions,
                        dates_read=self.dates_read,
                        asks_stale="freshness_status" in self.intent.aspects and asks_stale(self.q.text), **kw)


def ask(store: Store, q: Question, now: datetime | None = None, searcher: Searcher | None = None,
        llm: tuple[str, float] | None = None, engine: ValueEngine | None = None) -> Envelope:
    """Answer one question. `searcher` adds the semantic path and the conflict pass; without it the
    answer comes from the catalog alone. A recorded-at time (on the form or in the text) answers from the
    catalog as it stood then (core/catalog/history.py), from DuckDB alone. An index that cannot be read (at opening
    or mid-question) gives the catalog-only answer with a notice, never a Lance traceback. `llm` (model,
    timeout s) adds a checked LLM reading of the question (core/read/reading.py); without it the reading is
    deterministic. `engine` computes metric values when the question asks for numbers (core/answer/values.py);
    without it such an answer says that no warehouse is configured.

    A question longer than budget.MAX_QUESTION_CHARS raises budget.QuestionTooLong before anything reads it;
    an answer that spends its time budget (budget.ANSWER_BUDGET_S) stops and says so (an abstain envelope)."""
    budget.check_question(q.text)
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
                                                                "(core/catalog/budget.py)")])


def _ask_within_budget(store: Store, q: Question, now: datetime | None, searcher: Searcher | None,
                       llm: tuple[str, float] | None, engine: ValueEngine | None = None) -> Envelope:
    try:
        store, q, state = history.resolve(store, q)
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
    if q.grants:
        _say_widened(store, q, env)
    return env


STEWARD_VIEW = "Steward view (read-only)"


def _say_widened(store: Store, q: Question, env: Envelope) -> None:
    """A view widened by grants (a steward's review queue, core/answer/steward.py) says so when the answer shows
    anything the role's own ACL leaves out: every renderer shows the note, and a replay reproduces it."""
    beyond = sorted(env.evidence_ids() & q.grants - visible(store, q.role).visible_ids(set(q.grants)))
    if beyond:
        what = f"{len(beyond)} objects" if len(beyond) > 1 else beyond[0]
        env.notes.append(f"{STEWARD_VIEW}: this answer shows {what} from your review queue that role {q.role}'s "
                         "ACL leaves out; nothing outside the queue is shown")


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
    """Authorization first: the role's view (widened by a steward's queue grants) and the intent's reading."""
    roles = [r.name for r in store.roles()]
    if q.role not in roles:
        raise UnknownRole(f"unknown role {q.role!r}; roles in this catalog: {', '.join(roles)}")
    at = q.at or now or store.now()
    if at.tzinfo is None:
        at = at.replace(tzinfo=timezone.utc)
    intent = parse_intent(q.text, at.date(), store.fiscal_year_start_month)
    view = visible(store, q.role, q.grants)
    run = _Run(q=q, view=view, intent=intent, revision=view.revision, at=at,
               searcher=searcher if searcher and searcher.available else None)
    if run.searcher:
        run.searcher.prepare(q.text)
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
        from core.answer import documents
        return documents.named(run)
    return None


def _definition(run: _Run) -> Envelope:
    """Which entity (the form's choice, else the ranker's), then what governs it on the date, expanded."""
    if run.searcher:
        # The answer pass's vector search is over the role's approved rows for the question's text: it does not
        # depend on the entity, so it runs on the searcher's threads while this one chooses the entity.
        run.answer_vector = run.searcher.submit(run.searcher.vector, run.q.text, _search_filters(run)[1],
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
        _, toks = match_entities(q.text, view.entities, view.phrases, run.intent.excluded_spans)
        return _resolve(run, view.entities, view.entities[q.entity], [], toks)
    from core.answer import documents
    block = documents.doc_block(run)  # a dbt doc block whose name is the topic is the answer
    if block is not None:
        return block
    picked = _pick_entity(run, view.entities)
    if isinstance(picked, Envelope):
        if (picked.behavior is Behavior.not_found_or_not_authorized and run.refs
                and all(r.document for r in run.refs)):
            # A document named exactly (by title, name or id) when nothing else is: it is what is asked about.
            from core.answer import documents
            return documents.named(run) or picked
        return picked
    primary, matches, toks = picked
    return _resolve(run, view.entities, primary, matches, toks)


# Words that only ask for what is named ("what does <title> say?", "show me <id>").
BARE_WORDS = set(words("say says said show open read quote summarize summarise tell display find give get see view "
                       "look lookup pull fetch content contents text whats please me"))


def _named_objects(run: _Run) -> None:
    """Visible objects named exactly, by id or full title (core/read/ranker.py): dates inside such a name are part
    of the name, not a reporting date ("Capacity plan 2026", "...load-2026-11-29"); an id of one governing
    version asks for that version; and a question that is only such names asks for those objects, whatever
    intent the words inside the names suggest."""
    refs = named_objects(run.q.text, run.view)
    if not refs:
        return
    intent = run.intent

    def inside(a: int, b: int) -> bool:
        return any(r.start <= a and b <= r.end for r in refs)
    named_dates = [d for d in intent.dates if inside(*d.span)]
    if named_dates:
        spans = {d.span for d in named_dates}
        intent.dates = [d for d in intent.dates if d.span not in spans]
        intent.excluded_spans = [sp for sp in intent.excluded_spans if sp not in spans]
    for r in refs:
        ev = r.evidence[0]
        if (not r.document and r.by == "id" and len(r.evidence) == 1 and ev.governs and ev.version
                and not any(r.start <= pos <= r.end for _, pos in intent.versions)):
            intent.versions.append((ev.version, r.end))
    # A metric's or model's title is one of its names, which the ranker reads anyway: said only when it matters.
    said = run.refs = [r for r in refs if r.document or r.by == "id"]
    if not said and not named_dates:
        return
    run.step("named object", "named exactly in the question: " + ", ".join(
        f"{r.evidence[0].evidence_id if len(r.evidence) == 1 else r.entity_id} (by {r.by})" for r in said or refs)
        + (f"; {len(named_dates)} date(s) inside a name are part of it, not a reporting date" if named_dates else ""))
    if not said:
        return
    dates = [d.span for d in intent.dates]
    rest = [t for t in tokenize(run.q.text) if not any(r.start <= t.start and t.end <= r.end for r in said)
            and not any(a <= t.start < b for a, b in dates)]
    from core.answer.documents import DOC_WORDS, TOPIC_START
    # "what does <title> say about claims?": what follows "about" is what to quote, not another question.
    cut = next((k for k, t in enumerate(rest) if t.norm in TOPIC_START and t.start > said[0].end), len(rest))
    run.bare = all(t.norm in STOPWORDS or t.norm in BARE_WORDS or t.norm in DOC_WORDS for t in rest[:cut])
    if run.bare and intent.kind not in (None, "document"):
        run.step("named object", f"the question is only the name; not read as a {intent.kind} question")
        intent.kind = None


def _decide_when(run: _Run) -> Envelope | None:
    q = run.q
    run.dates_read = dates_read(run.intent.dates)
    freshness = bool(run.intent.aspects & {"freshness_status", "freshness_policy"})
    decided = when.decide(q.day, q.period, run.at, q.at is not None, run.intent.dates, q.date_from_form, freshness)
    if isinstance(decided, when.AskBack):
        run.day, run.period = q.day, q.period
        return _clarify(run, decided.question, decided.options, decided.why)
    run.day, run.period, run.at, run.now = decided.day, decided.period, decided.at, decided.now
    if decided.now:
        run.dates_read = dates_read(run.intent.dates, decided.now, decided.at)
    run.trace.extend(decided.steps)
    return None


def _now_note(run: _Run, primary: Entity, versions: list[Evidence], chosen: Evidence) -> None:
    """"is that the rule now?" with a reporting date on the form: the answer stays the form's date's, and this
    says which version is in effect at the evaluation time, the same one or another."""
    if not run.now or not run.day or "freshness_status" in run.intent.aspects:
        return
    today = run.at.date()
    now = in_effect(versions, today)
    said = f"Now (the evaluation date, {today}, which {run.now[0].text!r} names):"
    if now == [chosen]:
        text = f"{said} the same version, {version_name(chosen)}, still applies."
    elif len(now) == 1:
        text = (f"{said} {version_name(now[0])} applies, in effect {interval_text(now[0])}; not "
                f"{version_name(chosen)}, which applies on the reporting date {run.day}.")
    elif not now:
        text = f"{said} no approved version of {primary.label} is in effect."
    else:
        text = f"{said} {len(now)} approved versions of {primary.label} overlap; a governance reviewer must decide."
    run.notes.append(text)
    run.step("evaluation time", f"version in effect on {today}: {', '.join(v.evidence_id for v in now) or 'none'}")


def _clarify(run: _Run, question: str, options: list[ClarifyOption], why: str, **kw) -> Envelope:
    if run.intent.overrides:  # a request to step outside policy is refused before anything is asked back
        run.step("refuse", "the request asks to step outside policy: " + ", ".join(run.intent.overrides))
        return run.envelope(Behavior.refuse, _refusal(run), **kw)
    run.step("clarify", why)
    return run.envelope(Behavior.clarify, question, clarify=Clarify(question=question, options=options), **kw)


def _pick_entity(run: _Run, entities: dict[str, Entity]):
    """The ranker (core/read/ranker.py) picks among the role's visible entities; this turns its choice
    into the next step, a clarification, or not-found."""
    if not run.intent.overrides and names_nothing_visible(run.q.text, run.view, run.intent.excluded_spans):
        # Said the same for a hidden and a made-up subject: the phrase itself is not repeated. A request to step
        # outside policy is left to the ranker's path, which refuses it.
        run.step("entity", "the question's subject holds a word no visible object uses; nothing stands in for it")
        return run.envelope(Behavior.not_found_or_not_authorized, NOT_FOUND)
    choice = rank_question(run.q.text, run.intent, run.view, run.searcher, run.q.role)
    if run.reading is not None:
        choice = _settle_with_reading(run, choice)
    if choice.decision == "answer" and choice.rule.startswith("semantic match") and stands_in(
            run.q.text, run.view, choice.entity_id, run.intent.excluded_spans):
        choice.decision, choice.rule = "none", f"{choice.entity_id} only sounds like it: {choice.rule}"
    if choice.decision == "clarify":
        choice = _freshness_chain(run, choice)
    if choice.decision in ("clarify", "none"):  # a table named by what it holds is never "not found"
        choice = _freshness_tables(run, choice)
    if choice.decision == "clarify":
        options = [ClarifyOption(label=f"{entities[i].label} ({i})", entity_id=i) for i in choice.options]
        question = ("Your question matches several things. Which one do you mean?" if choice.note is None
                    and "spelling" not in choice.rule and "close to" not in choice.rule
                    else "Your question is close to several things. Which one do you mean?")
        if len(options) == 1:  # "the refunds metric" when the only "refunds" is a source
            question = f"Did you mean {entities[choice.options[0]].label} ({entities[choice.options[0]].role})?"
        return _clarify(run, question, options, choice.rule)
    if choice.decision == "none":
        if run.intent.overrides:
            run.step("refuse", "the request asks to step outside policy: " + ", ".join(run.intent.overrides))
            return run.envelope(Behavior.refuse, _refusal(run))
        run.step("entity", choice.rule)
        restated = values.restated_metrics(run.view, run.intent)  # "the v2 change": a version, but whose?
        if restated:
            return _clarify(run, f"Which metric's {run.intent.versions[0][0].join(('v', ''))} change do you mean?",
                            [ClarifyOption(label=f"{label} ({i})", entity_id=i) for i, label in restated],
                            "a restatement names a version but no metric")
        from core.answer import documents
        return documents.by_title(run) or _no_subject(run) or run.envelope(Behavior.not_found_or_not_authorized,
                                                                           NOT_FOUND)
    run.step("entity", choice.rule)
    if choice.note:
        run.notes.append(choice.note[0].upper() + choice.note[1:] + ".")
        run.read_as = choice.note
    return entities[choice.entity_id], choice.matches, choice.toks


NO_SUBJECT = "Which metric, model or source do you mean? Your question doesn't name one."


def _no_subject(run: _Run) -> Envelope | None:
    """"is it current?", "who owns it?": a question naming no subject at all (core/read/subject.py) is asked back,
    offering the role's own visible metrics (else its other topics), never answered as not found. A role that sees
    nothing to offer gets not found, as for any question."""
    if not names_no_subject(run.q.text, run.intent.excluded_spans):
        return None
    ents = run.view.entities
    topics = sorted((e for e in ents.values() if e.is_topic), key=lambda e: (e.role != "metric", e.label.lower()))
    if not topics:
        return None
    options = [ClarifyOption(label=f"{e.label} ({e.entity_id})", entity_id=e.entity_id) for e in topics[:MAX_OPTIONS]]
    return _clarify(run, NO_SUBJECT, options, "the question names no subject: nothing to look up")


def _freshness_chain(run: _Run, choice):
    """"Is the sessions data fresh?" matching a model, its staging model and their raw source: freshness belongs to
    the sources a chain reads, so the chain's freshness is the answer (through its most downstream object, whose
    lineage reaches every source), not a question back. Unrelated matches are still asked back."""
    if "freshness_status" not in run.intent.aspects or run.intent.kind is not None:
        return choice
    head = chain_head(run.view, choice.options, run.day or run.at.date())
    if head is None:
        return choice
    ents = run.view.entities
    others = [ents[i].label for i in choice.options if i != head]
    run.notes.append(f"Your question matches {', '.join(others)} and {ents[head].label}, one lineage chain: "
                     f"answered with the freshness of the sources {ents[head].label} reads, which the others "
                     "are part of.")
    run.step("freshness chain", f"{', '.join(choice.options)} are one lineage chain; answered through {head}")
    choice.decision, choice.entity_id = "answer", head
    choice.rule = f"{head}: the candidates are one lineage chain and the question asks for freshness"
    return choice


def _freshness_tables(run: _Run, choice):
    """"Is the cost of goods data up to date?" matching two metrics and a model by one word ("cost"): freshness is a
    source's (its loads), so the visible sources and models whose names, descriptions or columns hold the question's
    subject (core/read/described.py subject_tables) are what it may mean. One such source answers it; otherwise they
    are offered beside the other matches, sources first when the question says "data" or "table". Only the role's
    view is read: a source the role cannot see is never offered, never hinted at, and moves nothing."""
    if "freshness_status" not in run.intent.aspects or run.intent.kind is not None:
        return choice
    found = subject_tables(run.q.text, run.view, run.intent.excluded_spans)
    tables = found.sources + found.models
    if not tables:
        return choice
    ents = run.view.entities
    if len(found.sources) == 1 and not _rival_tables(run, found, choice.options):
        source = found.sources[0]
        others = [ents[i].label for i in dict.fromkeys(choice.options + found.models) if i != source]
        said = " ".join(dict.fromkeys(run.q.text[t.start:t.end] for t in tokenize(run.q.text) if t.norm in found.said))
        run.notes.append(f"Answered with {ents[source].label}, the one source you can see whose name or description "
                         f"says what you asked about (“{said or ' '.join(found.said)}”): freshness is a source's loads."
                         + (f" Also matching: {', '.join(others)}." if others else ""))
        run.step("freshness source", f"{source} is the one visible source holding {', '.join(found.said)}; "
                 f"the ranker's options were {', '.join(choice.options)}")
        choice.decision, choice.entity_id = "answer", source
        choice.rule = f"{source}: the one visible source whose words hold the subject of a freshness question"
        return choice
    linked = run.view.linked_entities(tables[0]) if len(tables) == 1 else set()
    if len(tables) == 1 and all(o in linked for o in choice.options if o != tables[0]):
        # "is the admissions data fresh?": the one table holding it, whatever else matched is built on it
        run.step("freshness table", f"{tables[0]} is the one visible table holding {', '.join(found.said)}")
        choice.decision, choice.entity_id = "answer", tables[0]
        choice.rule = f"{tables[0]}: the one visible table whose words hold the subject of a freshness question"
        return choice
    rest = [o for o in choice.options if o not in tables]
    if says_data(run.q.text):
        options = tables + rest
    else:  # the ranker's matches first, with room kept for the tables
        options = rest[:max(MAX_OPTIONS - len(tables), 0)] + tables
    choice.options = options[:MAX_OPTIONS]
    choice.decision = "clarify"  # from "none" too: tables the role may see hold what was asked
    choice.rule += f"; freshness asked: visible sources and models holding {', '.join(found.said)} offered too"
    return choice


def _rival_tables(run: _Run, found, options: list[str]) -> list[str]:
    """Models named by the question's subject that do not read its one source ("the clicks data": an ad platform's
    raw_ads.clicks, and fct_clicks built from site visits): the data asked about may be either, so it is asked back.
    A metric named so is answered through its tables; a model that reads the source is part of the same data."""
    source, day = found.sources[0], run.day or run.at.date()
    return [m for m in dict.fromkeys(options + found.models) if run.view.entities[m].role == "model"
            and names_hold(run.view, m, found.said) and not reads(run.view, m, source, day)]


def _intent_entity(run: _Run):
    """The entity an intent is about: the form's choice, else the ordinary pick (unchanged)."""
    if run.q.entity and run.q.entity in run.view.entities:
        _, toks = match_entities(run.q.text, run.view.entities, run.view.phrases, run.intent.excluded_spans)
        return run.view.entities[run.q.entity], [], toks
    return _pick_entity(run, run.view.entities)


def _llm_reading(run: _Run, llm: tuple[str, float]) -> None:
    """Ask the model for a reading; use only the date part here (the entity part is settled after the
    ranker). The model sees the question and visible entity names only."""
    from core.read.llm import ModelFailure
    from core.read.reading import check, read_question
    ents = run.view.entities
    names = [(e.entity_id, e.label, e.role) for e in ents.values() if e.is_topic]
    try:
        run.reading = read_question(run.q.text, names, llm[0], llm[1])
    except ModelFailure as exc:
        run.step("llm reading", f"not used ({str(exc)[:120]}); the deterministic reading stands")
        return
    use, reasons = check(run.reading, set(), [], run.intent.dates)
    if "date" in use and use["date"] not in run.intent.dates:
        chosen = use["date"]
        run.intent.dates = [chosen if (m.kind == "ambiguous" and m.span == chosen.span) else m for m in run.intent.dates]
        run.step("llm reading", f"date {chosen.text} read as {chosen.start}, one of the parser's readings")
    date_reasons = [r for r in reasons if "date" in r]
    if date_reasons:
        run.step("llm reading", "; ".join(date_reasons) + "; the parser's dates stand")


def _settle_with_reading(run: _Run, choice):
    """The LLM may pick among the ranker's clarify options or confirm its winner; nothing else."""
    from core.read.reading import check
    allowed = choice.options if choice.decision == "clarify" else ([choice.entity_id] if choice.entity_id else [])
    use, reasons = check(run.reading, set(run.view.entities), allowed, [])
    picked = use.get("entity")
    if picked and choice.decision == "clarify":
        run.step("llm reading", f"chose {picked} among the ranker's options")
        choice.decision, choice.entity_id, choice.rule = "answer", picked, f"{picked} chosen by the checked LLM reading"
    elif picked:
        run.step("llm reading", f"agrees: {picked}")
    ent_reasons = [r for r in reasons if "entity" in r]
    if ent_reasons:
        run.step("llm reading", "; ".join(dict.fromkeys(ent_reasons)))
    return choice


def _refusal(run: _Run) -> str:
    return ("I can't do that: answers follow the catalog's permissions and authority rules, and instructions "
            "found in documents or requests to reveal restricted material are not followed.")


def _version_requests(run: _Run, matches: list[Match], toks, primary: Entity) -> dict[str, str]:
    """Explicit versions in the text, each attached to the entity named just before it."""
    out: dict[str, str] = {}
    for label, pos in run.intent.versions:
        before = [m for m in matches if m.end - 1 < len(toks) and toks[m.end - 1].end <= pos]
        # Two entities sharing the name just before "version 2" (a metric and its lineage page): the
        # one the question is about takes it, then a governed topic entity.
        ents = run.view.entities
        target = max(before, key=lambda m: (toks[m.end - 1].end, m.entity_id == primary.entity_id,
                                            ents[m.entity_id].is_topic and ents[m.entity_id].governed)
                     ).entity_id if before else primary.entity_id
        out.setdefault(target, label)
    return out


def _resolve(run: _Run, entities: dict[str, Entity], primary: Entity, matches, toks) -> Envelope:
    check_day = run.day or (run.period[0] if run.period else run.at.date())
    objs = [e for e in run.view.entity_objects(primary.entity_id) if retrievable(e, check_day)]
    if not objs:
        run.step("entity", f"{primary.entity_id} has no object that may still be retrieved (retired or expired)")
        return run.envelope(Behavior.not_found_or_not_authorized, NOT_FOUND)
    versions = governing_versions(objs, primary.role)
    requested = _version_requests(run, matches, toks, primary)
    named_docs = _named_documents(run, entities, matches, primary)
    kw = dict(entity_id=primary.entity_id, entity_label=primary.label)

    def conflicts(governing: list[Evidence], extra: list[Evidence] = ()) -> list[Conflict]:
        pool = {e.evidence_id: e for e in conflict_candidates(objs, run.day, run.period)}
        pool.update({e.evidence_id: e for e in named_docs})
        pool.update({e.evidence_id: e for e in extra})
        for g in governing:
            pool.pop(g.evidence_id, None)
        for i in [i for i, e in pool.items() if documents_not_conflicts(e)]:
            pool.pop(i)
        named = {e.evidence_id for e in named_docs} | {e.evidence_id for e in extra}
        return [_conflict(e, governing, e.evidence_id in named) for e in pool.values()]

    def _conflict(e: Evidence, governing: list[Evidence], named: bool) -> Conflict:
        # A draft the question names that starts after the date is a change to come, as the upcoming rule says of
        # every later draft: not one that disagrees on the date ("do drafts contradict X?" asked for mid-2025).
        after = upcoming.last_day(run, run.day)
        if after is not None and named and upcoming.starts_after(e, after):
            c = upcoming.not_yet(e, after, governing)
            c.named_in_question = True
            return c
        return conflict_for(e, run.day, governing, named)

    if not versions:
        run.step("authority", f"{primary.entity_id} has no authoritative evidence visible to you; only "
                 f"{len(objs)} non-governing object(s)")
        return _finish(run, Behavior.abstain,
                       f"There is no approved definition of {primary.label}: only non-authoritative material "
                       "exists, and none of it may govern an answer.", conflicts=conflicts([]), **kw)

    wanted = requested.get(primary.entity_id)
    pinned = by_version(versions, wanted) if wanted else None
    if run.period:
        chosen = _choose_for_period(run, primary, versions, conflicts, kw)
    elif run.day is None and not pinned and (held := held_for_review(primary.label, versions, run.at.date(), run.view)):
        run.day = run.at.date()  # the review-queue rule (core/resolve/versions.py): answered as of today
        run.step("review queue", held.why)
        return _finish(run, Behavior.abstain, held.verdict, conflicts=conflicts([]) + [held.conflict], **kw)
    elif run.day is None:
        chosen = _choose_without_date(run, primary, versions, pinned, kw, wanted)
    else:
        chosen = _choose_on_day(run, primary, versions, conflicts, kw)
    if isinstance(chosen, Envelope):
        return chosen
    _now_note(run, primary, versions, chosen)
    # Nothing below returns early: the searches start now and run while the version is expanded.
    searching = _start_search(run, primary) if run.searcher else None
    extra: list[Evidence] = []
    if wanted and (pinned is None or pinned.evidence_id != chosen.evidence_id):
        for_when = run.day or (f"{run.period[0]} to {run.period[1] - timedelta(days=1)}" if run.period else None)
        if pinned:
            extra.append(pinned)
            run.notes.append(f"You asked for {version_name(pinned)}, but it is in effect {interval_text(pinned)}; "
                             f"for {for_when} {version_name(chosen)} governs, so the answer uses it.")
        else:
            run.notes.append(f"{primary.label} has no version {wanted}; the answer uses {version_name(chosen)}.")
        run.step("version request", f"requested version {wanted} is not the one in effect; answered with "
                 f"{chosen.evidence_id}")
    day = run.day or (run.period[0] if run.period else None)
    if day is None and chosen.valid_on(run.at.date()):
        # No date: the version is expanded as of the evaluation time, not its first day, so its backing
        # model, lineage and freshness are today's.
        day = run.at.date()
        run.notes.append(f"No reporting date was given, so the answer is expanded as of today ({day}, the "
                         "evaluation time): the backing model, lineage and freshness are those in effect then.")
        run.step("reporting date", f"none given; {chosen.evidence_id} is in effect on {day}, the evaluation "
                 "date, so it is expanded as of then")
    selected, lineage, fresh, missing = _expand(run, chosen, primary, requested, extra, day)
    found = conflicts([chosen], extra)
    found += upcoming.later_conflicts(run, objs, versions, chosen, found, day)
    supporting: list[SearchHit] = []
    if searching:
        more, supporting = _search_pass(run, primary, selected, found, searching)
        found += more
    verdict = _verdict(run, primary, chosen, versions, selected, fresh, found)
    readers = _what_reads_it(run, primary, chosen, day, selected)
    if readers is not None:
        kw["downstream"], said = readers
        verdict = f"{verdict} {said}"
    if run.intent.includes:  # "does CAC include agency fees?": yes, no or not stated, from the definition's fields
        inc = inclusion(chosen, run.intent.includes)
        if inc:
            kw["inclusion"] = inc
            run.step("inclusion", f"{inc.term!r}: {inc.verdict}" + (f" ({inc.where})" if inc.where else ""))
    if "disagreement" in run.intent.aspects:  # "are there drafts that contradict how X is defined?": yes or no
        kw["disagreement"] = _disagreement(run, found, chosen)
    behavior = Behavior.answer
    if missing:
        behavior = Behavior.abstain
        verdict = (verdict if primary.role == "source"
                   else f"{verdict} But {missing}, so that part can't be answered.")
    return _finish(run, behavior, verdict, selected=selected, lineage=lineage, freshness=fresh,
                   conflicts=found, supporting=supporting, **kw)


def _disagreement(run: _Run, found: list[Conflict], chosen: Evidence):
    """Which of the answer's conflicts disagree, of the kinds the question names (core/resolve/disagreement.py)."""
    asked = asked_kinds(run.q.text)
    evidence = {e.evidence_id: e for e in run.view.by_ids(sorted({c.evidence_id for c in found}))}
    dis = disagreement(found, evidence, asked, chosen.evidence_id)
    run.step("disagreement", f"asked whether {' or '.join(asked) or 'anything'} disagrees with {chosen.evidence_id}: "
             f"{dis.verdict}" + (f" ({', '.join(dis.evidence_ids)})" if dis.evidence_ids else "")
             + (f"; other kinds that disagree: {', '.join(dis.others)}" if dis.others else ""))
    return dis


# Approved evidence, in SQL over index rows: the answer pass's part of the search.
_APPROVED = "authority = 'authoritative' AND lifecycle NOT IN ('draft', 'superseded', 'deprecated')"


def _search_filters(run: _Run) -> tuple[str, str]:
    """The search pass's filters: the role's current body rows, and the approved ones among them."""
    base = f"{run.searcher.view_filter(run.view)} AND part = 'body' AND lifecycle <> 'retired'"
    return base, f"{base} AND {_APPROVED}"


def _start_search(run: _Run, primary: Entity):
    """Start the search pass's searches on the searcher's threads (Lance and the encoder release the GIL, so they
    run while this thread expands the version); _search_pass collects them."""
    base, approved = _search_filters(run)
    names = " ".join(" ".join(n) for n in primary.names[:3])
    texts = run.searcher.submit(lambda: [
        run.searcher.text(run.q.text, approved, 2 * SEARCH_K),  # as hybrid() takes each half: twice what it keeps
        run.searcher.text(f"{run.q.text} {names}", f"{base} AND NOT ({_APPROVED})", SEARCH_K)])
    vector = run.answer_vector or run.searcher.submit(run.searcher.vector, run.q.text, approved, k=2 * SEARCH_K)
    run.answer_vector = None  # collected by _search_pass
    return texts, vector


def _search_pass(run: _Run, primary: Entity, selected: list[EvidenceRef], conflicts: list[Conflict], searching):
    """Two searches inside the visible set, each pre-filtered to what it may return.

    Answer pass: hybrid search over approved evidence, listed as supporting. Conflict pass: full-text
    search over drafts, superseded pages and notes for the question and the entity's names; a hit
    counts only when it names the entity and speaks to the same time. Neither changes what governs.
    """
    texts, vec = searching
    answer_text, conflict_hits = texts.result()
    answer_hits = fuse(vec.result(), answer_text, SEARCH_K)
    known = {s.evidence_id for s in selected} | {c.evidence_id for c in conflicts}
    # Re-read from the live catalog: current text and current permissions, whatever the index holds. Every
    # conflict hit, and approved hits in rank order only until three supporting ones are found: reading all ~30
    # hits was a fifth of an answer's catalog reads at 100,000 objects.
    others = [h.evidence_id for h in answer_hits if h.evidence_id not in known]
    tried = {h.evidence_id for h in conflict_hits if h.evidence_id not in known} | set(others[:6])
    live = {e.evidence_id: e for e in run.view.by_ids(sorted(tried))}
    check_day = run.day or (run.period[0] if run.period else run.at.date())
    more, supporting, seen = [], [], set(known)
    for h in conflict_hits:
        ev = live.get(h.evidence_id)
        if ev is None or ev.evidence_id in seen or ev.governs or not retrievable(ev, check_day):
            continue
        seen.add(ev.evidence_id)
        owner = run.view.entities.get(ev.entity_id)
        if ev.entity_id != primary.entity_id and not (owner and owner.role == "document"):
            continue  # a draft of another metric is that metric's business
        words = [t.norm for t in tokenize(f"{ev.title} {ev.text}")]
        mentions = any(tuple(words[i:i + len(n)]) == n for n in primary.names for i in range(len(words)))
        # A page that says just "revenue" is about net revenue only if no other visible metric could be meant.
        mentions = mentions or (primary.head in words and len(run.view.heads.get(primary.head, ())) == 1)
        if mentions and ev.overlaps(*_window(run)):
            c = conflict_for(ev, run.day, [], False)
            c.why = "found by search: " + c.why.replace("the answer follows no authoritative evidence",
                                                       "it does not govern")
            more.append(c)
    for h in answer_hits:
        if len(supporting) >= 3:
            break
        if h.evidence_id in others and h.evidence_id not in tried:
            batch = [i for i in others if i not in tried][:6]
            tried.update(batch)
            live.update({e.evidence_id: e for e in run.view.by_ids(batch)})
        ev = live.get(h.evidence_id)
        if (ev is None or ev.evidence_id in seen or not ev.governs or ev.entity_id == primary.entity_id
                or not retrievable(ev, check_day)):
            continue
        seen.add(ev.evidence_id)
        supporting.append(SearchHit(evidence_id=ev.evidence_id, title=ev.title, kind=ev.kind.value,
                                    authority=ev.authority.value, lifecycle=ev.lifecycle.value,
                                    score=round(h.score, 4)))
    if more or supporting:
        run.step("search", "in your visible set: "
                 + ", ".join([f"{c.evidence_id} (conflict)" for c in more] + [s.evidence_id for s in supporting]))
    return more, supporting


def _window(run: _Run):
    if run.period:
        return run.period
    if run.day:
        return run.day, run.day + timedelta(days=1)
    return None, None


def _choose_without_date(run: _Run, primary: Entity, versions: list[Evidence], pinned, kw, wanted=None):
    if pinned:
        run.step("version", f"{version_name(pinned)} requested explicitly; no reporting date given")
        return pinned
    if len(versions) == 1:
        run.step("version", f"only one authoritative version exists: {versions[0].evidence_id}")
        return versions[0]
    options = [_version_option(v) for v in versions]
    today = run.at.date()
    now = in_effect(versions, today)
    if len(now) == 1 and not wanted:
        # No date, but the question does not need one to be right: the definition in effect today (the
        # evaluation date) answers, and the other versions are named, a click away. Asking back is kept for
        # what a date would really decide: two versions open today, none in effect, a version that is not there.
        chosen, run.day = now[0], today
        run.other_versions = [o for o, v in zip(options, versions) if v is not chosen]
        run.step("reporting date", f"none given: answered for the evaluation date {today}, when {chosen.evidence_id} "
                 f"is in effect; other versions: {', '.join(o.evidence_id for o in run.other_versions)}")
        return chosen
    # "net revenue v3" when there is no v3: say so before asking which of the real ones is meant.
    missing = f"{primary.label} has no approved version {wanted} that you can see. " if wanted else ""
    # Two approved versions open at once cannot be told apart by a date: say so rather than hide it.
    overlap = next(((a, b) for i, a in enumerate(versions) for b in versions[i + 1:]
                    if (a.valid_from or date.min) < (b.valid_to or date.max)
                    and (b.valid_from or date.min) < (a.valid_to or date.max)), None)
    clash = ""
    if overlap:
        start = max(overlap[0].valid_from or date.min, overlap[1].valid_from or date.min)
        clash = (f" {version_name(overlap[0])} and {version_name(overlap[1])} overlap"
                 + (f" from {start}" if start != date.min else "")
                 + ": on those dates a governance reviewer must decide which applies.")
    return _clarify(run, f"{missing}{primary.label} has {len(versions)} versions. For which reporting date?{clash}",
                    options, "no reporting date and several authoritative versions exist", **kw)


def _version_option(v: Evidence) -> ClarifyOption:
    # a dbt version may carry no interval at all: it is then picked by its version
    return ClarifyOption(label=f"{version_name(v)}: {interval_text(v)}",
                         date=v.valid_from or (v.valid_to - timedelta(days=1) if v.valid_to else None),
                         version=v.version, evidence_id=v.evidence_id)


def _choose_on_day(run: _Run, primary: Entity, versions: list[Evidence], conflicts, kw):
    valid = in_effect(versions, run.day)
    run.step("effective time", f"valid_from <= {run.day} < valid_to: "
             + (", ".join(v.evidence_id for v in valid) or "no version"))
    if len(valid) > 1:
        return _finish(run, Behavior.human_review,
                       f"Two authoritative definitions of {primary.label} overlap on {run.day}; a governance "
                       "reviewer must decide which applies.",
                       selected=[EvidenceRef.of(v, "overlap") for v in valid], conflicts=conflicts(valid), **kw)
    if not valid:
        return _finish(run, Behavior.abstain,
                       f"No authoritative version of {primary.label} is in effect on {run.day}. Versions: "
                       + "; ".join(f"{version_name(v)} {interval_text(v)}" for v in versions),
                       conflicts=conflicts([]), **kw)
    return valid[0]


def _choose_for_period(run: _Run, primary: Entity, versions: list[Evidence], conflicts, kw):
    start, end = run.period
    pieces = segments(versions, start, end)
    run.step("effective time", f"period {start}..{end - timedelta(days=1)} cut at version boundaries into "
             f"{len(pieces)} part(s)")
    if any(len(vs) > 1 for _, _, vs in pieces):
        both = {v.evidence_id: v for _, _, vs in pieces if len(vs) > 1 for v in vs}
        return _finish(run, Behavior.human_review,
                       f"Two authoritative definitions of {primary.label} overlap in this period; a governance "
                       "reviewer must decide.", selected=[EvidenceRef.of(v, "overlap") for v in both.values()],
                       conflicts=conflicts(list(both.values())), **kw)
    if len(pieces) == 1 and pieces[0][2]:
        run.step("version", f"{pieces[0][2][0].evidence_id} is in effect for the whole period")
        return pieces[0][2][0]
    if not any(vs for _, _, vs in pieces):
        run.step("abstain", "no authoritative version is in effect on any day of the period")
        return _finish(run, Behavior.abstain,
                       f"No authoritative version of {primary.label} is in effect from {start} to "
                       f"{end - timedelta(days=1)}. Versions: "
                       + "; ".join(f"{version_name(v)} {interval_text(v)}" for v in versions) + ".",
                       conflicts=conflicts([]) + [conflict_for(v, None, [], False) for v in versions], **kw)
    splits = []
    for a, b, vs in pieces:
        last = b - timedelta(days=1)
        if vs:
            v = vs[0]
            model, _ = backing_model(v, a, run.view)
            sel = [EvidenceRef.of(v, "definition")] + ([EvidenceRef.of(model, "model")] if model else [])
            splits.append(SubPeriod(start=a, end=b, behavior=Behavior.answer, selected=sel,
                                    verdict=f"{a} to {last}: {version_name(v)} ({interval_text(v)})"))
        else:
            splits.append(SubPeriod(start=a, end=b, behavior=Behavior.abstain,
                                    verdict=f"{a} to {last}: no authoritative version in effect"))
    run.step("split", "the period crosses a version boundary; one resolution per sub-period")
    governing = [v for _, _, vs in pieces for v in vs]
    return _finish(run, Behavior.split,
                   f"The period crosses a definition change of {primary.label}: "
                   + "; ".join(s.verdict for s in splits) + ".",
                   splits=splits, conflicts=conflicts(governing), **kw)


def _expand(run: _Run, chosen: Evidence, primary: Entity, requested: dict[str, str],
            extra: list[Evidence], day: date | None):
    """Backing model, lineage and freshness for the chosen version."""
    day = day or chosen.valid_from
    aspects = run.intent.aspects
    selected = [EvidenceRef.of(chosen, "definition")]
    starts = [chosen.evidence_id]
    if primary.role == "metric":
        model, why = backing_model(chosen, day, run.view)
        run.step("backing model", f"{model.evidence_id}: {why}" if model else why)
        if model:
            selected.append(EvidenceRef.of(model, "model"))
            starts.append(model.evidence_id)
            # A derived or ratio metric reads every input metric's model: list each, lineage from each.
            for other in backing_models(chosen, day, run.view):
                if other.evidence_id not in starts:
                    selected.append(EvidenceRef.of(other, "model"))
                    starts.append(other.evidence_id)
            if run.period:
                # One definition for the whole period, but the model behind it may change inside it: the numbers
                # then come from both, and the answer says when.
                later, _ = backing_model(chosen, run.period[1] - timedelta(days=1), run.view)
                if later and later.evidence_id not in starts:
                    selected.append(EvidenceRef.of(later, "model"))
                    starts.append(later.evidence_id)
                    run.notes.append(f"The model behind {primary.label} changes inside this period: "
                                     f"{model.title} until {last_day(model) if model.valid_to else 'its end'}, "
                                     f"then {later.title} from {later.valid_from}.")
                    run.step("backing model", f"{later.evidence_id} backs the end of the period")
            label = requested.get(model.entity_id)
            if label and (model.version or "").lstrip("vV") != label.lstrip("vV"):
                asked_for = by_version(governing_versions(run.view.entity_objects(model.entity_id), "model"), label)
                if asked_for:
                    extra.append(asked_for)
                run.notes.append(f"You asked about model version {label}, but the version backing "
                                 f"{version_name(chosen)} on {day} is {version_name(model)}"
                                 + (f" ({version_name(asked_for)} is in effect {interval_text(asked_for)})."
                                    if asked_for else "."))
                run.step("version request", f"model version {label} requested; {model.evidence_id} applies")
    missing = ""
    lineage = Lineage()
    if primary.role in ("metric", "model", "source"):
        lineage = lineage_mod.upstream(run.view, starts, day)
        used = list(dict.fromkeys(e.evidence_id for e in lineage.edges))
        selected += [EvidenceRef.of(e, "lineage") for e in run.view.by_ids(used) if e.evidence_id in used]
        run.step("lineage", f"{len(lineage.edges)} upstream edge(s) from {', '.join(starts)} via "
                 f"{', '.join(used) or 'no lineage evidence'}; raw sources: {', '.join(lineage.raw_sources) or 'none'}"
                 + (f"; generated in the project: {', '.join(lineage.generated)}" if lineage.generated else ""))
        if lineage.continues_beyond_view:
            run.notes.append(LINEAGE_CUT)
        if "lineage" in aspects and primary.role != "source" and not lineage.edges and not lineage.continues_beyond_view:
            missing = "no lineage evidence is recorded for it"
        if run.intent.column:
            run.columns = trace_column(run.view, lineage, starts, run.intent.column, day)
            run.step("column lineage", run.columns.detail)
    sources = [primary.entity_id] if primary.role == "source" else lineage.raw_sources
    fresh = [f for f in (source_freshness(s, run.view.freshness_objects(s), run.at, day or run.at.date())
                         for s in sources) if f]
    if fresh:
        run.step("freshness", "; ".join(f"{f.source}: {f.status}" + (f" ({f.age_hours} h old)" if f.age_hours is not None else "")
                                        for f in fresh) + f" at {run.at.isoformat()}")
    if "freshness_status" in aspects and not any(f.loaded_at for f in fresh):
        missing = missing or (f"no load time is recorded at or before the evaluation time {run.at.isoformat()}, so its "
                              "freshness is unknown (never reported as fresh)")
    return selected, lineage, fresh, missing


def _what_reads_it(run: _Run, primary: Entity, chosen: Evidence, day: date | None, selected: list[EvidenceRef]):
    """The downstream half of a question that asks more ("which raw tables feed it and what uses it?", "who owns it
    and what depends on it?"): what reads the chosen version on the day, over the role's visible lineage and
    formulas (core/answer/downstream.py), beside its own lineage, as the verdict names the owner beside the
    definition. Its evidence joins `selected`; returns (Downstream, its sentence), or None when not asked."""
    if "downstream" not in run.intent.aspects:
        return None
    from core.answer import downstream
    day = day or chosen.valid_from or run.at.date()
    walked = downstream.walk(run, primary, [chosen], day)
    have = {s.evidence_id for s in selected}
    # Lineage read downstream does not govern this answer as its upstream lineage does: it is listed, not "lineage".
    selected += [s.model_copy(update={"role_in_answer": "downstream"}) if s.role_in_answer == "lineage" else s
                 for s in walked.selected if s.evidence_id not in have]
    when = f"on {day}" if run.day or run.period else f"today ({day})"
    return walked.result, downstream.verdict(primary.label, walked.result.items, walked.result.asked, when)


def _verdict(run: _Run, primary: Entity, chosen: Evidence, versions: list[Evidence], selected,
             fresh, conflicts: list[Conflict]) -> str:
    """One sentence: what governs, for when, and why the alternatives don't; who owns it first when asked."""
    text = _what_governs(run, primary, chosen, versions, selected, fresh, conflicts)
    if "owner" in run.intent.aspects:
        text = f"{owned_by(primary.label, chosen)} {text}"
    return text


def _what_governs(run: _Run, primary: Entity, chosen: Evidence, versions: list[Evidence], selected,
                  fresh, conflicts: list[Conflict]) -> str:
    # An unversioned object (most dbt metrics) is its own name, not "metric.x.y of y".
    name = f"{version_name(chosen)} of {primary.label}" if chosen.version else primary.label
    if primary.role == "source" and fresh:
        f = fresh[0]
        age = (f"{f.age_hours} h since the last load" if f.age_hours is not None
               else "no load time recorded at or before then")
        return (f"{primary.label} is {f.status.upper()} at {f.evaluated_at.isoformat()}: {age}; warn after "
                f"{f.warn_after_hours} h, error after {f.error_after_hours} h ({chosen.evidence_id}).")
    if run.day:
        head = f"{name} applies on {run.day}: in effect {interval_text(chosen)}"
    elif run.period:
        head = (f"{name} governs the whole period {run.period[0]} to {run.period[1] - timedelta(days=1)}: "
                f"in effect {interval_text(chosen)}")
    elif len(versions) == 1 and not chosen.version:
        head = f"{primary.label} has one authoritative definition, unversioned: in effect {interval_text(chosen)}"
    elif len(versions) == 1:
        head = f"{primary.label} has one authoritative version, {version_name(chosen)}: in effect {interval_text(chosen)}"
    else:
        head = f"{name}, as asked: in effect {interval_text(chosen)}"
    parts = [head] + [f"{version_name(v)} is in effect {interval_text(v)}"
                      for v in versions if v.evidence_id != chosen.evidence_id][:2]
    for c in conflicts[:3]:
        parts.append(f"{c.title} is {c.label.lower().replace('-', ' ')}")
    text = "; ".join(parts) + "."
    models = [s.title for s in selected if s.role_in_answer == "model"]
    if models:
        text += f" Backed by {', '.join(models)}."
    return text


def _named_documents(run: _Run, entities: dict[str, Entity], matches: list[Match], primary: Entity) -> list[Evidence]:
    """Documents the question names: by title, or by a document word ('the wiki', 'the draft', 'the note')."""
    named_entities = sorted({m.entity_id for m in matches if entities[m.entity_id].role == "document"})
    out = {e.evidence_id: e for ent in named_entities for e in run.view.entity_objects(ent)}
    nouns = run.intent.doc_nouns
    if nouns:
        for e in run.view.documents_about(primary.entity_id):
            words = {t.norm for t in tokenize(f"{e.title} {e.kind.value} {e.lifecycle.value} {e.authority_class or ''}")}
            if nouns & words:
                out.setdefault(e.evidence_id, e)
    if out:
        run.step("conflict evidence", "named in the question: " + ", ".join(out))
    return list(out.values())


def _finish(run: _Run, behavior: Behavior, verdict: str, **kw) -> Envelope:
    if run.intent.overrides:
        run.step("refuse", "the request asks to step outside policy (" + ", ".join(run.intent.overrides)
                 + "); it is not followed, and the governed answer is shown instead")
        verdict = _refusal(run) + " Under the catalog's rules: " + verdict
        behavior = Behavior.refuse
    return run.envelope(behavior, verdict, **kw)
