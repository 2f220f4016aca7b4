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
from dataclasses import dataclass, field, replace

from rapidfuzz import fuzz
from rapidfuzz.distance import OSA

from core.catalog import budget
from core.catalog.entities import (
    ARTICLES,
    KIND_PREFIXES,
    ROLE_PRIORITY,
    Entity,
    Match,
    bare_head_matches,
    foreign_of_phrase,
    id_phrases,
    match_entities,
    qualified_head,
    semantic_entities,
)
from core.catalog.evidence import Kind
from core.catalog.text import ASKING_WORDS, GENERIC, MONTH_WORDS, STOPWORDS, Token, normalize, tokenize, words
from core.read.described import (
    DESCRIBED_MARGIN,
    coverage,
    described_entity,
    entity_words,
    names_hold,
    question_words,
    said_together,
    shared_by_one,
)
from core.read.disagreement import DISAGREEING_WORDS, is_review_word
from core.read.intent import inclusion_match
from core.read.slips import one_slip_beside_exact, swap_of_known

# ---- the scoring model: every weight and threshold ----------------------------------------------
WEIGHTS = {"phrase": 1.0, "length": 0.05, "fuzzy": 0.9, "head": 0.5, "bm25": 0.1, "dense": 0.6,
           "kind": 0.35, "aspect": 0.1, "subject": 0.4, "part": 0.4}
MARGIN = 0.25            # a lead this large over the next candidate decides between named entities
FUZZY_MIN = 0.84         # mean per-word similarity for a spelling near-miss to count at all
FUZZY_WORD_MIN = 0.70    # ... and no word of the name below this
FUZZY_SURE = 0.88        # at or above: answer, with a note; below: ask back
FUZZY_MARGIN = 0.04      # two near-misses closer than this are asked back
ABBREVIATION = 0.92      # "merch" for "merchandise", "acq" for "acquisition", "CAC" for a three-word name
ONE_EDIT = 0.9           # a single insertion, deletion, substitution or swap in a word of 6+ letters
MAX_OPTIONS = 4
# Abbreviations analysts type that are not prefixes of the word they stand for.
ABBREVIATIONS = {"avg": "average", "amt": "amount", "qty": "quantity", "num": "number", "cust": "customer",
                 "pct": "percent", "mgmt": "management", "acct": "account", "std": "standard", "cnt": "count",
                 "w": "with"}
# The semantic path keeps the thresholds calibrated in entities.py (paraphrases and absent topics).
from core.catalog.entities import SEMANTIC_ACCEPT, SEMANTIC_MARGIN, SEMANTIC_MIN_VECTOR  # noqa: E402

# ---- what kind the question asks for --------------------------------------------------------------
KIND_WORDS = {
    "model": {"model", "dbt", "staging", "stg", "mart", "warehouse", "view", "relation", "dim", "fct", "int"},
    "source": {"source", "raw", "seed", "feed", "landing", "ingest", "ingested"},
    "metric": {"metric", "kpi", "measure"},
    "document": {"dashboard", "exposure", "report", "memo", "doc", "document", "handbook"},
}
KIND_NOUNS = {w for words in KIND_WORDS.values() for w in words} | {"table", "metric", "dataset"}
WAREHOUSE_TABLE = re.compile(r"^\s*(?:table|relation|view)\s+in\s+(?:the\s+)?(?:warehouse|dwh|db|database)\b", re.I)
RATIO_AFTER = re.compile(r"^\s*(?:%|pct\b|percent(?:age)?\b|share\b|ratio\b)", re.I)
RATIO_BEFORE = re.compile(r"(?:%|\bpct|\bpercent(?:age)?|\bshare|\bratio)(?:\s+of)?\s*$", re.I)
# "what share of revenue is drink revenue": the ratio word opens the clause whose subject is the name.
RATIO_CLAUSE = re.compile(r"(?:%|\bpct|\bpercent(?:age)?|\bshare|\bratio)\s+of\b[^?.,;]*\b(?:is|are)\s+(?:the\s+)?$", re.I)
RATIO_ASKED = re.compile(r"\b(?:share|percent(?:age)?|pct|proportion|fraction|ratio|rate)\s+of\b|%\s*of\b|"
                         r"\bhow many\b.{1,60}\bout of\b", re.I)
RATIO_MARGIN = 0.08      # a paraphrased ratio: the best ratio metric must lead the next one by this much
RATIO_MIN = 0.40         # ... and score at least this
RATIO_ID = re.compile(r"(_pct|_percent|_ratio|_share|_rate)$")
SHARE_ID = re.compile(r"(_pct|_percent|_ratio|_share)$")
# A clause opened by these is an aside about circumstances, not what is asked about.
ASIDE = re.compile(r"\b(with|given|while|since|because|although|though|whereas|mentioning|mentions|after|"
                   r"despite|now that|if|when)\b", re.I)
CLAIM = re.compile(r"\b(?:says|said|claims|claimed|states|stated|suggests|suggested|reads)\b", re.I)
IDENTIFIER = re.compile(r"\b[a-z]\w*(?:\.[a-z]\w*)+\b|\b[a-z][a-z0-9]*(?:_+[a-z0-9]+)+\b", re.I)  # dbt uses "__" too
# "the model for X", "the source of X", "the table behind X", "which model feeds X": X is what the question is about.
# Matched against normalized words, so the verbs are folded as the question's are ("feeds" reads "feed").
RELATION = {normalize(w) for w in "for of behind backing feeding feeds backs builds implements powers powering "
            "produces computes drives under underlying underlies".split()}
