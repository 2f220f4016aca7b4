"""The condition of a whole-catalog question: "which models are deprecated?", "which metrics have no owner?",
"which sources are stale?".

Read from the question's words alone. The listing it filters (core/answer/intents/discover.py) is the role's view, so a
"none" answer counts only what the asker may see.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from core.read.intents import dbt_listing, name_pattern
from core.read.intents.gated import Gated

# Freshness said of loaded data: late past its thresholds (stale), or within them (fresh). "not fresh" and "failed
# its freshness check" are the stale side however they are put.
# Loading said as a verb, with when it happened: "loaded on time", "did everything load today?", "landed late",
# "failed to load". A bare "load" is not freshness ("which models load orders?"): only with a time word after it, or
# failing before it.
_LOAD = r"(?:(?:been|got|gotten|get)\s+)?(?:load(?:s|ed|ing)?|land(?:s|ed|ing)?|arriv(?:e|es|ed|ing)|refresh(?:es|ed|ing)?|ran|run)"
_LOAD_WHEN = r"(?:on\s+time|in\s+time|today|tonight|this\s+morning|overnight|recently|as\s+(?:expected|scheduled))"
# Not loaded, however the negation is said: "did not load today", "haven't loaded today", "what's not running on time".
_AUX = r"(?:is|are|was|were|has|have|had|did|do|does)"
# "Running" is a load only as a schedule is kept: "not running on time" (never "which models are running today?").
NOT_LOADED = (r"(?:(?:" + _AUX + r"\s+)?(?:not|never)|" + _AUX + r"n['\u2019]t)\s+(?:" + _LOAD + r"\s+" + _LOAD_WHEN
              + r"|running\s+(?:on|in)\s+time)")
STALE_WORDS = (r"stale|late|overdue|out[- ]of[- ]date|not\s+(?:fresh|up[- ]to[- ]date|current)|"
               + NOT_LOADED + r"|" + _LOAD + r"\s+late|"
               r"fail(?:ed|ing|s)?\s+to\s+" + _LOAD + r"|"
               r"(?:fail(?:ed|ing|s)?|breach(?:ed|ing|es)?)\s+(?:their\s+|its\s+|the\s+)?(?:freshness|sla)"
               r"(?:\s+(?:checks?|tests?|thresholds?|polic(?:y|ies)))?")
FRESH_WORDS = (r"fresh|up[- ]to[- ]date|on\s+time|" + _LOAD + r"\s+" + _LOAD_WHEN + r"|"
               r"pass(?:ed|ing|es)?\s+(?:their\s+|its\s+|the\s+)?freshness(?:\s+(?:checks?|tests?))?")
FRESHNESS_WORDS = STALE_WORDS + "|" + FRESH_WORDS  # the stale side first: "not fresh" is read before "fresh"
_STALE = re.compile(r"(?:" + STALE_WORDS + r")\Z", re.I)

# Said of a condition as holding now, which is all a listing's condition ever says: "which documents are still
# drafts?", "which metrics are currently deprecated?", "which docs are drafts yet?", "which sources are stale right
# now?". Beside a condition (core/read/intents/intent.py reads them between the verb and it) they neither change it
# nor name a topic. Not "today", which the date reader reads.
STILL = (r"(?:still|currently|presently|now|right\s+now|yet|already|as\s+(?:of\s+)?(?:now|yet)|at\s+present|"
         r"at\s+(?:the\s+|this\s+)?moment|as\s+we\s+speak)")
STILL_OPT = r"(?:" + STILL + r"\s+)?"
_STILL_BEFORE = re.compile(r"\b" + STILL + r"\s+\Z", re.I)
_STILL_AFTER = re.compile(r"\A\s+" + STILL + r"\b", re.I)
# A lifecycle said with "in": "which documents are (still) in draft?", "metrics in draft status".
_IN_DRAFT = r"in\s+drafts?(?:\s+(?:status|state|form|stage))?"

# A draft said by the approval it still lacks: "not (yet) approved", "haven't been approved", "unapproved", "awaiting
# approval", "pending sign-off", "yet to be signed off". Only a draft lacks approval, so each is the draft lifecycle,
# as "still drafts" is; "approved" alone is no condition.
_APPROVED = r"(?:approved|signed[- ]?off|ratified)"
_APPROVAL = r"(?:approval|sign[- ]?off|ratification)"
UNAPPROVED = (r"unapproved|(?:(?:" + _AUX + r"\s+)?(?:not|never)|" + _AUX + r"n['\u2019]t)\s+(?:yet\s+)?(?:been\s+)?"
              r"(?:yet\s+)?" + _APPROVED + r"|yet\s+to\s+be\s+" + _APPROVED + r"|"
              r"(?:awaiting|pending|waiting\s+(?:for|on)|needing|in\s+need\s+of|without|lacking)\s+(?:an?\s+|any\s+)?"
              + _APPROVAL)
_UNAPPROVED = re.compile(r"(?:" + UNAPPROVED + r")\Z", re.I)
# "the drafts that haven't been approved yet": the words joining a draft to its lack of approval are the condition too.
_UNAPPROVED_AFTER = re.compile(r"\A(?:\s+(?:that|which|who|are|is|were|was|have|has|still|currently|yet)){0,3}\s+(?:"
                               + UNAPPROVED + r")\b", re.I)

# The draft lifecycle however it is said: core/read/intents/intent.py lists "the drafts that ..." by them.
DRAFT_WORDS = _IN_DRAFT + r"|" + UNAPPROVED + r"|drafts?"

# The words, as a regex fragment: core/read/intents/intent.py reads a listing question ending in one of them as discover.
CONDITION_WORDS = (r"deprecated|" + _IN_DRAFT + r"|" + UNAPPROVED + r"|drafts?|superseded|retired|unowned|ownerless|"
                   + dbt_listing.DBT_CONDITION_WORDS + "|"
                   r"(?:have|has|having|with)\s+no\s+(?:\w+\s+)?owners?|without\s+(?:an?\s+|any\s+)?(?:\w+\s+)?owners?|"
                   r"(?:lack|lacks|lacking|missing)\s+(?:an?\s+)?(?:\w+\s+)?owners?|no\s+owners?|" + FRESHNESS_WORDS)
CONDITION = Gated(r"\b(?:" + CONDITION_WORDS + r")\b", re.I)  # compiled when a listing is first read
LIFECYCLES = {"deprecated": "deprecated", "draft": "draft", "drafts": "draft", "superseded": "superseded",
              "retired": "retired"}
# A word that makes what follows the question's topic, not its condition: "the metrics about late payments".
_TOPIC_LEAD = re.compile(r"\b(?:about|on|for|of|to|regarding|concerning|covering|around|re|named|called)\s+\Z", re.I)
# What a metric, model or dashboard does with the data upstream of it: "affected by", "built on", "reads", "depends
# on". Before a freshness condition ("which metrics are affected by stale data?", "which models depend on sources
# that failed their freshness check?") these words are part of the condition, never its topic, and an "on" or "of"
# among them does not make what follows a topic.
UPSTREAM_VERBS = (r"(?:affected|impacted|hit|touched|built|based|depend(?:s|ing|ent)?|rel(?:y|ies|ying|iant)|"
                  r"read(?:s|ing)?|use[sd]?|using|fed|feed(?:s|ing)?|draw(?:s|n|ing)?|pull(?:s|ed|ing)?|"
                  r"consum(?:e|es|ed|ing)|sourced|derived|computed|calculated|downstream|sit(?:s|ting)?|come|comes|"
                  r"ha(?:ve|s|ving)|with)")
_FILLER = r"(?:the|any|some|our|data|sources?|tables?|feeds?|loads?|inputs?|upstream|that|which|are|is|were|was|have|has|been)"
_UPSTREAM_LEAD = re.compile(r"\b" + UPSTREAM_VERBS + r"(?:\s+(?:by|on|upon|from|off|of|in))?(?:\s+" + _FILLER
                            + r")*\s*\Z", re.I)
# A yes/no question: it opens with a verb or "any" ("is anything stale?", "are all sources fresh?"). "all", "every",
# "everything" ask whether every one meets the condition; otherwise whether any does.
_YES_NO = re.compile(r"^\W*(?:so\s+|and\s+|ok\s+|quick(?:ly)?\s+)?(?:is|are|was|were|has|have|does|do|did|any|anything)\b",
                     re.I)

# A person or team named as the owner: "which metrics does Lea Dubois own?", "what does Growth Analytics own?",
# "list Priya Shah's metrics", "metrics owned by Jonas", "which models are maintained by the data team?". The name is
# whatever stands where the owner goes: it is never looked up here, only compared with owners the role can see.
_KINDS = r"(?:metrics|kpis|measures|models|sources|tables|datasets|documents|docs|pages|dashboards|exposures|reports)"
_OWN = r"(?:own|owns|maintain|maintains|manage|manages|look\s+after|looks\s+after|be\s+responsible\s+for)"
# Words never inside a name: with them the words around "own" are another clause ("what does bookings mean and who
# maintains it?" asks two things of bookings), and after a name said last, a date or another clause follows
# ("metrics owned by Jonas as of March").
_NOT_IN_NAME = (r"(?:and|or|who|whom|what|which|that|how|why|when|where|is|are|was|were|do|does|did|mean|means|"
                r"include|includes|use|uses|as|on|in|at|for|before|after|during|since|until|with|today|now|currently|"
                r"please)")
_NAME = r"[\w.&-]+(?:\s+(?!" + _NOT_IN_NAME + r"\b)[\w.&-]+){0,4}?"
OWNER_NAMED = re.compile(
    r"\b(?:which|what)(?:\s+(?:\w+\s+)?" + _KINDS + r")?\s+(?P<a>(?:does|do|did)\s+(?!" + _NOT_IN_NAME
    + r"\b)(?P<n1>" + _NAME + r")\s+" + _OWN + r")\b|"
    r"\b" + _KINDS + r"\s+(?:that\s+)?(?:(?:are|is|were|was)\s+)?(?P<b>(?:owned|maintained|managed)\s+by\s+"
    r"(?!" + _NOT_IN_NAME + r"\b)(?P<n2>" + _NAME + r"))(?=\s*(?:$|[?.,;:!)]|\s" + _NOT_IN_NAME + r"\b))|"
    r"\b(?:list|show(?:\s+me)?|give\s+me|what\s+are|which\s+are)\s+(?:all\s+(?:of\s+)?)?(?P<c>(?!" + _NOT_IN_NAME
    + r"\b)(?P<n3>" + _NAME + r")['\u2019]s)\s+(?:\w+\s+)?" + _KINDS + r"\b", re.I)
# Said where a name goes but naming no one: "which metrics do we own?" lists what the asker sees, "owned by whom"
# asks who, "list today's metrics" dates the list.
_NOT_A_NAME = {"i", "we", "you", "they", "us", "me", "my", "our", "your", "their", "whom", "who", "anyone", "someone",
               "everyone", "nobody", "no", "one", "today", "yesterday", "tomorrow", "this", "that", "it", "the", "a"}
# A time said where a name goes: "list last year's metrics" dates the list.
_TIME_WORDS = {"year", "quarter", "month", "week", "day", "today", "yesterday", "tomorrow"}
# Said around a name but not part of the owner string: "the Growth Analytics team" is "Growth Analytics".
_NAME_LEAD = {"the", "our", "my"}
_NAME_TAIL = {"team", "teams", "squad", "group", "department", "dept"}


def name_words(text: str) -> list[str]:
    """A name's words as they are compared: lowercased whole words, so "Lea" meets "Growth Analytics (Lea Dubois)"."""
    return re.findall(r"\w+", text.casefold())


