"""Which visible entity a question is about: one scoring model over every signal, in one place.

Candidates come only from the role's visible entities (`Visible.entities`), and every statistic a
score uses (BM25 document frequencies, dense similarity) is computed inside that set, so an object
the role may not see is never a candidate, never a suggestion and never moves a score.

Signals per candidate (all in `features`, all weighted in WEIGHTS):
  phrase   a name or alias appears as a phrase in the question (1.0), scaled up a little by length
  fuzzy    a name appears misspelt or abbreviated (rapidfuzz ratio per word, 0..1)
  head     a metric's head noun stands bare ("what does revenue mean")
  bm25     BM25 over names, aliases and ids of the visible entities, relative to the best
  dense    MiniLM cosine (plus a small full-text share) from the LanceDB index, inside the role filter
  kind     the kind the question asks for ("the orders model", "source", "staging", "%", a column of
           the model) fits (+1) or contradicts (-1) the candidate's kind; what is asked (definition,
           freshness, grain) fits metrics, sources and models
  subject  the name sits in the question's main clause, not in a "with ..."/"given ..." aside
  part     the name is asked about as a part of something else ("does revenue include gross sales?")

Decisions (thresholds in one place, calibrated on the tuning half of tests/questions):
  exact names   the best score wins when it leads by MARGIN; otherwise related candidates go to
                the one the question is about (metric first), unrelated ones are asked back
  spelling      a near-miss at FUZZY_SURE or better answers with a note ("read 'net reveneu' as
                Net revenue"); between FUZZY_MIN and FUZZY_SURE, or two close, it is asked back
  "of" phrase   "the cost of goods" when no visible metric is a cost of goods: the visible object whose name,
                else description, says it answers; the metrics sharing only "cost" are never offered (_said_of_phrase)
  semantic      dense similarity answers paraphrases only above SEMANTIC_ACCEPT, never when the
                question names an identifier or a qualified head noun that no visible name matches
                or on the words saying what kind of thing or status is asked ("drafts disagreeing",
                "superseded definition"): those are never a subject's (subject_search_text)
  nothing close not_found_or_not_authorized
"""
from __future__ import annotations

import re
from dataclasses import replace

from core.catalog.entities import (
    ARTICLES,
    ROLE_PRIORITY,
    Entity,
    Match,
    bare_head_matches,
    foreign_of_phrase,
    match_entities,
    qualified_head,
)
from core.catalog.text import GENERIC, Token, normalize, tokenize
from core.read.intents.described import (
    DESCRIBED_MARGIN,
    coverage,
    described_entity,
    holding_all,
    names_hold,
    question_words,
    said_together,
)
from core.read.names.asking import KIND_NOUNS, KIND_WORDS, _aside_tokens, _excluded
from core.read.names.candidate import MAX_OPTIONS, Candidate, Choice
from core.read.names.kinds import (
    _asks_data_kind,
    _kind_for_same_name,
    _kind_of,
    kind_fit,
    metric_asked,
    same_name_kinds,
    same_name_tables,
)
from core.read.names.made_up import (
    _compound,
    _contains,
    _foreign,
    _made_up_compound,
    _paired_with_nothing,
    _partial_identifier,
    _unexplained_spans,
    _unknown_kind_name,
    _words_nothing_visible_uses,
    absent_object_name,
)
from core.read.names.named import document_reference, named_objects
from core.read.names.paraphrase import _semantic
from core.read.names.shape import shape_asked, shaped_models
from core.read.names.spelling import FUZZY_SURE, fuzzy_candidates

# ---- the decisions' thresholds (the weights: core/read/names/candidate.py) ------------------------------
MARGIN = 0.25            # a lead this large over the next candidate decides between named entities
FUZZY_MARGIN = 0.04      # two near-misses closer than this are asked back
ASPECT_FIT = {"definition": "metric", "freshness_status": "source", "freshness_policy": "source", "grain": "model"}


# ---- features ------------------------------------------------------------------------------------