ASPECT_FIT = {"definition": "metric", "freshness_status": "source", "freshness_policy": "source", "grain": "model"}
# What the question asks of a name several kinds share (a model, a source and a seed all called raw_orders; a
# metric and a model both called orders): a table's make-up is a model's, a load is a source's.
ASKS_MODEL = re.compile(r"\b(?:columns?|fields?|grain|granularity|one row per|rows?|built (?:from|on)|made from|"
                        r"select(?:ed)? from|query|queried|materiali[sz]\w*|sql|joins?)\b", re.I)
ASKS_SOURCE = re.compile(r"\b(?:loaded|load(?:s|ing)?|fresh\w*|stale|arriv\w*|ingest\w*|landed|synced|extracted)\b", re.I)


@dataclass
class Candidate:
    entity_id: str
    features: dict[str, float] = field(default_factory=dict)
    span: tuple[int, int] | None = None  # token span of the name in the question
    read_as: str | None = None  # the question's words, when they were read as a misspelt name

    @property
    def score(self) -> float:
        return sum(WEIGHTS[k] * v for k, v in self.features.items())


@dataclass
class Choice:
    decision: str  # answer | clarify | none
    entity_id: str | None = None
    options: list[str] = field(default_factory=list)
    rule: str = ""
    note: str | None = None  # how a misspelt name was read
    related: list[str] = field(default_factory=list)
    matches: list[Match] = field(default_factory=list)
    toks: list[Token] = field(default_factory=list)
    candidates: list[Candidate] = field(default_factory=list)


# ---- features ------------------------------------------------------------------------------------

def _word_sim(q: str, n: str) -> float:
    if q == n:
        return 1.0
    if ABBREVIATIONS.get(q) == n:
        return ABBREVIATION
    if len(q) >= 3 and len(n) > len(q) and n.startswith(q):
        return ABBREVIATION
    if len(n) >= 6 and OSA.distance(q, n) == 1:
        return ONE_EDIT  # one slip on a long word ("reveune", "revenve") is a typo, whatever the edit
    return fuzz.ratio(q, n) / 100.0


def fuzzy_candidates(question: str, toks: list[Token], entities: dict[str, Entity], vocab: set[str],
                     taken: set[int]) -> list[Candidate]:
    """Names that appear misspelt or abbreviated: same number of words, in order, each close.

    A question word that is itself a word of some visible name, or a common question word, is a
    different word, not a misspelling ("drink revenue" is not a typo of "food revenue")."""
    norms = [t.norm for t in toks]
    out: dict[str, Candidate] = {}
    for ent in entities.values():
        if not ent.is_topic:
            continue
        for name in ent.names:
            k = len(name)
            if sum(len(w) for w in name) < 5:
                continue
            for i in range(0, len(norms) - k + 1):
                window = norms[i:i + k]
                if any(j in taken for j in range(i, i + k)) or tuple(window) == name:
                    continue
                sims = []
                for q, n in zip(window, name):
                    if q != n and (q in vocab or q in GENERIC or len(q) < 3):
                        break
                    sims.append(_word_sim(q, n))
                else:
                    if min(sims) < FUZZY_WORD_MIN:
                        continue
                    if one_slip_beside_exact(window, name):  # "dim_tiem": a typo, as "reveune" is
                        sims = [s if q == n else max(s, ONE_EDIT) for s, q, n in zip(sims, window, name)]
                    # Long words weigh more: "grss" matters more than "of".
                    weights = [max(len(n), 2) for n in name]
                    sim = sum(s * w for s, w in zip(sims, weights)) / sum(weights)
                    if k == 1 and (len(window[0]) < 6 or sim < FUZZY_SURE):
                        continue  # a lone short word is too easily something else
                    if sim >= FUZZY_MIN and sim > out.get(ent.entity_id, Candidate("")).features.get("fuzzy", 0):
                        out[ent.entity_id] = Candidate(ent.entity_id, {"fuzzy": sim}, (i, i + k),
                                                       read_as=question[toks[i].start:toks[i + k - 1].end])
    for cand in acronym_candidates(question, toks, entities, vocab, taken):
        if cand.features["fuzzy"] > out.get(cand.entity_id, Candidate("")).features.get("fuzzy", 0):
            out[cand.entity_id] = cand
    return list(out.values())


def acronym_candidates(question: str, toks: list[Token], entities: dict[str, Entity], vocab: set[str],
                       taken: set[int]) -> list[Candidate]:
    """"CAC" for Customer Acquisition Cost: one question word spelling the initials of a visible name of
    three or more words. Shorter acronyms ("nr") are too often something else; they need an alias."""
    out = []
    for k, t in enumerate(toks):
        w = question[t.start:t.end].lower()
        if k in taken or len(w) < 3 or not w.isalpha() or w in vocab or w in GENERIC:
            continue
        for ent in entities.values():
            if ent.is_topic and any(len(n) == len(w) and "".join(x[0] for x in n) == w for n in ent.names):
                out.append(Candidate(ent.entity_id, {"fuzzy": ABBREVIATION}, (k, k + 1), read_as=question[t.start:t.end]))
    return out


def _kind_of(ent: Entity) -> str:
    return "document" if ent.role in ("document", "lineage") else ent.role


