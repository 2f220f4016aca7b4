"""Which entity the run is about: the form's choice, else the ranker's over the role's visible entities, turned
into an entity or an envelope (a question back, not found, no subject named); a freshness question naming tables
follows them to the source that feeds them; an optional LLM reading may only choose among the ranker's options.
Objects named exactly, by id or full title, are read first."""
from __future__ import annotations

from core.answer import values
from core.catalog.entities import Entity
from core.catalog.envelope import NOT_FOUND, Behavior, ClarifyOption, Envelope
from core.catalog.text import STOPWORDS, words
from core.read.intents.described import names_hold
from core.read.names.candidate import MAX_OPTIONS
from core.resolve.chain import chain_head, reads
from core.resolve.outcome import _clarify, _refusal
from core.resolve.run import Run as _Run

# Words that only ask for what is named ("what does <title> say?", "show me <id>").
BARE_WORDS = set(words("say says said show open read quote summarize summarise tell display find give get see view "
                       "look lookup pull fetch content contents text whats please me"))


def _named_objects(run: _Run) -> None:
    """Visible objects named exactly, by id or full title (core/read/names/ranker.py): dates inside such a name are part
    of the name, not a reporting date ("Capacity plan 2026", "...load-2026-11-29"); an id of one governing
    version asks for that version; and a question that is only such names asks for those objects, whatever
    intent the words inside the names suggest."""
    refs = run.reading.named_objects(run.view)
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
    rest = [t for t in run.reading.tokens if not any(r.start <= t.start and t.end <= r.end for r in said)
            and not any(a <= t.start < b for a, b in dates)]
    from core.answer.intents.documents import DOC_WORDS, TOPIC_START
    # "what does <title> say about claims?": what follows "about" is what to quote, not another question.
    cut = next((k for k, t in enumerate(rest) if t.norm in TOPIC_START and t.start > said[0].end), len(rest))
    run.bare = all(t.norm in STOPWORDS or t.norm in BARE_WORDS or t.norm in DOC_WORDS for t in rest[:cut])
    if run.bare and intent.kind not in (None, "document"):
        run.step("named object", f"the question is only the name; not read as a {intent.kind} question")
        intent.kind = None


def _pick_entity(run: _Run, entities: dict[str, Entity]):
    """The ranker (core/read/names/ranker.py) picks among the role's visible entities; this turns its choice
    into the next step, a clarification, or not-found."""
    if not run.intent.overrides and run.reading.names_nothing_visible(run.view):
        # Said the same for a hidden and a made-up subject: the phrase itself is not repeated. A request to step
        # outside policy is left to the ranker's path, which refuses it.
        run.step("entity", "the question's subject holds a word no visible object uses; nothing stands in for it")
        return run.envelope(Behavior.not_found_or_not_authorized, NOT_FOUND)
    choice = run.reading.rank(run.view, run.searcher, run.q.role)
    if run.llm_reading is not None:
        choice = _settle_with_reading(run, choice)
    if choice.decision == "answer" and choice.rule.startswith("semantic match") and run.reading.stands_in(
            run.view, choice.entity_id):
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
        kinds = [entities[i].role for i in choice.options]
        if len(options) > 1 and len(set(kinds)) == len(kinds) and set.intersection(
                *(set(entities[i].names) for i in choice.options)):
            # One name, two things (a model and the source it is built from, a metric and its model): which kind?
            question = (f"{entities[choice.options[0]].label.rsplit('.', 1)[-1]} is the name of "
                        + " and ".join(f"a {k}" for k in kinds) + ". Which one do you mean?")
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
        from core.answer.intents import documents
        return documents.by_title(run) or _no_subject(run) or run.envelope(Behavior.not_found_or_not_authorized,
                                                                           NOT_FOUND)
    run.step("entity", choice.rule)
    if choice.note:
        run.notes.append(choice.note[0].upper() + choice.note[1:] + ".")
        run.read_as = choice.note
    return entities[choice.entity_id], choice.matches, choice.toks


NO_SUBJECT = "Which metric, model or source do you mean? Your question doesn't name one."


def _no_subject(run: _Run) -> Envelope | None:
    """"is it current?", "who owns it?": a question naming no subject at all (core/read/names/subject.py) is asked back,
    offering the role's own visible metrics (else its other topics), never answered as not found. A role that sees
    nothing to offer gets not found, as for any question."""
    if not run.reading.names_no_subject:
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
    subject (core/read/intents/described.py subject_tables) are what it may mean. One such source answers it; otherwise they
    are offered beside the other matches, sources first when the question says "data" or "table". Only the role's
    view is read: a source the role cannot see is never offered, never hinted at, and moves nothing."""
    if "freshness_status" not in run.intent.aspects or run.intent.kind is not None:
        return choice
    found = run.reading.subject_tables(run.view)
    tables = found.sources + found.models
    if not tables:
        return choice
    ents = run.view.entities
    if len(found.sources) == 1 and not _rival_tables(run, found, choice.options):
        source = found.sources[0]
        others = [ents[i].label for i in dict.fromkeys(choice.options + found.models) if i != source]
        said = " ".join(dict.fromkeys(run.reading.as_written([t for t in run.reading.tokens if t.norm in found.said])))
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
    if run.reading.says_data:
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
        _, toks = run.reading.match_entities(run.view.entities, run.view.phrases)
        return run.view.entities[run.q.entity], [], toks
    return _pick_entity(run, run.view.entities)


def _llm_reading(run: _Run, llm: tuple[str, float]) -> None:
    """Ask the model for a reading; use only the date part here (the entity part is settled after the
    ranker). The model sees the question and visible entity names only."""
    from core.read.llm.model import ModelFailure
    from core.read.llm.reading import check
    ents = run.view.entities
    names = [(e.entity_id, e.label, e.role) for e in ents.values() if e.is_topic]
    try:
        run.llm_reading = run.reading.llm_proposal(names, llm[0], llm[1])
    except ModelFailure as exc:
        run.step("llm reading", f"not used ({str(exc)[:120]}); the deterministic reading stands")
        return
    use, reasons = check(run.llm_reading, set(), [], run.intent.dates)
    if "date" in use and use["date"] not in run.intent.dates:
        chosen = use["date"]
        run.intent.dates = [chosen if (m.kind == "ambiguous" and m.span == chosen.span) else m for m in run.intent.dates]
        run.step("llm reading", f"date {chosen.text} read as {chosen.start}, one of the parser's readings")
    date_reasons = [r for r in reasons if "date" in r]
    if date_reasons:
        run.step("llm reading", "; ".join(date_reasons) + "; the parser's dates stand")


def _settle_with_reading(run: _Run, choice):
    """The LLM may pick among the ranker's clarify options or confirm its winner; nothing else."""
    from core.read.llm.reading import check
    allowed = choice.options if choice.decision == "clarify" else ([choice.entity_id] if choice.entity_id else [])
    use, reasons = check(run.llm_reading, set(run.view.entities), allowed, [])
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