PART_BEFORE = re.compile(r"(?:\b(?:include|includes|included|including|incl|exclude|excludes|excluding|excl|contain|"
                         r"contains|minus|less|plus|net of|counts?|per)|=)\s+(?:the\s+|any\s+|all\s+|an?\s+)?$", re.I)
PART_AFTER = re.compile(r"^\s*(?:is|are)?\s*(?:included|excluded|counted|part|subtracted|deducted|added)\s+(?:in|from|of|to)\b",
                        re.I)


def _component(question: str, toks: list[Token], span: tuple[int, int]) -> bool:
    """"does revenue include gross sales?", "are refunds part of net revenue?": the name is a part of what
    is asked about, not the thing asked about."""
    return bool(PART_BEFORE.search(question[:toks[span[0]].start]) or PART_AFTER.match(question[toks[span[1] - 1].end:]))


# ---- the ranker ----------------------------------------------------------------------------------

def rank_question(question: str, intent, view, searcher=None, role: str | None = None) -> Choice:
    """Pick the entity a question is about, among `view.entities` only."""
    entities: dict[str, Entity] = view.entities
    intent = _names_over_dates(question, intent, view)
    matches, toks = match_entities(question, entities, view.phrases, intent.excluded_spans)
    docs = {m.entity_id for m in matches if entities[m.entity_id].role == "document"}
    if docs and not any(entities[m.entity_id].is_topic for m in matches):
        # "the revenue handbook says ...": a document's name must not hide the metric named inside it.
        inner, _ = match_entities(question, entities, {n: ids - docs for n, ids in view.phrases.items() if ids - docs},
                                  intent.excluded_spans)
        if any(entities[m.entity_id].is_topic for m in inner):
            matches = inner
    # A visible object named exactly (its evidence id, entity id or full title) names its entity; no rule for
    # made-up names below may reject it, and shorter names inside it are not what was asked for.
    refs = [r for r in named_objects(question, view) if not r.document and r.entity_id in entities
            and entities[r.entity_id].is_topic]
    ref_matches = []
    for r in refs:
        inside = [k for k, t in enumerate(toks) if r.start <= t.start and t.end <= r.end]
        if not inside:
            continue
        ref = Match(r.entity_id, inside[0], inside[-1] + 1, True)
        if r.by == "id":
            # An id is one object's own: names read from its words are not what was asked for.
            matches = [m for m in matches if m.end <= ref.start or m.start >= ref.end]
        elif any(m.start <= ref.start and ref.end <= m.end for m in matches):
            continue  # a title the names already cover, or a longer name around it ("new metric with window")
        else:
            # A full title holds shorter names ("raw orders" in "raw_orders (seed)"): the title is what is meant.
            matches = [m for m in matches if not (ref.start <= m.start and m.end <= ref.end)]
        ref_matches.append(ref)
    # Inside an identifier that names nothing visible ("fct_order_costs"), a shorter visible name
    # ("fct_orders" read from "fct order") is not what was asked for.
    unexplained = [(a, b) for a, b in _unexplained_spans(question, intent, view)
                   if not any(r.start <= a and b <= r.end for r in named_objects(question, view))]
    if unexplained:
        inside = {k for k, t in enumerate(toks) if any(a <= t.start < b for a, b in unexplained)}
        matches = [m for m in matches if not any(k in inside for k in range(m.start, m.end))]
    vocab = view.name_words
    norms = [t.norm for t in toks]
    # "order cost" is not "orders": a one-word name followed by a content word that no visible name
    # uses is part of a compound naming something else.
    compounds = [m for m in matches if _compound(question, m, toks, norms, vocab, intent)]
    matches = [m for m in matches if m not in compounds]
    # "staging orders" names stg_orders.
    for k, w in enumerate(norms):
        if w == "staging":
            for n in range(1, 5):
                name = ("stg", *norms[k + 1:k + 1 + n])
                for eid in sorted(view.phrases.get(name, ())):
                    matches.append(Match(eid, k, k + 1 + n, True))
    matches += ref_matches
    exact = [m for m in matches if entities[m.entity_id].is_topic]
    base = dict(matches=matches, toks=toks)
    if not ref_matches:
        # "the finance-only rebate memo": the words naming the object match nothing this role can see, and no
        # visible name stands outside them, so nothing similar may stand in for it.
        absent = absent_object_name(toks, view, intent)
        # What that object is said to be about ("... memo say about net revenue", "the X memo on churn") is
        # its topic, not another thing asked about.
        topic = next((k for k in range(absent[1], len(norms)) if norms[k] in TOPIC_WORDS
                      or (k == absent[1] and norms[k] in ("on", "for"))), len(norms)) if absent else len(norms)
        if absent and all(absent[0] <= m.start and m.end <= absent[1] or m.start >= topic for m in exact):
            # Said as when nothing matches at all: a made-up word and a hidden name must read the same.
            return Choice("none", rule=_NO_MATCH_UNEXPLAINED if unexplained else _NO_MATCH, **base)
    shaped = None if ref_matches else _described_by_shape(question, view, exact, toks, base)
    if shaped is not None:
        return shaped
    if exact and not ref_matches and all(_component(question, toks, (m.start, m.end)) for m in exact):
        # "gross profit per order": every name is a part of something the question names in other words, so
        # that something, not the part, is what is asked about.
        inside = {k for m in exact for k in range(m.start, m.end)}
        if any(k not in inside and _foreign(t.norm, set()) and not _excluded(t, intent) for k, t in enumerate(toks)):
            exact = []

    if exact and not ref_matches:
        paired = _paired_with_nothing(question, toks, exact, view, intent)
        if paired is not None:
            return Choice("none", rule=_NO_MATCH, **base)
    if exact:
        described = _described_over_names(question, intent, view, exact, ref_matches, base)
        if described is not None:
            return described
        return _decide_exact(question, intent, view, exact, toks, base)
    about = document_reference(toks, view)
    if len(about) == 1:
        (eid, (title, span)), = about.items()
        return Choice("answer", eid, candidates=[Candidate(eid, {"phrase": 0.9}, span)], **base,
                      rule=f"the question names a document, {title!r}, which is about {eid}")

    taken = {k for m in matches for k in range(m.start, m.end)}
    fuzzy = sorted(fuzzy_candidates(question, toks, entities, vocab, taken, view),
                   key=lambda c: (-c.features["fuzzy"], ROLE_PRIORITY.get(entities[c.entity_id].role, 9), c.entity_id))
    if fuzzy:
        return _decide_fuzzy(question, intent, view, fuzzy, toks, base)

    named = [m for m in matches if entities[m.entity_id].is_topic]  # a document's or lineage's name hides no head noun
    heads = bare_head_matches(toks, view.heads, named)
    # "passenger boarding fee", "customer acquisition cost": a metric's head noun followed by a word no visible name
    # uses begins the name of something else, exactly as a one-word name does ("order cost").
    head_compounds = [m for m in heads if _compound(question, m, toks, norms, vocab, intent)]
    heads = [m for m in heads if m not in head_compounds]
    if heads and _words_nothing_visible_uses(question, toks, intent, view):
        # A bare head noun is weak evidence: "how much do we spend to acquire a customer (CAC)?" shares only
        # "customer" with Active customers, and names its subject with words this role's catalog never uses. That
        # subject is hidden or was never written; the head noun's metric must not stand in for it.
        heads = []
    head_ids = list(dict.fromkeys(m.entity_id for m in heads))
    if not heads and not unexplained:
        said = _said_of_phrase(question, toks, view)
        if said is not None:
            return replace(said, **base)
    partial = _partial_identifier(question, intent, view) or _one_shared_word(question, toks, intent, view)
    if partial is not None:
        return replace(partial, **base)
    if not unexplained:
        desc = described_entity(question, view, intent.excluded_spans)
        # A compound that names nothing visible ("room revenue share") is a described table only when the table's
        # own description says the question's words side by side ("our supply expenses data"), at least half of them.
        named_thing = (any(entities[m.entity_id].is_topic for m in compounds) or bool(head_compounds)
                       or qualified_head(toks, view.heads) or _made_up_compound(norms, view))
        if desc is not None and desc.clear and (not named_thing or said_together(view, desc.entity_id, desc.asked)):
            return Choice("answer", desc.entity_id, candidates=[Candidate(desc.entity_id, {"dense": desc.coverage})],
                          rule=_described_rule(desc, "no visible name is in the question"), **base)
    # A compound naming something no visible name matches ("order cost") is one specific thing the
    # user means: a look-alike found by similarity must not stand in for it.
    if searcher is not None and not qualified_head(toks, view.heads) and not unexplained \
            and not any(entities[m.entity_id].is_topic for m in compounds) and not head_compounds \
            and not _unknown_kind_name(norms, vocab) and not _made_up_compound(norms, view):
        sem = _semantic(question, view, searcher, role, restrict=head_ids, base=base)
        if sem is not None:
            return sem
    if head_ids:
        cands = [Candidate(e, {"head": 1.0, "bm25": 0.0}, (m.start, m.end)) for e, m in
                 ((m.entity_id, m) for m in heads)]
        _bm25(question, view, cands)
        return _decide_named(question, intent, view, cands, toks, base,
                             "matched by the bare head noun of a visible metric name, with no qualifier")
    # The identifier itself is not repeated: output for a hidden name must equal a made-up one's.
    return Choice("none", rule=_NO_MATCH_UNEXPLAINED if unexplained else _NO_MATCH, **base)


