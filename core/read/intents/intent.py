"""What a question asks, read from its text alone (no LLM): dates, aspects, versions, overrides.

Which entity it names is decided in `entities`, over the requester's visible catalog only.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

from core.read.dates.mention import DateMention
from core.read.dates.moves import anchored, so_far_versus
from core.read.dates.written import find_dates
from core.read.intents import name_pattern
from core.read.intents.catalog_changes import ChangesAsked, changes_asked
from core.read.intents.column_question import column_asked
from core.read.intents.dbt_listing import DBT_CONDITION_WORDS
from core.read.intents.described import asks_trouble, asks_trust
from core.read.intents.disagreement import asks_disagreement
from core.read.intents.gated import Gated
from core.read.intents.listing_filter import (
    CONDITION_WORDS,
    DRAFT_WORDS,
    EVERY_ONE,
    FRESHNESS_WORDS,
    NOT_LOADED,
    OWNER_NAMED,
    STILL_OPT,
    UPSTREAM_VERBS,
)
from core.read.intents.table_facts import table_facts_asked

ASPECTS: dict[str, re.Pattern] = {
    "definition": re.compile(r"\b(defin\w*|mean(s|ing|t)?|formula|calculat\w*|comput\w*|what (is|was) (the )?\w+ ?(revenue|rate|value|margin)|appl(y|ies|ied)|govern\w*)\b", re.I),
    "model": re.compile(r"\b(models?|dbt|tables?|relations?|back(s|ing|ed)?|support(s|ed|ing)?|implement\w*)\b", re.I),
    "grain": re.compile(r"\b(grain|granularity|one row per|level of detail)\b", re.I),
    "lineage": re.compile(r"\b(lineage|upstream|downstream|raw sources?|sources?(?![._]\w)|feeds?|fed|comes? from|derived?|depends?|dependenc\w*)\b", re.I),
    # "is the sessions data ok right now?": data said to be fine now asks whether it is loaded, as "fresh" does.
    "freshness_status": re.compile(r"\b(is [\w. ]{0,60} (fresh|stale|up to date|out of date|late)|fresh(?:ness)?\b|stale|up[- ]to[- ]date|out[- ]of[- ]date|last (loaded|load|updated|refresh\w*)|how old|loaded|"
                                   r"(?:data|tables?|feeds?|loads?|pipelines?)\s+(?:is\s+|are\s+)?(?:ok|okay|alright|all right|healthy|current|in good shape)|"
                                   r"(?:ok|okay|alright|all right|healthy|current|in good shape)\s+(?:right\s+)?now|"
                                   # "is the latest cost of goods data in?": the newest load is asked about
                                   r"(?:latest|newest|most recent)\s+(?:[\w.]+\s+){0,4}?(?:data|loads?|extracts?))\b", re.I),
    "freshness_policy": re.compile(r"\b(freshness (expectation|policy|threshold|sla)s?|expectations?|thresholds?|sla|warn after|error after)\b", re.I),
    "owner": re.compile(r"\b(who owns|owners?|owned by|ownership|who is responsible|maintain(s|er|ers|ed)?)\b", re.I),
    "history": re.compile(r"\b(history|historical|changed?|changes|previous|prior|over time|timeline)\b", re.I),
}
# Where something comes from, asked in so many words: the lineage aspect also reads "the orders source", which names
# a thing and asks no lineage (an owner question asking lineage too is answered by the definition flow).
LINEAGE_ASKED = re.compile(r"\b(lineage|upstream|comes? from|derived from|depends? on|fed by|feeds? (?:it|into))\b", re.I)
# Who owns something, however it is worded: "who looks after X?", "whose metric is X?", "who do I ask about X?".
OWNER_ASKED = re.compile(
    r"\b(who (?:owns|owned|maintains|is responsible for|is accountable for|looks after|is the owner of)|"
    r"who(?:'s| is) (?:the )?owner|owner of|owners? (?:for|is)|owned by whom|whose (?:metric|model|table) is|"
    r"who (?:should|do|can) i (?:ask|contact|talk to) about)\b", re.I)
# What reads something, asked in so many words: "which dashboards use X", "what depends on X", "what is built on top
# of X", "what breaks if X changes". Word order decides the direction: "what is built on X" reads X, "what is X built
# on" is read by X (no name follows "on"), and "which models does X use" is X's own reading ("do/does/did").
DOWNSTREAM_ASKED = re.compile(
    r"\b((?:(?:which|what|any) |^\s*)(?:dashboards?|reports?|exposures?|models?|metrics?|kpis?|assets?|things|objects|"
    r"consumers?|downstream \w+)\b(?!\s+(?:do|does|did)\b).{0,40}\b"
    # "which metrics can I read?" asks what the asker may see: the reader is no object of the catalog
    r"(?<!\bi )(?<!\bwe )(?<!\byou )(?:use|uses|using|used(?!\s+(?:by|in|for)\b)|read|reads|reading|depend|depends|"
    r"depending|consume|consumes|consuming|"
    r"(?:built on|build on|rel(?:y|ies) on|fed by|feed off|sit on)(?=\s+\w)|downstream)|downstream of|"
    r"what (?:uses|reads|depends on|consumes|rel(?:y|ies) on)|used (?:by|in) (?:any|which|what|some)\b|"
    # "what does X feed?", "where does it feed into?", "what does it flow into?": X is the one feeding
    r"(?:what|where|which\s+\w+)\s+(?:does|do|did|will|would)\s+(?:(?![?;]).){1,60}?\b(?:feed|flow)(?:\s+into)?"
    r"(?!\s+(?:from|off|on)\b)(?=\s*(?:[?.;]|$))|"
    r"(?:what|anything|everything|things|stuff)(?:'s|\s+is|\s+are|\s+gets?|\s+that(?:'s|\s+is|\s+are|\s+gets?)?)?"
    r"\s+built\s+on(?:\s+top\s+of)?(?=\s+\w)|who uses|impact of changing|"
    r"what (?:would |will )?breaks?|what (?:is|gets|would be) (?:affected|impacted)|impact of|"
    # "which metrics are computed from X", "what KPIs are based on X": made from X, so they read it. A name must follow:
    # "what model is X computed from?" asks what X reads.
    r"(?:which|what)\s+(?:\w+\s+)?(?:metrics?|kpis?|measures?|models?|dashboards?|reports?)\s+(?:(?:are|is|were|was|"
    r"gets?|that(?:'s|\s+are|\s+is)?)\s+)?(?:computed|calculated|derived|made|sourced|produced|aggregated|based)\s+"
    r"(?:from|on|off|upon)(?=\s+\w))\b", re.I)
# What something reads, asked in so many words: "what feeds X", "which raw tables feed X", "the sources of X",
# "what is X built from", "where does X come from". Read only in a clause DOWNSTREAM_ASKED does not ask ("what does X
# feed" is rare; "what depends on X" is not X's dependency).
UPSTREAM_ASKED = re.compile(
    LINEAGE_ASKED.pattern + r"|\b(?:feeds?|sources? (?:of|for|behind)|raw (?:sources?|tables?)|"
    r"(?:built|made) from|built on(?:\s+top\s+of)?(?!\s*\w))", re.I)
# The explicit words: they win over any phrase that leans the other way ("what feeds X downstream?").
DIRECTION_WORDS = {"upstream": re.compile(r"\bupstream\b", re.I), "downstream": re.compile(r"\bdownstream\b", re.I)}
# One part of a two-part question: "which raw tables feed X and what uses X?" asks each way in its own clause.
_CLAUSE = re.compile(r"[,;]|\b(?:and|but|also|plus|then)\b", re.I)


def lineage_directions(question: str) -> set[str]:
    """Which ways the question asks lineage: upstream (what feeds it), downstream (what reads it), both or neither,
    read clause by clause. In a clause an explicit "upstream"/"downstream" decides; else a phrase that asks what
    reads it ("built on top of X", "what uses X"), else one that asks what feeds it."""
    out: set[str] = set()
    for clause in _CLAUSE.split(question):
        said = {d for d, word in DIRECTION_WORDS.items() if word.search(clause)}
        if said:
            out |= said
        elif DOWNSTREAM_ASKED.search(clause):
            out.add("downstream")
        elif UPSTREAM_ASKED.search(clause):
            out.add("upstream")
    return out


def _directed(kind: str | None, directions: set[str]) -> str | None:
    """The downstream intent as the direction words have it: "what gets built on top of X downstream?" asks what
    reads X though no downstream cue matched the whole sentence; "what uses X upstream?" asks what X reads (the
    definition flow's lineage). Other intents (owner, compare, ...) keep their kind."""
    if kind == "downstream" and directions == {"upstream"}:
        return None
    if kind is None and "downstream" in directions:
        return "downstream"
    return kind


# Which model backs something, asked in so many words: "which model feeds active customers", "what model is behind
# it", "what's its backing model", "what table does it read", "what backs it". The model aspect alone also reads "who
# owns the orders model", which names a thing and asks for no model; "which models use X" asks what reads X.
_MODEL_NOUN = r"(?:models?|tables?|relations?)"
MODEL_ASKED = re.compile(
    r"\b(?:which|what)(?:'s|\s+is|\s+are)?\s+(?:(?:the|its|their|a)\s+)?(?:\w+\s+)?" + _MODEL_NOUN
    + r"\b(?!\s+(?:use|uses|using|read|reads|reading|depend|depends|consume|consumes|downstream)\b)|"
    r"\bwhat(?:'s|\s+is)?\s+(?:backs|backing|behind|powers|feeds|implements|underlies|sits behind)\b|\bbacked by\b",
    re.I)
# What something is, asked in a clause of its own: "what is net revenue and who owns it", "who owns X, and how is it
# calculated?", "define X and name its owner". A clause that asks the owner ("what is the owner of X", "what's X's
# owner", "who owns the X definition") asks no definition: the owner's answer is the whole answer.
_MEANING = re.compile(r"\bwhat(?:'s|\s+is|\s+are|\s+was|\s+were)\s+\w|\b(?:define|explain|describe)\b|"
                      r"\b(?:defin\w*|mean(?:s|ing|t)?|formula|calculat\w*|comput\w*)\b", re.I)


def meaning_asked(question: str) -> bool:
    """Whether some clause asks what the subject is (its definition) without asking who owns it."""
    return any(_MEANING.search(c) and not ASPECTS["owner"].search(c) and not OWNER_ASKED.search(c)
               for c in _CLAUSE.split(question))


# "what is the average order value and is its data fresh?", "what's AOV, and who owns it?": a clause of its own
# asking what the subject is, whatever its name ends with, beside a clause asking something else. The clause asks
# nothing else itself: "what is the freshness of X", "what's stale about X", "what is the model behind X" do not.
_WHAT_IS = re.compile(r"^\W*(?:so\s+|ok\s+|and\s+)?what(?:'s|\s+is|\s+was)\s+(?:the\s+|our\s+)?\w", re.I)


def asks_what_it_is(question: str) -> bool:
    return any(_WHAT_IS.search(c) and not any(p.search(c) for k, p in ASPECTS.items() if k != "definition")
               and not OWNER_ASKED.search(c) and not VALUE_CUES.search(c) and not MAGNITUDE.search(c)
               for c in _CLAUSE.split(question) if c)


# A named conflicting source: "the old wiki says", "according to the draft", "the note says".
DOC_NOUNS = re.compile(r"\b(wiki|draft|memo|note|page|handbook|proposal|slack|thread|email|deck)s?\b", re.I)
CONFLICT_CUES = re.compile(r"\b(says?|said|claims?|states?|according to|per the|mentions?|is that (still )?(current|right|true|correct))\b", re.I)

# A column asked about: "where does `product_price` in revenue come from?", "column customer_id of orders".
# A backticked word alone ("what is `net_revenue`?") is an entity name, not a column.
# Identifiers are read from their first underscore and from a word's start only, so that a long run of word
# characters is read once, not once per position (this pattern was quadratic: issue 23).
# Without backticks a column is an identifier: "where does product_price in revenue come from?", "the
# product_price column of order_items", "column lineage for product_price" (never "column lineage" itself).
_NOT_COLUMN = (r"(?!(?:lineage|of|for|in|from|the|a|an|level|name|names|is|are|does|do|did|have|has|and|or|with|that|"
               r"which|to|on|this|these|those|it|they)\b)")
COLUMN = re.compile(
    r"`(?P<tick>[A-Za-z_]\w*)`(?=\s+(?:in|of|from)\b)|"
    r"\bcolumns?\s+" + _NOT_COLUMN + r"`?(?P<word>[A-Za-z_]\w*)`?|"
    r"(?<![\w`])`?(?P<before>[A-Za-z][^\W_]*_\w+)`?\s+column\b|"
    r"\bcolumn[- ]level\s+lineage\s+(?:of|for)\s+(?:the\s+)?`?(?P<level>[A-Za-z]\w*)`?|"
    r"\bcolumn\s+lineage\s+(?:of|for)\s+(?:the\s+)?`?(?P<after>[A-Za-z]\w*)`?|"
    r"\b(?:where\s+(?:does|do|did|is|are)|where's|trace|origin\s+of)\s+(?:the\s+)?(?P<ident>[a-z][^\W_]*_\w+)\s+"
    r"(?:column\s+)?(?:in|of|from)\b(?!\s+\d)", re.I)

# "does CAC include agency fees?", "is tax excluded from net revenue?": a yes/no question about what a
# definition counts. The term is what follows the verb (to the end of the clause). The subject said before an active
# verb is read by core/read/names/subject.py INCLUSION_SUBJECT, which keeps the same verbs in their active forms.
INCLUSION_VERBS = (r"includ(?:e|es|ed|ing)|count(?:s|ed)?|cover(?:s|ed)?|contain(?:s|ed)?|exclud(?:e|es|ed|ing)|"
                   r"omit(?:s|ted|ting)?|leaves? out|left out")
INCLUDES = re.compile(
    r"\b(?:does|do|did|is|are|was|were|will)\b(?P<between>[^?]{1,80}?)\b(?P<verb>" + INCLUSION_VERBS +
    r")\b\s+(?P<term>[^?.;,]{2,80})", re.I)
# "does bookings leave agency fees out?": the term stands between the verb and its particle. The particle ends the
# clause, and the term is one phrase: "leave draft and roll out", "leave customers who opted out" say other things.
ONE_PHRASE = r"(?:(?!\b(?:and|or|but|who|whom|that|which|when|where|if)\b)[^?.;,]){2,60}?"
OUT_ENDS = r"\s+out(?=\s*(?:$|[?.!,;:]))"
_LEFT_OUT_AROUND = re.compile(
    r"\b(?:does|do|did|will)\b(?P<between>[^?]{1,80}?)\b(?P<verb>leaves?)\s+(?P<term>" + ONE_PHRASE + r")" + OUT_ENDS,
    re.I)


@lru_cache(maxsize=512)
def inclusion_match(question: str) -> re.Match | None:
    """The inclusion question in `question`, if it asks one (its groups: between, verb, term). Pure, and asked of one
    question by the intent and by every one-word name the ranker weighs, so read once."""
    return INCLUDES.search(question) or _LEFT_OUT_AROUND.search(question)


# "are refunds excluded from net revenue?", "is shipping counted in AOV?": said passively, the term is what stands
# between the auxiliary and the verb, and what follows the verb is the subject.
_PASSIVE_TAIL = re.compile(r"(?:from|in|into|within|by|under|of|as\s+part\s+of)\b", re.I)
_EXCLUDING = re.compile(r"exclud|omit|leaves?\b|left out", re.I)


def included_term(m: re.Match) -> tuple[str, bool]:
    """The term an inclusion question asks about, and whether it asks the exclusion way ("does X exclude Y?",
    "is Y left out of X?"), whose yes is the other side of the include way's."""
    term, between = m.group("term").strip(), m.group("between").strip()
    if _PASSIVE_TAIL.match(term) and between:
        term = between
    return term, bool(_EXCLUDING.match(m.group("verb")))

# A dot inside a name ("raw_shop.orders") does not end the clause.
PAST_FRESHNESS = re.compile(r"\b(?:was|were)\b(?:[^?.;]|\.(?=\w)){0,80}?\b(?:fresh|stale|up[- ]to[- ]date|out[- ]of[- ]date|late|"
                            r"loaded)\b", re.I)
VERSION = re.compile(r"\b(?:v|version\s*)(?P<v>\d+(?:\.\d+)?)\b", re.I)

# Requests to step outside policy. Matched on the requester's own words; document text is never read here.
OVERRIDES: dict[str, re.Pattern] = {
    "ignore_rules": re.compile(
        r"\b(ignore|disregard|bypass|override|skip|forget|circumvent)\b[\w\s,'-]{0,40}?\b(registry|rules?|polic(y|ies)|permissions?|acls?|access|governance|restrictions?|instructions|guardrails?|system prompt)\b", re.I),
    "follow_document": re.compile(
        r"\b(follow|obey|execute|apply|do what)\b[\w\s,'-]{0,40}?\b(note|notes|instructions?|document|memo|page|says)\b", re.I),
    "reveal_restricted": re.compile(
        # Not "list every document": a listing is of the asker's view whatever it asks for, so it steps outside nothing.
        r"\b((reveal|show|leak|expose|dump|list|print|give)\b[\w\s,'-]{0,40}?\b(restricted|confidential|private|hidden|secret|other roles?)|"
        r"(pretend|act|answer)\b[\w\s,'-]{0,20}?\b(as|like)\b[\w\s,'-]{0,12}?\b(admin|finance|root|superuser)|"
        r"as if i (were|was|am)\b|even (if|though) i('m| am)? (not|can't|cannot)\b)", re.I),
}


@dataclass
class Intent:
    dates: list[DateMention]
    aspects: set[str]
    versions: list[tuple[str, int]]  # (label, character offset)
    overrides: list[str]
    doc_nouns: set[str]
    names_conflict: bool
    excluded_spans: list[tuple[int, int]] = field(default_factory=list)
    column: str | None = None  # a column whose lineage is asked for
    # discover | compare | owner | downstream | document | upcoming | tests | columns | test_results | last_run |
    # properties | column_meaning | column_find; None: a definition
    kind: str | None = None
    listing: str | None = None  # discover: metric | model | source | document
    value: bool = False  # the question asks for the number, not only the definition (core/answer/values.py)
    value_grain: str | None = None  # month | quarter | year: one value per calendar bucket
    # The grain was read from one word that may be part of a name ("monthly"): the subject's name keeps it
    # ("monthly swim visits in Q2" is one value for the quarter), core/answer/values.py decides.
    grain_word: str | None = None
    restate: bool = False  # also compute under another version (today's, or one named) and say the difference
    includes: str | None = None  # "does CAC include agency fees?": the term asked about (agency fees)
    # "which metrics changed in 2025?", "what changes are coming?": the catalog's own changes, when no subject is named
    changes: ChangesAsked | None = None
    # "was X fresh at the end of Q2 2024?", "were the loads late on 3 May?": freshness asked of a moment past, which
    # a day written alone sets (its end), core/read/dates/when.py
    moment: bool = False
    # "under the old definition": restated under the version before the one governing the period, not today's
    restate_previous: bool = False
    # "under v2", "under version 1" written with no "definition": a restatement when a number is asked of a period
    under_version: bool = False
    # The asking words of a table's make-up ("tags", "contract", "tested"): a word that may be part of a name instead,
    # which only the role's names can tell (Reading.cues_outside_names)
    kind_spans: list[tuple[int, int]] = field(default_factory=list)

    @property
    def timestamps(self) -> list[DateMention]:
        return [d for d in self.dates if d.kind == "timestamp"]

    @property
    def reporting(self) -> list[DateMention]:
        """Dates and periods that set the reporting date (not timestamps, not document names)."""
        return [d for d in self.dates if d.kind not in ("timestamp", "ambiguous") and not d.qualifier]


def parse_intent(question: str, today=None, fy_start: int = 1) -> Intent:
    """`today` (the evaluation date) lets relative dates be read; `fy_start` is the catalog's fiscal
    year start month."""
    dates = anchored(question, find_dates(question, today, fy_start))  # "the quarter before Q1 2025"
    dates = so_far_versus(question, dates, today, DateMention)  # "so far this year vs last"
    # "under today's definition" names a version (the one in effect now), not a reporting date.
    restating = [m.span() for m in RESTATE.finditer(question)]
    dates = [d for d in dates if not (d.now and any(a <= d.span[0] and d.span[1] <= b for a, b in restating))]
    versions = [(m.group("v"), m.start()) for m in VERSION.finditer(question)]
    aspects = {name for name, pattern in ASPECTS.items() if pattern.search(question)}
    if asks_trouble(question) or asks_trust(question):
        # "anything look off with the payments feed?" (the stale way), "can I trust yesterday's number?" (the fresh way)
        aspects.add("freshness_status")
    if "freshness_policy" in aspects and not re.search(r"\bis\b.*\b(fresh|stale)\b|\bloaded\b", question, re.I):
        aspects.discard("freshness_status")
    if aspects and "definition" not in aspects and asks_what_it_is(question):
        aspects.add("definition")
    nouns = {m.group(1).lower() for m in DOC_NOUNS.finditer(question)}
    overrides = [name for name, pattern in OVERRIDES.items() if pattern.search(question)]
    spans = [d.span for d in dates] + [(m.start(), m.end()) for m in VERSION.finditer(question)]
    # "under today's definition", "under the old rules": which version, said in words; names no subject of its own
    spans += [m.span() for m in RESTATE.finditer(question) if m.group(0).lower().startswith("under ")]
    col = COLUMN.search(question)
    if col:
        spans.append((col.start(), col.end()))
        aspects.add("lineage")
    inc = inclusion_match(question)
    included = included_term(inc) if inc else None
    if included:
        aspects.add("inclusion")
        if included[1]:
            aspects.add("exclusion")  # asked the exclusion way: Yes when the definition excludes it
    disagreement = asks_disagreement(question)
    if disagreement:
        # "are there drafts that contradict how churn is defined?": yes or no, from the answer's conflicts.
        aspects.add("disagreement")
    kind, listing, cue = _intent_match(question, disagreement)
    directions = lineage_directions(question)
    kind = _directed(kind, directions)
    col_kind, _, col_spans = column_asked(question)
    if col_kind and kind is None:
        # "what does column minutes of rides mean?", "which column of rides is deprecated?"
        kind = col_kind
        spans += col_spans
    facts, fact_spans = table_facts_asked(question)
    kind_spans: list[tuple[int, int]] = []
    if facts and kind is None:
        # "which tests run on X?", "what columns does X have?": the table's own make-up (core/answer/intents/table_facts.py).
        kind, kind_spans = facts, fact_spans
        spans += fact_spans
    # Asked beside lineage or what a definition includes, a change is that question's ("what feeds X, and did they
    # change?"): the definition flow answers it, with no yes or no of its own.
    changed = None if directions or included else CHANGED_ASKED.search(question)
    if changed:
        # "has churn changed this year?": yes or no, from the versions in effect over the period (the comparison's).
        aspects.add("changed")
        # "churn for all of 2025, did the definition change mid year?": a period said before the change is asked is the
        # period to answer for; the definition flow's answer over it (split where a version took over) says both.
        period_first = any(d.span[1] <= changed.start() for d in dates if not d.now)
        if kind is None and not period_first:
            kind, cue = "compare", changed.span()
    # "upstream"/"downstream": which ways lineage is asked. Upstream is the lineage aspect's answer (the definition
    # flow's); downstream with upstream asks for both halves (core/answer/intents/route.py).
    aspects |= directions | ({"lineage"} if "upstream" in directions else set())
    if kind == "owner":
        # "who looks after X?", "whose metric is X?": an owner question asks the owner, however it is worded (the
        # definition flow, which answers one that asks more, names the owner when this aspect is read).
        aspects.add("owner")
    if kind in ("owner", "downstream", "compare") and cue:
        # "who owns", "which dashboards use": asking words, not part of any name. Only the cue's own words
        # are set aside; a name inside the cue ("how did churn change") stays matchable.
        spans += [(cue[0] + m.start(), cue[0] + m.end()) for m in re.finditer(r"[A-Za-z']+", question[cue[0]:cue[1]])
                  if m.group().lower() in CUE_WORDS]
    return Intent(dates=dates, aspects=aspects, versions=versions, overrides=overrides, doc_nouns=nouns,
                  names_conflict=bool(nouns and CONFLICT_CUES.search(question)) or bool(nouns & {"draft", "wiki"}),
                  excluded_spans=spans, column=next((v for v in col.groupdict().values() if v), None) if col else None,
                  kind=kind, kind_spans=kind_spans, listing=listing, includes=included[0] if included else None,
                  changes=changes_asked(question, [d.span[0] for d in dates]),
                  moment=bool(PAST_FRESHNESS.search(question)), **value_reading(question, dates, inc))


# Asking for the number. Values never change which version governs: they are computed after the answer, under it.
VALUE_CUES = re.compile(
    r"\b(how much|how many|value of|the number|numbers?|figures?|totals?|by (?:month|quarter|year)|"
    r"(?:per|each|every) (?:month|quarter|year)|monthly|quarterly|yearly|month[- ]by[- ]month|quarter[- ]by[- ]quarter|"
    r"restat\w*|would .{1,60} be|compute|calculate the)\b", re.I)
WHAT_WAS_BEFORE = re.compile(r"\bwhat (?:was|were) (?:the |our )?(?:total )?[\w\s'-]{1,40}?\s$", re.I)
WHAT_WAS = re.compile(r"\bwhat (?:was|were) (?:the |our )?(?:total )?[\w\s'-]{1,40}?\b"
                      r"(?:in|for|during|over|last|this|on|through|yesterday)\b", re.I)
# A magnitude in other words: "how big was X", "how high were X", "what did X come to / total / amount to",
# "the size of X". An adjective right before a verb asks how big the metric was; one before "a"/"an" ("how big
# a change was v2") asks how big something else was, and is read in DEFINITION_ASKED below.
_MAGNITUDE_ADJ = r"(?:big|bigger|large|larger|high|higher|low|lower|small|smaller|huge|great|strong|weak)"
MAGNITUDE = re.compile(
    r"\bhow " + _MAGNITUDE_ADJ + r"\s+(?:was|were|is|are|will|would|did|does|do|has|have|had|'s)\b|"
    r"\bwhat (?:did|does|do|will|would)\b[\w\s'-]{1,60}?\b(?:come to|amount(?:ed)? to|add up to|sum to|total|"
    r"reach|land at|end up at)\b|"
    r"\b(?:size|magnitude) of\b|\bthe (?:figure|number|amount|total) for\b", re.I)
NOT_A_VALUE = re.compile(r"\b(defin\w*|mean(s|ing|t)?|formula|govern\w*|appl(y|ies|ied)|model|lineage|sources?|owns?|"
                         r"owner|fresh\w*|stale|loaded|grain|draft|wiki|memo|note|version (?:of|in effect))\b", re.I)
# How a definition is made, what it counts, how big a change or an effect was: about the definition, whatever
# period or magnitude word comes with it.
DEFINITION_ASKED = re.compile(
    r"\b(?:is|are|was|were|gets?|got)\b[\w\s'-]{0,60}?\b(?:computed|calculated|measured|derived|worked out|made up|"
    r"built|constructed|put together)\b|"
    r"\bwhat (?:does|do|did|will|would)\b[\w\s'-]{1,60}?\b(?:include|exclude|count|cover|contain|consist of|"
    r"leave out|omit)\b|"
    r"\bhow (?:" + _MAGNITUDE_ADJ + r"|much of) an?\b", re.I)
RESTATE = re.compile(
    r"\b(under (?:today'?s|the current|current|the new|new|the latest|latest|the old|old|the previous|previous|"
    r"the prior|prior|the former|former|the earlier|earlier|"
    r"(?:v|version\s*)\d+(?:\.\d+)?)(?:'s)? (?:definition|version|rules?)|restat\w*|"
    r"(?:change|switch|move|redefinition)\b.{0,30}\b(?:move|moved|shift|shifted|affect|affected|impact|impacted)|"
    r"how much did .{1,60}\b(?:move|moved|shift|change|affect))\b", re.I)
UNDER_VERSION = re.compile(r"\bunder\s+(?:v|version\s*)\d+(?:\.\d+)?\b", re.I)
OLD = re.compile(r"\b(?:old|previous|prior|former|earlier)\b", re.I)
GRAIN = [("month", re.compile(r"\b(by month|monthly|per month|each month|every month|month[- ]by[- ]month)\b", re.I)),
         ("quarter", re.compile(r"\b(by quarter|quarterly|per quarter|each quarter|every quarter|quarter[- ]by[- ]quarter)\b", re.I)),
         ("year", re.compile(r"\b(by year|yearly|annually|per year|each year|every year|year[- ]by[- ]year)\b", re.I))]


def value_reading(question: str, dates: list[DateMention], inclusion: re.Match | None) -> dict:
    """Whether the question asks for values (and by which grain, and a restatement). A number is asked for in
    so many words ("how much", "by quarter", "what would ... be"), as a magnitude ("how big was", "what did X
    come to"), by "what was X in <period>", or by a metric and a period alone ("AOV last month"); never when it
    asks what something means, how it is computed, what it includes, what backs it or owns it."""
    restate = bool(RESTATE.search(question))
    said = [(m.start(), g, m.group(0)) for g, p in GRAIN for m in p.finditer(question)]
    # "monthly X by quarter": a grain in so many words wins over an adjective that may be X's name
    said.sort(key=lambda x: (" " not in x[2], x[0]))
    grain = said[0][1] if said else None
    word = said[0][2].lower() if said and " " not in said[0][2] and "-" not in said[0][2] else None
    periods = [d for d in dates if d.kind not in ("timestamp", "ambiguous") and not d.qualifier]
    # `inclusion`: parse_intent's own inclusion_match of the question, read once and passed on.
    asks_about = NOT_A_VALUE.search(question) or DEFINITION_ASKED.search(question) or inclusion
    cued = VALUE_CUES.search(question) or MAGNITUDE.search(question)
    value = (restate or bool(cued and not asks_about)
             or bool(periods and WHAT_WAS.search(question) and not asks_about)
             # "what was gmv the month after March 2026?": the period itself follows the name, no preposition between
             or bool(not asks_about and any(WHAT_WAS_BEFORE.search(question[:d.span[0]]) for d in periods))
             or bool(periods and not asks_about and len(re.findall(r"[A-Za-z']+", question)) <= 8
                     # "AOV last month", and a day said as one ("bookings yesterday") when the metric has a day's value
                     and any(d.kind == "period" or d.rule.startswith("yesterday") for d in periods)))
    under = bool(UNDER_VERSION.search(question))
    if under and not restate and value and periods:  # "pass holders in Q2 2026 under v2": restated under v2
        restate = True
    old = RESTATE.search(question)
    return {"value": value or restate, "value_grain": grain or ("month" if restate else None), "restate": restate,
            "grain_word": word, "under_version": under,
            "restate_previous": bool(old and OLD.search(old.group(0)))}


# Questions the catalog answers without a definition: what can I see, how do two versions differ, who owns it,
# what reads it, what a document says, what is about to change. Checked in this order; the first match wins.
_LIST_NOUN = r"(?:metrics|kpis|measures|models|sources|tables|datasets|documents|docs|pages|dashboards|exposures|reports)"
_LISTED_NOUN = r"(?:" + _LIST_NOUN + r"|" + EVERY_ONE + r")"
# "list (or show me) the sources behind conversion rate" asks for lineage, not a listing.
_NOT_LINEAGE = (r"(?!\s+(?:behind|feeding|that (?:feed|back|build|use|read|depend|consume)|which|using|reading|upstream|"
                r"into|backing|used by|of|under)\b)")
_NOUN = re.compile(r"\b(metric|kpi|measure|model|source|table|dataset|document|doc|page|dashboard|exposure|report|"
                   r"draft)s\b", re.I)
_ONE_NOUN = re.compile(r"\b(metric|kpi|measure|model|source|table|dataset|document|doc|page|dashboard|exposure|report|"
                       r"draft)\b", re.I)
_DOC_WORD = r"(?:memo|wiki|page|doc|document|handbook|note|deck|draft|proposal|glossary|thread|email|slide|export|faq|readme|spec|post|message)s?"
# Freshness asked of the whole catalog, whatever it calls the loaded things: "is anything stale?", "what data is
# late?", "are all the feeds up to date?", "any stale tables?". A question naming one thing ("is the churn data
# stale?") names no quantity and stays the definition flow's (core/answer/ask.py _freshness_tables).
_LOADED = r"(?:data|datasets?|sources?|tables?|feeds?|loads?|pipelines?|extracts?)"
_FRESHNESS_LISTING = (
    r"(?:anything|everything|something|what(?:'s|\s+is|\s+are)|"
    r"(?:what|which|any|all)\s+(?:of\s+)?(?:the\s+|our\s+|my\s+)?(?:\w+\s+)?" + _LOADED + r")"
    r"\s+(?:that(?:'s|\s+is|\s+are)?\s+|(?:is|are|was|were|has|have)\s+)?" + STILL_OPT + r"(?:" + FRESHNESS_WORDS + r")|"
    r"(?:what|which|any|are there any|are there)\s+(?:stale|late|overdue|out[- ]of[- ]date|fresh|up[- ]to[- ]date)\s+"
    r"(?:\w+\s+)?" + _LOADED + r"|"
    # "what didn't load on time?", "what has not been refreshed today?": nothing loaded is named, the negation says it.
    r"what\s+(?:that\s+)?(?:" + NOT_LOADED + r")")
# Freshness asked of what reads the loaded data, one or many: "which metrics are affected by stale data?", "is any
# model built on late sources?", "which dashboards read stale tables?", "is any metric stale?". Answered through each
# one's upstream lineage (core/answer/intents/discover.py).
_READERS = r"(?:metrics?|kpis?|measures?|models?|dashboards?|reports?|exposures?)"
_STALE_READERS = (
    r"(?:what|which|any|all|(?:are|is|do|does|has|have)\s+(?:there\s+)?(?:any|all))\s+(?:of\s+)?(?:the\s+|our\s+|my\s+)?"
    r"(?:\w+\s+)?" + _READERS + r"\s+(?:(?:\w+\s+){0,3}?" + UPSTREAM_VERBS + r"\b.{0,40}?|(?:(?:are|is|were|was)\s+)?"
    + STILL_OPT + r")(?:" + FRESHNESS_WORDS + r")")
# "any drafts about revenue?": drafts are what is about to change, so asking for them asks what is coming. Words that
# name documents, not a time: in a question whether they disagree ("are there any drafts that contradict how churn is
# defined?") they name what disagrees, and the question is not read as upcoming (which would answer as of today, with
# notes about "upcoming" nobody asked for).
DRAFTS_ASKED = re.compile(r"\b(proposals?|any drafts?|drafts? (?:about|for|on|of|to))\b", re.I)
# Drafts listed, or things listed by the approval they lack: "show me the drafts that haven't been approved yet", "list
# the drafts", "which documents are awaiting approval?", "show me the documents that are drafts". Drafts of a subject
# ("drafts about revenue", "drafts of churn") stay what is coming (DRAFTS_ASKED).
# "how many" leads a listing as "which" does ("how many drafts are there?", "how many metrics can I see?"): the
# listing's headline says the count.
_WHICH = r"(?:what|which|how\s+many)"
# A count asked in other words: "the total number of metrics", "how many models are there in total?". They say how
# many, never what about: a listing's topic is read without them ("total" only beside a kind: "total revenue" is a name).
_COUNTED = r"\s+(?:the\s+|all\s+(?:the\s+)?|our\s+|my\s+)?(?:\w+\s+)?" + _LIST_NOUN + r"\b"
_COUNT_OF = r"(?:the\s+)?(?:total\s+)?(?:number|count)\s+of"
COUNT_WORDS = re.compile(r"\b(?:in\s+total|in\s+all|altogether|all\s+told|" + _COUNT_OF + r"(?=" + _COUNTED + r")|"
                         r"total(?=\s+" + _LIST_NOUN + r"\b))", re.I)
_LIST_LEAD = (r"\b(?:list|show(?:\s+me)?|give\s+me|which|how\s+many|what(?:\s+are)?)\s+"
              r"(?:all\s+(?:of\s+)?|(?:every|each)\s+(?=\w+\b(?!\s+(?:of|in)\b)))?(?:the\s+|our\s+|my\s+)?(?:\w+\s+)?")
DRAFTS_LISTED = Gated(
    _LIST_LEAD + r"(?:" + _LISTED_NOUN + r"|drafts)\s+(?:(?:that|which)\s+)?" + STILL_OPT + r"(?:(?:are|is|were|was)\s+)?"
    + STILL_OPT + r"(?:" + DRAFT_WORDS + r")\b|"
    # the drafts themselves, asked for whole: "list the drafts", "which drafts are there?", "what drafts can I see?"
    + _LIST_LEAD + r"(?:drafts|(?:(?<=every )|(?<=each ))draft)\b(?=\s*(?:$|[?.!;]|(?:are\s+)?there\b|exist|(?:do|can|could|may)\s+(?:i|we|you)\b|"
    r"(?:i|we|you)\s+(?:can|may)\s+see\b|(?:are\s+)?(?:open|outstanding|pending|in\s+progress)\b))", re.I,
    needs=r"draft|approv|sign|ratif")
# A comparison asked only by "differ"/"different" ("do any pages differ from how churn is defined?"): with a question
# whether anything disagrees, it asks that, not for two versions side by side.
_DIFFER_CUE = re.compile(r"\s*(?:diff|differ|differs|difference|differences|different)\s*", re.I)
INTENTS: list[tuple[str, re.Pattern | Gated]] = [
    # First: "which models depend on stale sources?" lists models, it does not ask what reads a thing called "stale".
    ("discover", re.compile(r"\b(?:" + _STALE_READERS + r")\b", re.I)),
    # Before the owner question: "which metrics does Lea Dubois own?" lists what she owns; "who owns churn?" asks who.
    ("discover", OWNER_NAMED),
    # "models whose name starts with fct_", "fct_* models": listed by how their names are written.
    ("discover", name_pattern.LISTED),
    # Before a document is asked for by a word for it: "show me the drafts that haven't been approved yet" lists them.
    ("discover", DRAFTS_LISTED),
    ("compare", re.compile(
        r"\b(compare|comparison|contrast|diff|difference|differences|differ|what changed|what has changed|what's changed|vs\.?|versus|"
        r"what(?:'?s| is| was) (?:different|changed)|how (?:is|was|are|were) .{1,40} different|what(?:'?s| is) new (?:in|about|with)|"
        r"(?:\d{4}|[qh]\d\s*\d{4})\s+(?:vs\.?|versus|against)\s+(?:\d{4}|[qh]\d\s*\d{4})|"
        r"what did .{1,40} change|how (?:did|has|does) .{1,60} change|changes? (?:between|from)|"
        r"(?:v|version\s*)\d+\s+(?:vs\.?|versus|against)\s+(?:v|version\s*)\d+)\b", re.I)),
    ("owner", OWNER_ASKED),
    ("downstream", DOWNSTREAM_ASKED),
    ("document", re.compile(
        r"\b(what (?:does|did|do) (?:the |our |this |that )?[\w\s'-]{0,40}?\b" + _DOC_WORD
        + r"\s+(?:say|says|state|mention|propose|cover|tell)|"
        r"what(?:'s| is) in (?:the |our )?[\w\s'-]{0,40}?\b" + _DOC_WORD + r"|"
        r"(?:summari[sz]e|quote|open|read me|show me) (?:the |our )?[\w\s'-]{0,40}?\b" + _DOC_WORD + r"\b)", re.I)),
    # "models without tests", "incremental models", "sources with no freshness check": a plural of what is listed and
    # a dbt condition said of it (core/read/intents/dbt_listing.py), with or without "which", "list" or "show me".
    # Both listing patterns are compiled only for a question that could match them (core/read/intents/gated.py): every
    # branch names a kind in the plural, or (the freshness listings) a freshness word.
    ("discover", Gated(r"\b" + _LIST_NOUN + r"\b(?:(?![?.;]).){0,50}?(?:" + DBT_CONDITION_WORDS + r")|(?:"
                       + DBT_CONDITION_WORDS + r")\s+(?:\w+\s+)?" + _LIST_NOUN + r"\b", re.I, needs=_LIST_NOUN)),
    ("discover", Gated(
        r"\b((?:list|enumerate)\b.{0,40}?\b" + _LISTED_NOUN + _NOT_LINEAGE + r"|"
        + _WHICH + r"\s+(?:\w+\s+)?" + _LIST_NOUN
        + r"\s+(?:(?:can|could|may) (?:i|we|you)|do (?:i|we|you) have|are (?:there|available|visible|defined)|"
        r"exist|does (?:the|this) catalog)\b|"
        r"show me (?:all |the |every |each |my )?(?:\w+\s+)?" + _LISTED_NOUN + _NOT_LINEAGE + r"|(?:all|every) (?:the )?(?:\w+\s+)?"
        + _LIST_NOUN + r" (?:i|we) (?:can|may) see|"
        # "which metrics are about customers", "what models can marketing see", "are there any churn metrics"
        + _WHICH + r"\s+(?:\w+\s+)?" + _LIST_NOUN + r"\s+(?:are|is)\s+(?:there\s+)?(?:about|on|for|related to|"
        r"relating to|covering|concerning|regarding|around|tagged)|"
        + _WHICH + r"\s+(?:\w+\s+)?" + _LIST_NOUN + r"\s+(?:(?:can|could|may)\s+(?:\w+\s+){1,2}?"
        # "which sources does net revenue read?" asks for its lineage: "does X read" is not access
        r"(?:see|access|view|read|have|get)|(?:does|do)\s+(?:\w+\s+){1,2}?(?:see|access|view|have|get))|"
        r"are there (?:any )?(?:\w+\s+)?" + _LIST_NOUN + r"|" + _COUNT_OF + _COUNTED + r"|"
        r"^\s*any (?:\w+\s+)?" + _LIST_NOUN + r"\s+(?:about|on|for|related to|covering|around)|"
        + _WHICH + r"\s+(?:\w+\s+)?" + _LIST_NOUN + r"\s+do (?:we|i|you) (?:track|have|use|report|publish|maintain|own)|"
        # "which models are deprecated?", "are any metrics without an owner?": the whole visible catalog, filtered
        r"(?:what|which|how\s+many|are any|any|are there any)\s+(?:\w+\s+)?" + _LIST_NOUN + r"\s+" + STILL_OPT
        + r"(?:(?:are|is|were|was)\s+)?" + STILL_OPT + r"(?:" + CONDITION_WORDS + r")|" + _FRESHNESS_LISTING + r"|" + _STALE_READERS + r")\b",
        re.I, needs=_LIST_NOUN + r"|" + FRESHNESS_WORDS + r"|\bevery\b|\beach\b")),
    ("upcoming", re.compile(
        r"\b(upcoming|planned|pending|proposed|coming|future|next version|will .{1,40} change|"
        r"going to change|about to change|not yet in effect)\b", re.I)),
    ("upcoming", DRAFTS_ASKED),
]
# Whether the subject changed, asked yes or no: "has churn changed this year?", "did the definition of X change last
# quarter?", "has X been redefined since 2024?", "were there any changes to X in 2025?". Only as a clause's opening:
# "what has changed in X" and "how did X change" ask what, and stay comparisons without a yes or no.
# The verb ends its clause or is followed by when: "did the change to churn affect X?", "did the net revenue change
# break any dashboards?" and "was the formula changed to exclude X?" use the word otherwise, and ask something else.
_CHANGE_ENDS = (r"(?=\s*(?:$|[?,.;:!)]|(?:in|during|since|between|from|after|before|over|through|this|last|on|at|lately|"
                r"recently|much|mid|yet|again|ever|when|while|and|or|year|quarter|month|week|today|q[1-4]|\d)\b))")
CHANGED_ASKED = re.compile(
    r"(?:^|[,;:]\s*|\b(?:and|or|but|so|also)\s+)(?:(?:has|have|had|did|was|were)\b[^?;,]{1,80}?\b"
    r"(?:chang(?:e|ed)|redefined|revised)\b" + _CHANGE_ENDS + r"|(?:(?:were|are|have)\s+there\s+(?:been\s+)?)?"
    r"any\s+changes?\s+(?:to|in|for|of)\b)", re.I)
CUE_WORDS = set("""contrast different who whose owns owned owner owners maintains maintain responsible accountable looks after ask contact
talk which what dashboard dashboards report reports exposure exposures model models metric metrics asset assets things
objects consumer consumers use uses using read reads reading depend depends consume consumes built build rely relies
fed feed sit downstream uses break impact changing compare comparison diff difference differences differ changed
change changes top gets anything everything redefined revised been has have had did any""".split())
_LISTING = {"dashboard": "exposure", "exposure": "exposure", "report": "exposure",
            "metric": "metric", "kpi": "metric", "measure": "metric", "model": "model", "source": "source",
            "table": "source", "dataset": "source", "document": "document", "doc": "document", "page": "document",
            "draft": "draft"}


def _intent_match(question: str, disagreement: bool | None = None) -> tuple[str | None, str | None, tuple[int, int] | None]:
    if disagreement is None:  # parse_intent passes its own reading; intent_kind reads it here
        disagreement = asks_disagreement(question)
    for kind, pattern in INTENTS:
        m = pattern.search(question)
        if m and disagreement and _not_with_disagreement(kind, pattern, m):
            continue
        if m:
            # "is any metric stale?" names one
            noun = (_NOUN.search(m.group(0)) or _ONE_NOUN.search(m.group(0))) if kind == "discover" else None
            return kind, (_LISTING[noun.group(1).lower()] if noun else None), m.span()
    return None, None, None


def _not_with_disagreement(kind: str, pattern: re.Pattern | Gated, m: re.Match) -> bool:
    """A question whether drafts or pages disagree (core/read/intents/disagreement.py) is answered by the definition flow,
    whose conflicts are what disagrees: the words that name those documents do not make it a listing ("are there wiki
    pages that contradict ...", "any conflicting docs about X?"), an upcoming-changes question ("are there any drafts
    that ...") or, by "differ" alone, a comparison ("do any pages differ from ...")."""
    return (kind == "discover" or pattern is DRAFTS_ASKED
            or (kind == "compare" and bool(_DIFFER_CUE.fullmatch(m.group(0)))))


def intent_kind(question: str) -> tuple[str | None, str | None]:
    """The intent kind, and for discover which kind of thing is listed."""
    return _intent_match(question)[:2]


# Whether the subject changed, asked of the past in so many words: "when did it change", "how has its definition
# changed", "has it been redefined", "what's new in it", "its history". Never "when will it change" (upcoming) nor
# "last updated" (a load, which the definition flow's freshness answers).
CHANGE_ASKED = re.compile(
    r"\b(?:when|how|whether|if)\s+(?:did|has|have|had|was|were)\b[^,;?.]{0,60}?\b(?:chang(?:e|ed)|redefined|revised)\b|"
    r"\b(?:has|have|had|did|was|were)\b[^,;?.]{1,60}?\b(?:chang(?:e|ed)|redefined|revised)\b|"
    r"\bwhat(?:'s|\s+is|\s+has|\s+was)?\s+(?:changed|new|different)\b|\bhistory\b|\bover time\b", re.I)


# Whether something was in force, asked yes or no: "was the draft of X in force in Q3?", "did v2 of X apply on ...?",
# "is X's draft what governed then?". The question opens with its verb; "what applied" asks which, not whether.
IN_FORCE_ASKED = re.compile(
    r"^\W*(?:so\s+|and\s+|ok\s+)?(?:was|were|is|are|did|does|do|has|had)\b[^?;]{0,120}?\b(?:in\s+force|in\s+effect|"
    r"effective|in\s+use|valid|appl(?:y|ies|ied)|govern(?:s|ed|ing)?)\b", re.I)


def asks_in_force(question: str) -> bool:
    return bool(IN_FORCE_ASKED.search(question))


# "is there a draft for X?", "any drafts pending for X?", "does X have a draft?", "do we have a draft of X?", "has
# anyone drafted a change to X?": whether such a thing exists, asked yes or no (not whether it governs).
EXISTS_ASKED = re.compile(
    r"^\W*(?:so\s+|and\s+|ok\s+)?(?:(?:is|are)\s+there\b|any\s+(?:\w+\s+)?(?:drafts?|proposals?)\b|(?:does|do|did)\s+[^?;]{1,80}?\bhave\b|"
    r"(?:has|have)\s+(?:any|some)\s*(?:one|body)\s+(?:drafted|proposed|written|started)\b)", re.I)


def asks_exists(question: str) -> bool:
    return bool(EXISTS_ASKED.search(question))


DRAFTED = re.compile(r"\b(?:re)?draft(?:ed|ing)\b", re.I)


def says_drafted(question: str) -> bool:
    """"has anyone drafted a change to X?" asks after a draft by its verb, which the document nouns do not hold."""
    return bool(DRAFTED.search(question))


def asks_beyond_owner(question: str) -> bool:
    """Whether the words also ask what only the definition flow answers beside an owner: where it comes from,
    which model backs it, what it is."""
    return bool(LINEAGE_ASKED.search(question) or MODEL_ASKED.search(question) or meaning_asked(question))


# Which kind of reader a downstream question asks for: "which dashboards use X", "what models read X".
DOWNSTREAM_ASKED_KINDS = [
    ("exposure", re.compile(r"\b(dashboards?|reports?|exposures?|notebooks?|apps?|applications?|analys[ie]s)\b", re.I)),
    ("model", re.compile(r"\bmodels?\b", re.I)), ("metric", re.compile(r"\b(metrics?|kpis?)\b", re.I))]


# A kind is asked by the words that ask ("which metrics", "any dashboard", "list the reports", "how many other
# models"), or first in a clause ("dashboards using X?"). Elsewhere a kind word is the subject's own: "which metrics use
# the fct_orders model?" asks for metrics, and "what reads the fct_orders model?" for anything.
_KIND_ASKED_BY = re.compile(
    r"(?:^|[,;:?!.]|\band|\b(?:which|what|any|every|all|how many|list|show|name|are there|is there)"
    r"(?:\s+(?:of|the|other|downstream|\w+(?=\s*$)))*)\s*$", re.I)


def downstream_kind(question: str) -> str | None:
    asked = [(m.start(), k) for k, p in DOWNSTREAM_ASKED_KINDS for m in p.finditer(question)
             if _KIND_ASKED_BY.search(question[:m.start()])]
    return min(asked)[1] if asked else None