def kind_fit(question: str, toks: list[Token], cand: Candidate, ent: Entity, columns: set[str]) -> float:
    """+1 when a kind word next to the name fits the entity, -1 when it names another kind."""
    if cand.span is None:
        return 0.0
    i, j = cand.span
    norms = [t.norm for t in toks]
    before = norms[max(0, i - 3):i]
    if before[-1:] == ["the"]:
        before = before[:-1]
    relation = None
    if len(before) >= 2 and before[-1] in RELATION:
        # "is fct_orders the model for net revenue": the kind word names what the question asks of the
        # name after "for", which is the subject, not a thing of that kind.
        relation = next((kind for kind, words in KIND_WORDS.items() if before[-2] in words), None)
    # "the handbook says revenue ...": a kind word before a verb of saying is the speaker, not the name's kind.
    said = i > 0 and CLAIM.fullmatch(question[toks[i - 1].start:toks[i - 1].end]) is not None
    # "what feeds the subscriptions metric": before a name, "feed" is a verb, not the kind "source feed".
    near = (set() if relation or said else set(norms[max(0, i - 2):i]) - {"feed", "ingest"}) | set(norms[j:j + 2])
    asked = {kind for kind, words in KIND_WORDS.items() if near & words}
    end_char = toks[j - 1].end
    start_char = toks[i].start
    if WAREHOUSE_TABLE.match(question[end_char:]):
        asked.add("model")
    if "model" in asked and "source" in asked:
        asked.discard("source")  # "the raw orders model" is a model
    kind = _kind_of(ent)
    fit = 0.0
    if asked:
        fit = 1.0 if kind in asked else -1.0
    elif relation and kind != relation:
        fit = 1.0
    ratio_asked = bool(RATIO_AFTER.match(question[end_char:]) or RATIO_BEFORE.search(question[:start_char])
                       or RATIO_CLAUSE.search(question[:start_char]))
    if ent.role == "metric" and ratio_asked:
        fit += 1.0 if RATIO_ID.search(ent.entity_id) else -1.0
    elif ent.role == "metric" and SHARE_ID.search(ent.entity_id):
        fit -= 1.0  # "food revenue" is the amount; its share is asked for with %, pct, share or ratio
    if "seed" in near and ent.role == "source":
        fit += 1.0 if ent.entity_id.startswith("seed.") else 0.0  # "the raw_orders seed", not the dbt source
    elif "source" in norms[j:j + 2] and ent.role == "source":
        fit += 0.0 if ent.entity_id.startswith("seed.") else 1.0  # "the raw orders source", not the seed
    if {"stg", "staging"} & set(norms[max(0, i - 2):j + 2]):
        fit += 1.0 if any(n[:1] == ("stg",) for n in ent.names) else 0.0
    # A column of the model named in the question ("orders with order_total") points at the model.
    if columns and ent.role == "model" and columns & {n for k, n in enumerate(norms) if not i <= k < j}:
        fit += 1.0
    return fit


def _asks_data_kind(toks: list[Token], cands: list[Candidate]) -> bool:
    """A metric, model or source is asked for next to a name ("the refunds metric"); a document word
    ("the revenue handbook") asks about prose, which is not a kind a candidate can misfit."""
    norms = [t.norm for t in toks]
    data_words = {"metric", "kpi", "measure", "model", "table", "view", "relation", "source", "seed", "dataset"}
    # Only a kind word right next to the name describes it; "the sources behind conversion rate" asks about
    # what feeds the metric.
    return all(c.span and set(norms[max(0, c.span[0] - 1):c.span[0]] + norms[c.span[1]:c.span[1] + 1]) & data_words
               for c in cands)


PART_BEFORE = re.compile(r"(?:\b(?:include|includes|included|including|incl|exclude|excludes|excluding|excl|contain|"
                         r"contains|minus|less|plus|net of|counts?|per)|=)\s+(?:the\s+|any\s+|all\s+|an?\s+)?$", re.I)
PART_AFTER = re.compile(r"^\s*(?:is|are)?\s*(?:included|excluded|counted|part|subtracted|deducted|added)\s+(?:in|from|of|to)\b",
                        re.I)


def _component(question: str, toks: list[Token], span: tuple[int, int]) -> bool:
    """"does revenue include gross sales?", "are refunds part of net revenue?": the name is a part of what
    is asked about, not the thing asked about."""
    return bool(PART_BEFORE.search(question[:toks[span[0]].start]) or PART_AFTER.match(question[toks[span[1] - 1].end:]))