def _described_by_shape(question, view, exact: list[Match], toks, base) -> Choice | None:
    """"the table with one row per booking", "the model that joins orders to customers": a model described by its
    grain or by what it joins (core/read/names/shape.py). A name said outside those words is the subject instead."""
    shape = shape_asked(question)
    if shape is None:
        return None
    a, b = shape.span
    if any(not (a <= toks[m.start].start and toks[m.end - 1].end <= b) for m in exact):
        return None
    found, checkable = shaped_models(shape, view)
    said = " and ".join(" ".join(w) for w in shape.said)
    what = f"one row per {said}" if shape.kind == "grain" else f"joins {said}"
    if len(found) == 1:
        return Choice("answer", found[0], candidates=[Candidate(found[0], {"shape": 1.0})], **base,
                      rule=f"the question describes a model by its shape ({what}); {found[0]} is the one visible "
                      "model of that shape")
    if len(found) > 1:
        return Choice("clarify", options=found[:MAX_OPTIONS], candidates=[Candidate(e, {"shape": 1.0}) for e in found],
                      **base, rule=f"the question describes a model by its shape ({what}); several visible models "
                      "have it: " + ", ".join(found))
    if shape.kind == "join" and checkable:
        # The joined things are visible tables and no visible model joins them: not found, as for a name that
        # matches nothing (a hidden model that joins them reads as one never written).
        return Choice("none", rule=_NO_MATCH, **base)
    return None