def owner_matches(name: str, owner: str | None) -> bool:
    """Is `owner` (an owner string like "Growth Analytics (Jonas Berg)") the named person or team? Every word of the
    name, in order and side by side, among the owner's words: "Jonas", "Berg", "Jonas Berg", "Growth Analytics"."""
    said, whole = name_words(name), name_words(owner or "")
    return bool(said) and any(whole[i:i + len(said)] == said for i in range(len(whole) - len(said) + 1))


def _owner_named(question: str) -> Condition | None:
    m = OWNER_NAMED.search(question)
    if m is None:
        return None
    group = next(g for g in "abc" if m.group(g) is not None)
    said = m.group({"a": "n1", "b": "n2", "c": "n3"}[group]).split()
    while said and said[0].lower() in _NAME_LEAD:
        said = said[1:]
    while said and said[-1].lower() in _NAME_TAIL:
        said = said[:-1]
    name = " ".join(said).strip(".,;:!?")
    if not name_words(name) or name.lower() in _NOT_A_NAME or name_words(name)[-1] in _TIME_WORDS:
        return None
    return Condition("owner", name, m.span(group))


@dataclass(frozen=True)
class Condition:
    field: str  # lifecycle | owner | freshness | name | dbt
    value: str | None  # the lifecycle asked for; owner: the person or team named, None for "no owner"; stale | fresh;
    # name: "prefix:fct_", "suffix:_daily" or "contains:order"; dbt: "tag:finance", "tests:without", ...
    # (core/read/intents/dbt_listing.py)
    span: tuple[int, int]  # where the question says it (not a topic word)

    def phrase(self, many: bool) -> str:
        """The predicate as said of one listed thing, or of several: "is deprecated", "have no owner"."""
        if self.field == "name":
            how, part = self.value.split(":", 1)
            return name_pattern.phrase(how, part, many)
        if self.field == "dbt":
            return dbt_listing.phrase(self.value, many)
        if self.field == "owner" and self.value:
            return f"{'are' if many else 'is'} owned by {self.value}"
        if self.field == "owner":
            return "have no owner" if many else "has no owner"
        if self.value == "draft":
            return "are drafts" if many else "is a draft"
        return f"{'are' if many else 'is'} {self.value}"