def _aside_tokens(question: str, toks: list[Token]) -> set[int]:
    """Token indexes inside an aside: from an ASIDE word to the next comma, or to the end."""
    out: set[int] = set()
    for m in ASIDE.finditer(question):
        before = question[:m.start()].rstrip()
        stop = question.find(",", m.end())
        if before == "" and stop > 0:
            pass  # "With payment events late, how is net revenue defined?"
        elif before.endswith(","):
            stop = stop if stop > 0 else len(question)  # "..., given the payment events delay"
        else:
            continue  # inside the main clause ("revenue with refunds") it is part of what is asked
        out |= {k for k, t in enumerate(toks) if m.start() <= t.start < stop}
    # "the old revenue wiki says order total incl tax - still right?": what a document claims is quoted, and
    # the question is about the document's topic; a name inside the claim is not its subject.
    for m in CLAIM.finditer(question):
        before = [k for k, t in enumerate(toks) if m.start() - 40 <= t.start < m.start()]
        doc = [k for k in before if toks[k].norm in DOC_TYPE_WORDS]
        # Only a document named by its topic ("the revenue wiki") says what the question is about; "the
        # handbook says revenue includes ..." leaves the subject inside the claim.
        if not doc or doc[0] == 0 or toks[doc[0] - 1].norm in STOPWORDS | DOC_STATUS_WORDS:
            continue
        end = re.search(r"\s[-–—]\s|[,;?]|$", question[m.end():])
        stop = m.end() + end.start()
        out |= {k for k, t in enumerate(toks) if m.end() <= t.start < stop}
    return out


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
    fuzzy = sorted(fuzzy_candidates(question, toks, entities, vocab, taken),
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


PAIRING = {"for", "of", "on", "in", "at", "by", "per", "across"}
NOT_A_THING = set(words("share percent percentage pct ratio rate proportion fraction growth trend breakdown split "
                        "mix change delta average avg median sum total count number"))


def _paired_with_nothing(question, toks: list[Token], exact: list[Match], view, intent) -> str | None:
    """"CSAT for webinars", "fees on bookings": a word before "for"/"of"/"on" ... and a visible name, where that
    word is a word of some other visible name but no visible object has both (not the named one, nor any other):
    the question asks for a thing this role cannot see, so the named one must not stand in for it. Returns the
    word, or None. Only the role's view is read, so a hidden object that has both reads as absent."""
    norms = [t.norm for t in toks]
    inside = {k for m in exact for k in range(m.start, m.end)}
    for m in exact:
        k = m.start - 1
        if k >= 1 and norms[k] == "the":
            k -= 1
        if k < 1 or norms[k] not in PAIRING:
            continue
        j = k - 1
        w = norms[j]
        if j in inside or w in GENERIC or w in KIND_NOUNS or w in NOT_A_THING or not w.isalpha() \
                or _excluded(toks[j], intent) or w not in view.name_words:
            continue
        name = {x for x in norms[m.start:m.end] if x not in STOPWORDS}
        if w not in entity_words(view, m.entity_id) and not shared_by_one(view, name | {w}):
            return w
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


# "the chargeback draft", "the management revenue draft", "the old revenue wiki": a document named by its
# type and the words before it. Words that only describe its status say nothing about its topic.
DOC_TYPE_WORDS = {"draft", "wiki", "handbook", "memo", "page", "note", "thread", "export", "proposal", "glossary",
                  "deck", "doc", "document", "slack"}
# A definition's or document's standing: how it is asked about, never what it is about. Normalized as question words
# are ("superseded" reads "supersed"), or they would never meet one.
STATUS_WORDS = set(words("old legacy superseded previous prior latest new current outdated deprecated obsolete "
                         "approved unapproved official authoritative governing proposed pending"))
# "any conflicting docs about churn?": documents said to disagree, not a document's name (core/read/disagreement.py).
DOC_STATUS_WORDS = STATUS_WORDS | set(words("working finance board " + " ".join(DISAGREEING_WORDS)))
# What is asked of a subject, not which: its meaning, definition or version.
ASKED_OF_WORDS = set(words("definition definitions define defined defining mean means meaning meant version versions"))


def subject_search_text(question: str, view) -> str:
    """The question as entity search reads it: without the words that say what KIND of thing or status is asked
    (drafts, wiki pages, "disagreeing", "superseded", "approved", "definition", "mean"). Those words match documents
    and drafts of whatever metric has some, so "what does cabin upgrades mean and are there drafts disagreeing?"
    found the one metric with a draft; a subject is matched on its own words or not at all, so an unknown or hidden
    one reads as a made-up one. A word a visible metric, model or source is named with ("Page views") stays: there
    it is a subject's word. Only the role's view is read, so a hidden name never keeps a word."""
    named = view.topic_names_by_word
    out, at = [], 0
    for t in tokenize(question):
        if t.norm not in named and (t.norm in STATUS_WORDS or t.norm in DOC_TYPE_WORDS or t.norm in ASKED_OF_WORDS
                                    or is_review_word(question[t.start:t.end])):
            out.append(question[at:t.start])
            at = t.end
    return " ".join("".join(out + [question[at:]]).split())


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


def document_reference(toks: list[Token], view) -> dict[str, tuple[str, tuple[int, int]]]:
    """Topic entities of the visible documents a question names by type and topic words ("the chargeback
    draft" is the draft that mentions chargebacks), each with the document's title and the words' span.
    Only visible documents are read, so a hidden one never answers and never changes the answer."""
    norms = [t.norm for t in toks]
    out: dict[str, tuple[str, tuple[int, int]]] = {}
    docs = None
    for k, w in enumerate(norms):
        if w not in DOC_TYPE_WORDS:
            continue
        j = k
        while j > 0 and k - j < 3 and norms[j - 1] not in STOPWORDS and norms[j - 1] not in DOC_STATUS_WORDS \
                and norms[j - 1] not in DOC_TYPE_WORDS and not norms[j - 1].isdigit():
            j -= 1
        topic = set(norms[j:k])
        if not topic:
            continue  # "the draft" alone names no particular document
        if docs is None:
            docs = view.of_kinds([Kind.documentation.value, Kind.note.value])
        for ev in docs:
            body = set(words(f"{ev.title} {ev.text}"))
            kind_words = set(words(f"{ev.title} {ev.authority_class} {ev.lifecycle.value} {ev.kind.value}"))
            if not topic <= body or w not in kind_words | ({"slack", "thread", "export"} if ev.kind is Kind.note else set()):
                continue
            for eid in _topics_of(ev, view):
                out.setdefault(eid, (ev.title, (j, k + 1)))
    return out


def _topics_of(ev, view) -> set[str]:
    """The visible topic entity a document is about: its own entity, or what it documents or is superseded by."""
    entities = view.entities
    if ev.entity_id in entities and entities[ev.entity_id].is_topic:
        return {ev.entity_id}
    targets = [t for ts in (ev.links or {}).values() for t in ts] + ([ev.superseded_by] if ev.superseded_by else [])
    out = {t for t in targets if t in entities and entities[t].is_topic}
    for obj in view.by_ids([t for t in targets if t not in entities]):
        if obj.entity_id in entities and entities[obj.entity_id].is_topic:
            out.add(obj.entity_id)
    return out


DBT_PREFIXES = {"fct", "stg", "dim", "int", "raw", "base", "mart", "seed", "rpt"}


def _compound(question: str, m: Match, toks: list[Token], norms: list[str], vocab: set[str], intent) -> bool:
    """A one-word name ("customer") or a spelled-out dbt name ("fct order") directly followed by a
    content word no visible name uses ("customer acquisition cost", "fct order cost") is part of a
    longer name for something else."""
    if m.end >= len(norms) or not (m.end - m.start == 1 or norms[m.start] in DBT_PREFIXES):
        return False
    nxt = norms[m.end]
    inclusion = inclusion_match(question)
    if inclusion and inclusion.start("verb") == toks[m.end].start:
        return False  # "does AOV leave out shipping?", "do bookings omit insurance?": the question's verb ends the name
    if m.end + 1 < len(norms) and norms[m.end + 1] == "of":
        return False  # "revenue net of refunds", "orders regardless of status": a modifier phrase, not a longer name
    if nxt in KIND_NOUNS:
        return False  # "raw_orders seed", "fct_orders model": the kind of the thing named, not a longer name
    if m.end - m.start > 1:  # a spelled-out dbt name: any content word after it makes a longer name
        written = question[toks[m.start].start:toks[m.end].start]
        if "_" in written and not written.endswith("_"):
            return False  # "fct_order_lines owner": the identifier ends where the underscores do
        vocab = set()
    return (nxt not in vocab and nxt not in GENERIC and not nxt.isdigit() and not _excluded(toks[m.end], intent)
            and toks[m.end].start - toks[m.end - 1].end <= 1)


def _foreign(w: str, vocab: set[str]) -> bool:
    return (w not in vocab and w not in GENERIC and w not in MONTH_WORDS and not w.isdigit() and len(w) > 2
            and w.isalpha())


# How much or how often something is asked ("how many passengers are seated?"): the size of the answer, not its subject.
QUANTITY_WORDS = set(words("many much often long big large small high low"))


def _words_nothing_visible_uses(question: str, toks: list[Token], intent, view) -> list[str]:
    """The question's content words that no object the role may see uses anywhere (no title, id, alias, text or
    column; one slip away counts as used): "acquire" and "CAC" when customer acquisition cost is hidden or absent.
    Asking, generic, kind and quantity words, dates, numbers and asides ("with payment events late, ...") say
    nothing about the subject and are never counted. Only the role's view is read, so a hidden object's words read
    exactly as made-up ones."""
    aside = _aside_tokens(question, toks)
    asked = [t.norm for k, t in enumerate(toks) if k not in aside and not _excluded(t, intent)
             and t.norm not in ASKING_WORDS and t.norm not in KIND_NOUNS and t.norm not in QUANTITY_WORDS
             and t.norm not in NOT_A_THING and _foreign(t.norm, set())]
    if not asked:
        return []
    vocab = visible_vocabulary(view)
    return [w for w in asked if not _known(w, vocab)]


def _made_up_compound(norms: list[str], view) -> bool:
    """"net bookings", "refund velocity", "gross bookings ratio": the first word of a visible name followed by
    a word that no visible name continues it with is a name for something else, not a paraphrase of it."""
    asked = set(norms)
    for w, nxt in zip(norms, norms[1:]):
        names = [n for _, n in view.names_by_first.get(w, ()) if len(n) > 1]
        # "average spend per order" shares two words with "average order value": a paraphrase, not a new name.
        if not names or any(asked & set(n[1:]) for n in names):
            continue
        # The word after may be a visible word too ("churn rate" when only "churn model" is visible): what
        # matters is that no visible name goes on that way.
        if _foreign(nxt, set()) and all(n[1] != nxt for n in names):
            return True
    return False


def _unknown_kind_name(norms: list[str], vocab: set[str]) -> bool:
    """"the disabled model", "the partner metric": a kind word after a content word no visible name uses
    names one thing of that kind that this role does not see, so nothing similar may stand in for it."""
    kinds = {"model", "source", "metric", "kpi", "seed", "table", "dataset", "dashboard", "exposure"}
    return any(w in kinds and k > 0 and norms[k - 1] not in GENERIC and norms[k - 1] not in vocab
               and norms[k - 1] not in MONTH_WORDS and not norms[k - 1].isdigit() and len(norms[k - 1]) > 2
               for k, w in enumerate(norms))


def _excluded(tok: Token, intent) -> bool:
    return any(s <= tok.start < e for s, e in intent.excluded_spans)


def _unexplained_spans(question: str, intent, view) -> list[tuple[int, int]]:
    """Identifiers ("fct_invoices", "raw.orders") that are no visible name: the user means one thing,
    and a similar-sounding visible object must not stand in for it."""
    out = []
    for m in IDENTIFIER.finditer(question):
        if any(s <= m.start() < e for s, e in intent.excluded_spans):
            continue
        # The whole identifier, or what follows a schema dot ("raw_finance.refunds" names "refunds"), must be
        # a visible name; a visible word at the end of a longer identifier ("int_x__joined_refunds") is not.
        parts = m.group().lower().split(".")
        readings = [tuple(normalize(w) for w in re.findall(r"[a-z0-9]+", ".".join(parts[i:]))) for i in range(len(parts))]
        if not any(_contains(n, readings[0]) or n in readings[1:] for n in view.phrases if n):
            out.append(m.span())
    return out


def _partial_identifier(question: str, intent, view) -> Choice | None:
    """"fct_finance__invoices" when only fct_finance__invoice_lines and ..._daily are visible: the identifier is
    the start of visible names, so they are offered (one is read as meant, with a note); a similar-sounding
    name elsewhere (fct_invoices) is never picked silently."""
    entities = view.entities
    for m in IDENTIFIER.finditer(question):
        if "_" not in m.group() or any(s <= m.start() < e for s, e in intent.excluded_spans):
            continue
        said = tuple(normalize(w) for w in re.findall(r"[a-z0-9]+", m.group().lower()))
        if said in view.phrases:
            continue
        found = sorted({e for e, n in view.names_by_first.get(said[0], ()) if len(n) > len(said) and n[:len(said)] == said},
                       key=lambda e: (min(len(n) for n in entities[e].names), e))
        if len(found) == 1:
            label = entities[found[0]].label
            return Choice("answer", found[0], note=f"read '{m.group()}' as {label}",
                          rule=f"'{m.group()}' is no visible name; the only visible name it begins is {found[0]}")
        if found:
            return Choice("clarify", options=found[:MAX_OPTIONS], note=f"'{m.group()}' begins several names",
                          rule=f"'{m.group()}' is no visible name; it begins " + ", ".join(found[:MAX_OPTIONS]))
    return None


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
        holding = sorted((e for e, ent in view.entities.items() if ent.is_topic and set(said) <= entity_words(view, e)),
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


def _contains(name: tuple[str, ...], words: tuple[str, ...]) -> bool:
    k = len(words)
    return any(name[i:i + k] == words for i in range(len(name) - k + 1))


def _decide_named(question, intent, view, cands: list[Candidate], toks, base, rule_prefix) -> Choice:
    entities = view.entities
    _score_named(question, intent, view, cands, toks)
    if cands and all(c.features["kind"] < 0 for c in cands):
        # "payment events staging model": the words name a source, the kind asked for is a model; a
        # visible entity of another kind whose name holds the same words is a candidate too.
        have = {c.entity_id for c in cands}
        named = set(have)
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
        return Choice("answer", lead.entity_id, related=others, candidates=ordered, **base,
                      rule=f"{lead.entity_id} ({entities[lead.entity_id].role}) is what the question asks about "
                      f"(scores: {detail})")
    # Close: related entities are one question about the one that leads by role (the metric);
    # unrelated ones are two questions, and which is meant is asked back.
    top = [c for c in ordered if lead.score - c.score < MARGIN]
    leader = min(top, key=lambda c: (ROLE_PRIORITY.get(entities[c.entity_id].role, 9), -c.score, c.entity_id))
    linked = view.linked_entities(leader.entity_id)
    unrelated = [c.entity_id for c in top if c.entity_id != leader.entity_id and c.entity_id not in linked]
    same = _kind_for_same_name(question, top, entities)
    if same is not None:
        leader, unrelated = same, []
    if unrelated:
        return Choice("clarify", options=[c.entity_id for c in top][:MAX_OPTIONS] if len(top) > 1 else ids,
                      candidates=ordered, rule="the question names several unrelated visible entities: "
                      + ", ".join(c.entity_id for c in top) + f" (scores: {detail})", **base)
    return Choice("answer", leader.entity_id, related=[i for i in ids if i != leader.entity_id], candidates=ordered,
                  rule=(rule_prefix + "; " if rule_prefix else "") + f"{leader.entity_id} "
                  f"({entities[leader.entity_id].role}) named in the question; related: "
                  + ", ".join(i for i in ids if i != leader.entity_id), **base)


def _kind_for_same_name(question: str, top: list[Candidate], entities) -> Candidate | None:
    """Objects of different kinds named by the same words ("orders" the metric and the model; raw_orders the
    source and the seed; a model and a source both called fct_enrollments): the question's words say which
    kind is meant (columns, grain, "built from": the model; loaded, fresh: the source, not a seed, which is
    never loaded from a system). With no such word, a model wins over a source or seed of its name: it is what
    an analyst queries. Otherwise None: ask back, or let the metric lead as before."""
    if len(top) < 2 or len({c.span for c in top}) != 1:
        return None

    def only(pred) -> Candidate | None:
        found = [c for c in top if pred(entities[c.entity_id])]
        return found[0] if len(found) == 1 else None

    def model(e):
        return e.role == "model" and not e.entity_id.startswith("exposure.")

    def source(e):
        return e.role == "source" and not e.entity_id.startswith("seed.")
    if ASKS_MODEL.search(question):
        return only(model)
    if ASKS_SOURCE.search(question):
        return only(source)
    if all(entities[c.entity_id].role in ("model", "source") for c in top):
        return only(model)
    return None


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


def _semantic(question, view, searcher, role, restrict: list[str], base) -> Choice | None:
    """Dense similarity (with a full-text share) over visible names, aliases and descriptions."""
    entities = view.entities
    text = subject_search_text(question, view)
    if all(t.norm in STOPWORDS or t.norm in ASKING_WORDS for t in tokenize(text)):
        return None  # only how it is asked is left ("what does it mean, and are there drafts disagreeing?")
    ranked = semantic_entities(searcher, text, searcher.view_filter(view), entities)
    ratio = bool(RATIO_ASKED.search(question))
    if restrict and ratio and not any(RATIO_ID.search(e) for e in restrict):
        restrict = []  # "share of customers we lost": a count of customers is not the ratio asked for
    if restrict:
        heads = [r for r in ranked if r[0] in restrict] or [(e, 0.0, 0.0) for e in restrict]
        # A bare head noun is weak evidence: "how long before a customer counts as lapsed" is about churn,
        # which similarity finds clearly ahead of every metric whose head is "customers".
        if ranked and ranked[0][0] not in restrict and ranked[0][1] >= SEMANTIC_ACCEPT \
                and ranked[0][2] >= SEMANTIC_MIN_VECTOR and ranked[0][1] - heads[0][1] >= SEMANTIC_MARGIN:
            restrict = []
        else:
            ranked = heads
    if not restrict and ratio:
        # "share of web sessions that end in an order": a ratio is asked for, so only a ratio metric can be
        # the answer, however close a table of sessions sounds. Similarity picks among those, with a wider lead.
        ratios = [r for r in ranked if entities[r[0]].role == "metric" and RATIO_ID.search(r[0])]
        if ratios and ratios[0][1] >= RATIO_MIN and (len(ratios) == 1 or ratios[0][1] - ratios[1][1] >= RATIO_MARGIN):
            best, score, _ = ratios[0]
            return Choice("answer", best, candidates=[Candidate(e, {"dense": sc}) for e, sc, _ in ratios[:MAX_OPTIONS]],
                          rule=f"the question asks for a ratio; semantic match among visible ratio metrics: {best} "
                          f"(score {score:.2f}" + (f"; next {ratios[1][0]} {ratios[1][1]:.2f})" if len(ratios) > 1 else ")"),
                          **base)
    if restrict:
        if len(ranked) == 1:
            return Choice("answer", ranked[0][0], rule="matched by the bare head noun of a visible metric name, "
                          "with no qualifier", candidates=[Candidate(ranked[0][0], {"head": 1.0})], **base)
    elif not ranked or ranked[0][1] < SEMANTIC_ACCEPT or ranked[0][2] < SEMANTIC_MIN_VECTOR:
        if ranked:
            return Choice("none", rule="semantic search found nothing close enough among visible entities", **base)
        return None
    cands = [Candidate(e, {"dense": s}) for e, s, _ in ranked[:MAX_OPTIONS * 2]]
    (best, score, _), rest = ranked[0], ranked[1:]
    close = [r for r in rest if score - r[1] < SEMANTIC_MARGIN]
    if close:
        group = [best] + [e for e, _, _ in close]
        sources = [e for e in group if entities[e].role == "source"]
        linked = view.linked_entities(best)
        if _asks_freshness(question) and len(sources) == 1:
            best = sources[0]
        elif all(e in linked for e in group[1:]):
            best = min(group, key=lambda e: ROLE_PRIORITY.get(entities[e].role, 9))
        else:
            return Choice("clarify", options=group[:MAX_OPTIONS], candidates=cands, **base,
                          rule="semantic search: " + ", ".join(f"{e} ({sc:.2f})" for e, sc, _ in [ranked[0], *close])
                          + " are too close to call")
    return Choice("answer", best, candidates=cands, **base,
                  rule=f"semantic match over visible names, aliases and descriptions: {best} "
                  f"(score {score:.2f}" + (f"; next {rest[0][0]} {rest[0][1]:.2f})" if rest else ")"))


def _asks_freshness(question: str) -> bool:
    from core.read.intent import ASPECTS
    return bool(ASPECTS["freshness_status"].search(question) or ASPECTS["freshness_policy"].search(question))


# ---- objects named exactly, and names that match nothing visible -----------------------------------
# A visible object asked for by its evidence id, its entity id or its full title is found, whatever the
# made-up-name rules say about the words inside it: those rules are for names the role cannot see.
OBJECT_ID = re.compile(r"(?<![\w.\-])[a-z0-9][\w\-]*(?:\.[\w\-]+)+|(?<![\w.\-])[a-z][a-z0-9]*(?:_+[a-z0-9]+)+", re.I)
# Kinds whose object is the thing asked about (its entity answers); the others (documentation, notes,
# lineage pages) are documents: asked for alone, the document itself is the answer (core/answer/documents.py).
ENTITY_KINDS = {Kind.metric_definition, Kind.model, Kind.source, Kind.freshness_policy, Kind.policy,
                Kind.freshness_observation}
# The words people use for an object that is a document of some kind: "the rebate memo", "the Q4 plan".
OBJECT_NOUNS = {normalize(w) for w in (
    "memo memos plan plans scenario scenarios deck decks proposal proposals briefing forecast budget playbook "
    "runbook presentation slides whitepaper wiki handbook page doc document note draft policy thread export "
    "email glossary").split()}


TOPIC_WORDS = {"about", "regarding", "concerning", "re", "wrt"}
BY_ORDER = {"id": 0, "title": 1, "name": 2}  # the same words as an id and as a name: the id is meant


@dataclass
class Reference:
    """A visible object (or an entity's objects) named exactly in the question, at characters start..end."""
    entity_id: str
    evidence: list = field(default_factory=list)
    start: int = 0
    end: int = 0
    by: str = "id"  # id | title

    @property
    def document(self) -> bool:
        """Named as a document: no object in it is of a kind whose entity is what is asked about."""
        return not any(e.kind in ENTITY_KINDS for e in self.evidence)


import weakref  # noqa: E402

# Per role view (views are per role and read-only): built once per view, on first need.
_TITLES: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()
_VOCABS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _per_view(cache, view, make):
    try:
        return cache[view]
    except (KeyError, TypeError):
        pass
    with budget.not_counted():  # once per view, as access.per_view
        value = make(view)
    try:
        cache[view] = value
    except TypeError:
        pass
    return value


def _title_index(view) -> dict[str, list]:
    """First word -> [(title words, evidence id, title)] of visible objects and [(document name, entity id, None)].

    Read from the view's (id, entity, title) rows: a cold process answering one question does not parse every
    visible object to find the few it names (a sixth of a cold `ask` on a 1,000-model project, docs/scale.md)."""
    titles: dict[str, list] = {}
    for evidence_id, _, title in view.titles:
        words_ = tuple(t.norm for t in tokenize(title))  # as the question is read ("w/" is "with")
        if len(words_) >= 2 and sum(w not in STOPWORDS for w in words_) >= 2:
            titles.setdefault(words_[0], []).append((words_, evidence_id, title))
    # A document's or lineage page's own name ("Board letter" for "Board letter - Q2 2024 payer mix") names it
    # too, unless a metric, model, source or policy goes by the same words.
    entities = view.entities
    for ent in entities.values():
        if ent.is_topic:
            continue
        # The words of an id about another object ("lineage.metric.jaffle_shop.orders") are that object's.
        from_id = {n for n in id_phrases(ent.entity_id) if n[0] in KIND_PREFIXES}
        for name in ent.names:
            if name in from_id:
                continue
            if len(name) >= 2 and sum(w not in STOPWORDS for w in name) >= 2 \
                    and not any(entities[e].is_topic for e in view.phrases.get(name, ())):
                titles.setdefault(name[0], []).append((name, ent.entity_id, None))
    return titles


def _vocabulary(view) -> set[str]:
    return view.name_words | view.object_words()


def named_objects(question: str, view, day=None) -> list[Reference]:
    """Visible objects the question names exactly: an evidence id or entity id written as an identifier, or a
    title of two or more words written out in full (case, punctuation and plurals aside). Longest first,
    overlaps removed. Only the role's view is read, so a hidden object's id or title is no reference at all:
    it then reads exactly as a made-up one."""
    from core.resolve.versions import retrievable
    found: list[Reference] = []

    def keep(objs, start, end, by):
        objs = list({e.evidence_id: e for e in objs if e.lifecycle.value != "retired"
                     and (day is None or retrievable(e, day))}.values())
        if objs:
            entity = objs[0].entity_id
            # Documents of one title are all quoted; otherwise the name is one entity's.
            docs = not any(e.kind in ENTITY_KINDS for e in objs)
            found.append(Reference(entity, [e for e in objs if docs or e.entity_id == entity], start, end, by))

    def by_id(said: str, objs: list) -> list:
        # An evidence id or entity id as written; objects in evidence id order, as the view reads them.
        return [e for e in objs if said in (e.evidence_id.lower(), e.entity_id.lower())]

    # Identifiers, and any other word with a digit or a separator in it that is an id as written ("KB-1042",
    # "doc:pricing/2024"); a plain word is a name, never an id.
    spans = [(m.start(), m.end()) for m in OBJECT_ID.finditer(question)]
    for m in re.finditer(r"\S+", question):
        a, b = m.span()
        while a < b and question[a] in "\"'`([{<":
            a += 1
        while b > a and question[b - 1] in "\"'`)]}>?!.,;:":
            b -= 1
        if b > a and not question[a:b].isalpha() and (a, b) not in spans:
            spans.append((a, b))
    written = view.by_written_ids({question[a:b] for a, b in spans}) if spans else []
    for a, b in spans:
        said = question[a:b].lower()
        objs = by_id(said, written)
        if objs:
            # An evidence id names that one object; an entity id names the entity's objects.
            exact = [e for e in objs if e.evidence_id.lower() == said]
            keep(exact or objs, a, b, "id")
    titles = _per_view(_TITLES, view, _title_index)
    toks = tokenize(question)
    norms = [t.norm for t in toks]
    for i, w in enumerate(norms):
        for title, ref, raw in titles.get(w, ()):
            if tuple(norms[i:i + len(title)]) != title:
                continue
            end = toks[i + len(title) - 1].end
            if raw is None:  # a document entity's name: its objects
                keep(by_id(ref.lower(), view.by_written_ids({ref})), toks[i].start, end, "name")
            else:
                same = [(eid, t) for words_, eid, t in titles[w] if words_ == title and t is not None]
                # Titles that differ only in marks ("Drink Revenue %", "Drink Revenue"): the one written as is.
                said = [(eid, t) for eid, t in same if t.lower() in question.lower()]
                longest = max((len(t) for _, t in said), default=0)
                same = [(eid, t) for eid, t in said if len(t) == longest] or same
                keep(view.by_ids([eid for eid, _ in same]), toks[i].start, end, "title")
    found.sort(key=lambda r: (-(r.end - r.start), r.start, BY_ORDER[r.by], r.entity_id))
    out: list[Reference] = []
    for r in found:
        if not any(o.start < r.end and r.start < o.end for o in out):
            out.append(r)
    return sorted(out, key=lambda r: r.start)


def visible_vocabulary(view) -> set[str]:
    """Every word of every object the role may see (the test for a name that matches nothing visible). Read
    from every visible object (in SQL: about a second a role at 100,000 objects), so built only for the questions
    that need it (a document or object noun)."""
    return _per_view(_VOCABS, view, _vocabulary)


def build_view(view) -> None:
    """Build what the reader keeps per view (the title index, the vocabulary) now, not on a first question."""
    _per_view(_TITLES, view, _title_index)
    visible_vocabulary(view)


def _known(w: str, vocab: set[str]) -> bool:
    """A word the visible catalog uses, or one slip away from one ("revenu", "handbok")."""
    if w in vocab or swap_of_known(w, vocab):
        return True
    if len(w) >= 5:
        from rapidfuzz import process
        return process.extractOne(w, vocab, scorer=OSA.distance, score_cutoff=1) is not None
    return False


def absent_object_name(toks: list[Token], view, intent=None, skip: set[int] = frozenset()) -> tuple[int, int] | None:
    """"the finance-only rebate memo": an object noun (memo, plan, scenario, ...) with the distinctive words
    before it, one of which matches nothing the role can see (no title, id, alias, text or column uses it).
    That object is not in the visible catalog, so nothing else may stand in for it. Returns the phrase's
    token span (the distinctive words and the noun)."""
    norms = [t.norm for t in toks]
    vocab = None
    for k, w in enumerate(norms):
        if w not in OBJECT_NOUNS or k in skip:
            continue
        j = k
        while j > 0 and k - j < 3 and norms[j - 1] not in STOPWORDS and norms[j - 1] not in OBJECT_NOUNS \
                and norms[j - 1] not in DOC_STATUS_WORDS and (j - 1) not in skip:
            j -= 1
        named = [n for n in range(j, k) if not (intent and _excluded(toks[n], intent))
                 and _foreign(norms[n], set()) and norms[n] not in KIND_NOUNS]
        if not named:
            continue
        vocab = vocab if vocab is not None else visible_vocabulary(view)
        if any(not _known(norms[n], vocab) for n in named):
            return j, k + 1
    return None