def _described_rule(desc, why: str) -> str:
    return (f"{why}; its words ({', '.join(desc.asked)}) describe {desc.entity_id}: its name, description and "
            f"columns hold {desc.coverage:.0%} of them" + (f", the next ({desc.next_id}) {desc.next_coverage:.0%}"
                                                           if desc.next_id else ""))


def _described_over_names(question, intent, view, exact: list[Match], refs: list[Match], base) -> Choice | None:
    """"which model holds the individual food and drink items that make up our orders?": a name ("orders") sits
    inside a description of another table. When the question has three or more describing words
    and one other entity's description covers nearly all of them, clearly ahead of the next entity and twice as
    far ahead of every named one, that entity is meant."""
    if refs:
        return None
    # Cheap test first (the words are read from the whole view only when it passes): at least two words outside
    # the names that say what something holds, not what is asked of it.
    inside = {k for m in exact for k in range(m.start, m.end)}
    outside = [t.norm for k, t in enumerate(base["toks"]) if k not in inside and t.norm.isalpha() and len(t.norm) > 2
               and t.norm not in GENERIC and not _excluded(t, intent)]
    if len(outside) < 2:
        return None
    desc = described_entity(question, view, intent.excluded_spans)
    named = {m.entity_id for m in exact}
    if desc is None or not desc.clear or desc.entity_id in named or len(desc.asked) < 3:
        return None
    if desc.coverage - max(coverage(view, e, desc.asked) for e in named) < 2 * DESCRIBED_MARGIN:
        return None
    return Choice("answer", desc.entity_id, candidates=[Candidate(desc.entity_id, {"dense": desc.coverage})],
                  rule=_described_rule(desc, "the names in the question (" + ", ".join(sorted(named))
                                       + ") are part of a description of another table"), **base)