def listing_condition(question: str) -> Condition | None:
    written = name_pattern.read(question)  # "models whose name starts with fct_"
    if written:
        return Condition("name", f"{written[0]}:{written[1]}", written[2])
    recorded = dbt_listing.dbt_condition(question)  # before the owner: "models owned by the finance group"
    if recorded:
        return Condition("dbt", *recorded)
    named = _owner_named(question)
    if named:
        return named
    m = next((m for m in CONDITION.finditer(question) if not _TOPIC_LEAD.search(question[:m.start()])
              or _upstream_lead(question, m)), None)
    if m is None:
        return None
    said = m.group().lower()
    if said in LIFECYCLES or re.fullmatch(_IN_DRAFT, said) or _UNAPPROVED.match(said):
        span = m.span()
        joined = _UNAPPROVED_AFTER.match(question[span[1]:]) if LIFECYCLES.get(said) == "draft" else None
        if joined:
            span = (span[0], span[1] + joined.end())
        return Condition("lifecycle", LIFECYCLES.get(said, "draft"), _with_still(question, span))
    if re.search(r"owner|unowned", said):
        return Condition("owner", None, _with_still(question, m.span()))
    lead = _upstream_lead(question, m)
    return Condition("freshness", "stale" if _STALE.match(said) else "fresh",
                     _with_still(question, (lead.start() if lead else m.start(), m.end())))