_NO_MATCH = "no visible entity matches the question"
_NO_MATCH_UNEXPLAINED = "the question names an identifier that matches no visible object's name"


def _names_over_dates(question: str, intent, view):
    """Words read as a date that are inside a longer visible name ("orders last 7 days") are that name's
    words: the name is matched over them (the date stays as read for the reporting date)."""
    date_spans = [d.span for d in intent.dates]
    if not date_spans:
        return intent
    full, toks = match_entities(question, view.entities, view.phrases, [])
    covered = set()
    for m in full:
        a, b = toks[m.start].start, toks[m.end - 1].end
        if not view.entities[m.entity_id].is_topic:
            continue
        for s, e in date_spans:
            inside = [t for t in toks[m.start:m.end] if s <= t.start < e]
            if a <= s and e <= b and 0 < len(inside) < m.end - m.start:
                covered.add((s, e))
    if not covered:
        return intent
    return replace(intent, excluded_spans=[sp for sp in intent.excluded_spans if sp not in covered])


# Before or after a thing a description names, these make it one item of several or a part added or taken away
# ("cost of goods, fulfilment and fees", "net revenue less cost of goods"): the object is not that thing itself.
LIST_BEFORE = re.compile(r"(?:[,;&+/]|\band|\bor)\s*$", re.I)
LIST_AFTER = re.compile(r"^\s*(?:[,;&+/]|and\b|or\b)", re.I)


def _said_of_phrase(question: str, toks: list[Token], view) -> Choice | None:
    """"what is the cost of goods?" when every visible metric named "... cost" is a cost of something else: the
    question names the cost of goods, so only visible objects that say that may answer it, never the ones that merely
    share "cost". Those whose own names hold its words are meant; else those whose description says it as what they
    are (`_says`); one answers, several are asked back. Objects that only mention it as one item of several or as a
    part ("net revenue less cost of goods") are asked back, never answered; with nothing saying it, not-found, as
    for a made-up subject. Only the role's view is read, so a hidden object that says it moves nothing."""
    norms = [t.norm for t in toks]
    for i, head in enumerate(norms):
        things = [foreign_of_phrase(norms, i, ent) for ent in view.heads.get(head, ())]
        if not things or not all(things):
            continue
        thing = things[0]
        end = max(k for k in range(i, len(norms)) if norms[k] in thing) + 1
        phrase = question[toks[i].start:toks[end - 1].end]
        said = question_words(" ".join([head, *thing])) + _acronyms(question, toks[i + 1:end])
        holding = sorted((e for e in holding_all(view, said) if view.entities[e].is_topic),
                         key=lambda e: (ROLE_PRIORITY.get(view.entities[e].role, 9), e))
        named = [e for e in holding if names_hold(view, e, said)]
        how = {}  # entity -> how its description says the thing: 2 as what it is, 1 in passing
        if not named and holding:
            forms = [(head, "of", *thing), (*thing, head)]
            for ev in view.by_ids(holding):
                if ev.entity_id in holding:
                    how[ev.entity_id] = max(how.get(ev.entity_id, 0), _says(ev.title, forms),
                                            _says(ev.description or ev.text or "", forms))
        alone = named or [e for e in holding if how.get(e) == 2]
        if len(alone) == 1:
            return Choice("answer", alone[0], candidates=[Candidate(alone[0], {"phrase": 0.9}, (i, end))],
                          rule=f"the question names '{phrase}'; {alone[0]} is the one visible object saying it")
        found = alone or [e for e in holding if how.get(e)]
        if found:
            return Choice("clarify", options=found[:MAX_OPTIONS],
                          rule=f"the question names '{phrase}'; visible objects saying it: " + ", ".join(found[:MAX_OPTIONS]))
        return Choice("none", rule=_NO_MATCH)
    return None


def _acronyms(question: str, toks: list[Token]) -> list[str]:
    """"the cost of AI", "cost of ML training": a word too short to describe anything by (question_words drops it)
    is a name when it is written in capitals, and the of-phrase's own word: without it "cost of AI" is only "cost",
    which every cost metric holds."""
    return [t.norm for t in toks if 2 <= len(t.norm) < 3 and t.norm.isalpha() and question[t.start:t.end].isupper()]


def _says(text: str, forms: list[tuple[str, ...]]) -> int:
    """How `text` says one of the `forms` ("cost of goods", "goods cost"): 2 as the thing it is, 1 only as an item of a
    list or a part added or taken away (PART_BEFORE), 0 not at all. Articles are skipped, as in the question."""
    toks = [t for t in tokenize(text) if t.norm not in ARTICLES]
    norms = [t.norm for t in toks]
    best = 0
    for form in forms:
        k = len(form)
        for a in range(len(norms) - k + 1):
            if tuple(norms[a:a + k]) != form:
                continue
            before, after = text[:toks[a].start], text[toks[a + k - 1].end:]
            listed = PART_BEFORE.search(before) or LIST_BEFORE.search(before) or LIST_AFTER.match(after)
            best = max(best, 1 if listed else 2)
    return best


def _one_shared_word(question: str, toks: list[Token], intent, view) -> Choice | None:
    """"rate for 2025-03-31", "drink metric": the question's one content word is a word of several visible
    names and names none of them alone, so which is meant is asked back rather than guessed by similarity."""
    words_ = [t.norm for t in toks if _foreign(t.norm, set()) and t.norm not in KIND_NOUNS and not _excluded(t, intent)]
    # "the cost of ML": two words, one of them short; a short word in capitals names nothing visible ("in the UK") is
    # not one of them.
    if len(words_) != 1 or any(view.topics_by_word.get(w) for w in _acronyms(question, toks)):
        return None
    entities = view.entities
    found = sorted(view.topics_by_word.get(words_[0], ()), key=lambda e: (ROLE_PRIORITY.get(entities[e].role, 9), e))
    asked = {kind for kind, kw in KIND_WORDS.items() if kw & {t.norm for t in toks}}
    if asked:  # "raw orders table": the kind asked for narrows them; one left is for similarity to confirm
        found = [e for e in found if _kind_of(entities[e]) in asked]
    if len(found) < 2:
        return None
    return Choice("clarify", options=found[:MAX_OPTIONS],
                  rule=f"'{words_[0]}' alone is a word of several visible names: " + ", ".join(found[:MAX_OPTIONS]))


def _bm25(question: str, view, cands: list[Candidate]) -> None:
    scores = view.bm25_scores(question, [c.entity_id for c in cands])
    top = max(scores.values(), default=0.0) or 1.0
    for c in cands:
        c.features["bm25"] = scores.get(c.entity_id, 0.0) / top


def _columns(view, ent: Entity) -> set[str]:
    if ent.role != "model":
        return set()
    cols = set()
    for ev in view.entity_objects(ent.entity_id):
        if ev.model:
            cols |= {normalize(c) for c in ev.model.columns}
    return cols


def _score_named(question: str, intent, view, cands: list[Candidate], toks: list[Token]) -> None:
    entities = view.entities
    aside = _aside_tokens(question, toks)
    for c in cands:
        ent = entities[c.entity_id]
        c.features["kind"] = kind_fit(question, toks, c, ent, _columns(view, ent))
        c.features["aspect"] = float(sum(ASPECT_FIT.get(a) == ent.role for a in intent.aspects) > 0)
        c.features["subject"] = 0.0 if c.span and all(k in aside for k in range(*c.span)) else 1.0
        c.features["part"] = -1.0 if c.span and _component(question, toks, c.span) else 0.0
    _bm25(question, view, cands)


def _order(cands: list[Candidate], entities) -> list[Candidate]:
    return sorted(cands, key=lambda c: (-round(c.score, 6), ROLE_PRIORITY.get(entities[c.entity_id].role, 9),
                                        c.entity_id))