# Things of a kind said to lack approval: "which documents are awaiting approval?", "drafts pending sign-off". A
# listing's condition, not a reviewer asking for the queue ("anything awaiting approval?" names no kind).
# One of a kind after "every" or "each" is all of them: "list every document not approved", "show me each model".
EVERY_ONE = (r"(?:(?<=every )|(?<=each ))(?:metric|kpi|measure|model|source|table|dataset|document|doc|page|dashboard|"
             r"exposure|report|draft)\b")
_LACK_APPROVAL = re.compile(r"\b(?:" + _KINDS + r"|drafts|" + EVERY_ONE + r")\s+(?:(?:that|which)\s+)?(?:(?:are|is|were|was)\s+)?"
                            + STILL_OPT + r"(?:" + UNAPPROVED + r")\b", re.I)


def lists_unapproved(question: str) -> bool:
    return bool(_LACK_APPROVAL.search(question))


def _with_still(question: str, span: tuple[int, int]) -> tuple[int, int]:
    """`span` widened over a "still", "currently" or "yet" right beside it: part of how the condition is said, so
    never a topic the listing must be about ("which docs are drafts yet?" is not about "yet")."""
    before = _STILL_BEFORE.search(question[:span[0]])
    after = _STILL_AFTER.match(question[span[1]:])
    return (before.start() if before else span[0], span[1] + (after.end() if after else 0))


def _upstream_lead(question: str, m: re.Match) -> re.Match | None:
    """The "affected by" / "built on" words right before a freshness condition, if the question says them."""
    if not re.fullmatch(FRESHNESS_WORDS, m.group(), re.I):
        return None  # "which metrics depend on deprecated models?" asks of the models, not the metrics' lifecycle
    return _UPSTREAM_LEAD.search(question[:m.start()])


def yes_no(question: str) -> str | None:
    """How a whole-catalog question asks yes or no: "any" (is anything stale?), "every" (is everything up to
    date?), or None when it asks for the list (which sources are stale?)."""
    opening = _YES_NO.search(question)
    if not opening:
        return None
    # The quantifier the question opens with decides: "are all sources fresh?" asks of every one, while "is anything
    # stale across all our sources?" and "are any sources stale at all?" ask whether any is.
    head = question[opening.end():][:40]
    said = opening.group().split()[-1].lower()
    if said in ("any", "anything") or re.match(r"\W*(?:there\s+)?(?:any|anything)\b", head, re.I):
        return "any"
    return "every" if re.match(r"\W*(?:(?:the|of|our|my)\s+)*(?:all|every|everything|each)\b", head, re.I) else "any"