def _decide_exact(question, intent, view, exact: list[Match], toks, base) -> Choice:
    cands: dict[str, Candidate] = {}
    for m in exact:
        length = m.end - m.start
        c = cands.get(m.entity_id)
        if c is None or length > (c.span[1] - c.span[0]):
            cands[m.entity_id] = Candidate(m.entity_id, {"phrase": 1.0, "length": min(length, 4) / 4}, (m.start, m.end))
    return _decide_named(question, intent, view, list(cands.values()), toks, base, None)


def _decide_named(question, intent, view, cands: list[Candidate], toks, base, rule_prefix) -> Choice:
    entities = view.entities
    _score_named(question, intent, view, cands, toks)
    named = {c.entity_id for c in cands}  # named by the words; not one whose name only holds them (below)
    if cands and all(c.features["kind"] < 0 for c in cands):
        # "payment events staging model": the words name a source, the kind asked for is a model; a
        # visible entity of another kind whose name holds the same words is a candidate too.
        have = set(named)
        for c in list(cands):
            words = tuple(t.norm for t in toks[c.span[0]:c.span[1]])
            pool = set.intersection(*(view.topic_names_by_word.get(w, set()) for w in words)) if words else set()
            for ent in (entities[e] for e in sorted(pool)):
                if ent.entity_id not in have and any(_contains(n, words) for n in ent.names):
                    have.add(ent.entity_id)
                    cands.append(Candidate(ent.entity_id, {"phrase": 0.9, "length": c.features.get("length", 0)}, c.span))
        _score_named(question, intent, view, cands, toks)
        # Only an entity of the kind asked for stands in; one that misfits as well is no candidate
        # ("raw tables feed revenue" does not make every "... revenue" metric a candidate).
        cands = [c for c in cands if c.entity_id in named or c.features["kind"] >= 0]
        if all(c.features["kind"] < 0 for c in cands) and _asks_data_kind(toks, cands):
            # "the refunds metric" when the only visible "refunds" is a source: not what was asked for,
            # so it is offered, never answered silently.
            ordered = _order(cands, entities)
            return Choice("clarify", options=[c.entity_id for c in ordered][:MAX_OPTIONS], candidates=ordered, **base,
                          rule="the question asks for another kind than every visible entity it names: "
                          + ", ".join(f"{c.entity_id} ({entities[c.entity_id].role})" for c in ordered))
    ordered = _order(cands, entities)
    lead = ordered[0]
    ids = [c.entity_id for c in ordered]
    detail = "; ".join(f"{c.entity_id} {c.score:.2f}" for c in ordered[:MAX_OPTIONS])
    if len(ordered) == 1:
        return Choice("answer", lead.entity_id, rule=rule_prefix or f"{lead.entity_id} "
                      f"({entities[lead.entity_id].role}) named in the question", candidates=ordered, **base)
    if lead.score - ordered[1].score >= MARGIN:
        others = [c.entity_id for c in ordered[1:]]
        twin = next((c for c in ordered[1:] if c.span == lead.span and {c.entity_id, lead.entity_id} <= named
                     and {entities[c.entity_id].role, entities[lead.entity_id].role}
                     in ({"metric", "model"}, {"metric", "source"}, {"model", "source"})
                     and not {c.entity_id, lead.entity_id} & {e for e in named if e.startswith(("seed.", "exposure."))}),
                    None)
        said = (f"read as the {entities[lead.entity_id].role} {entities[lead.entity_id].label}, as the question's words "
                f"say; a {entities[twin.entity_id].role} of the same name is another thing") if twin else None
        return Choice("answer", lead.entity_id, related=others, candidates=ordered, note=said, **base,
                      rule=f"{lead.entity_id} ({entities[lead.entity_id].role}) is what the question asks about "
                      f"(scores: {detail})")
    # Close: related entities are one question about the one that leads by role (the metric);
    # unrelated ones are two questions, and which is meant is asked back.
    top = [c for c in ordered if lead.score - c.score < MARGIN]
    leader = min(top, key=lambda c: (ROLE_PRIORITY.get(entities[c.entity_id].role, 9), -c.score, c.entity_id))
    linked = view.linked_entities(leader.entity_id)
    unrelated = [c.entity_id for c in top if c.entity_id != leader.entity_id and c.entity_id not in linked]
    same = _kind_for_same_name(question, top, entities)
    note = None
    # One name, two things: a metric and a table the words both name (fct_burn_share only holds "burn share").
    shared = same_name_kinds([c for c in top if c.entity_id in named], entities)
    tables = same_name_tables([c for c in top if c.entity_id in named], entities)
    if same is not None:
        leader, unrelated = same, []
        if shared or tables:  # one name, two things: said which was read, and why
            other = " and a ".join(sorted({entities[c.entity_id].role for c in top if c is not same
                                           and c.entity_id in named and not c.entity_id.startswith("seed.")}))
            note = (f"read as the {entities[same.entity_id].role} {entities[same.entity_id].label}: the question asks "
                    f"what a {entities[same.entity_id].role} has; a {other} of the same name is not what it asks about")
    elif shared and metric_asked(question, intent.value):
        leader = next(c for c in top if entities[c.entity_id].role == "metric")
        note = (f"read as the metric {entities[leader.entity_id].label}: the question asks for its meaning or value; "
                f"a {' and a '.join(sorted(shared - {'metric'}))} of the same name {'exist' if len(shared) > 2 else 'exists'}")
    elif shared or tables:
        # Neither kind's words: asked back, never one picked silently (the metric, or the model over a source of
        # its name, used to lead).
        return Choice("clarify", options=[c.entity_id for c in top][:MAX_OPTIONS], candidates=ordered, **base,
                      rule="one name, two things: " + ", ".join(f"{c.entity_id} ({entities[c.entity_id].role})"
                                                                for c in top) + "; the question's words fit neither kind")
    if unrelated:
        return Choice("clarify", options=[c.entity_id for c in top][:MAX_OPTIONS] if len(top) > 1 else ids,
                      candidates=ordered, rule="the question names several unrelated visible entities: "
                      + ", ".join(c.entity_id for c in top) + f" (scores: {detail})", **base)
    return Choice("answer", leader.entity_id, related=[i for i in ids if i != leader.entity_id], candidates=ordered,
                  note=note, rule=(rule_prefix + "; " if rule_prefix else "") + f"{leader.entity_id} "
                  f"({entities[leader.entity_id].role}) named in the question; related: "
                  + ", ".join(i for i in ids if i != leader.entity_id), **base)


def _decide_fuzzy(question, intent, view, fuzzy: list[Candidate], toks, base) -> Choice:
    entities = view.entities
    _score_named(question, intent, view, fuzzy, toks)
    best = fuzzy[0]
    sim = best.features["fuzzy"]
    close = [c for c in fuzzy[1:] if sim - c.features["fuzzy"] < FUZZY_MARGIN and c.span == best.span]
    if close and any(c.features["kind"] != best.features["kind"] for c in close):
        # The kind asked for settles two near-misses of the same words.
        ranked = sorted([best, *close], key=lambda c: -c.features["kind"])
        if ranked[0].features["kind"] > ranked[1].features["kind"]:
            best, close = ranked[0], []
    label = entities[best.entity_id].label
    reading = f"read '{best.read_as}' as {label}"
    if sim >= FUZZY_SURE and not close:
        return Choice("answer", best.entity_id, note=reading, candidates=fuzzy, **base,
                      rule=f"no name matches exactly; {reading} (spelling similarity {sim:.2f})")
    options = [best.entity_id] + [c.entity_id for c in (close or fuzzy[1:])][:MAX_OPTIONS - 1]
    return Choice("clarify", options=options, candidates=fuzzy, **base,
                  rule=f"no name matches exactly; '{best.read_as}' is close to "
                  + ", ".join(f"{o} ({next(c.features['fuzzy'] for c in fuzzy if c.entity_id == o):.2f})" for o in options))


TOPIC_WORDS = {"about", "regarding", "concerning", "re", "wrt"}


