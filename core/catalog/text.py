"""Tokens and word lists shared by intent and entity matching."""
from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache

_TOKEN = re.compile(r"[a-z0-9]+")
_WITHOUT = re.compile(r"/o\b")
# "churn's owner", "what's churn": an "'s" clitic (either apostrophe) is not a word of its own. Kept as "s" it stood
# between a name and the noun after it, so "churn's definition" read as a longer name ("churn s") for something else.
# Replaced by spaces, so token offsets still point into the question. ("customers' owner" already reads "customers".)
_CLITIC_S = re.compile(r"(?<=[a-z0-9])['\u2019]s(?![a-z0-9_])")  # the same test as catalog/access.py _RAW_WORDS


@dataclass(frozen=True)
class Token:
    norm: str
    start: int
    end: int


@lru_cache(maxsize=1 << 16)  # pure; BM25 re-scoring normalizes the same few thousand words over and over
def normalize(word: str) -> str:
    """Lowercase and fold simple plurals, so 'orders' meets 'order' and 'sources' meets 'source'."""
    w = word.lower()
    if len(w) > 4 and w.endswith("ies"):
        return w[:-3] + "y"
    if len(w) > 6 and w.endswith(("sses", "tuses", "nuses")):
        return w[:-2]  # "statuses" meets "status", "classes" meets "class"
    if len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is")):
        return w[:-1]
    if len(w) > 5 and w.endswith("ed") and not w.endswith("eed"):
        return w[:-2]  # "ordered" meets "order", "churned" meets "churn"
    return w


def furthest_reach(spans: Iterable[tuple[int, int]]) -> Callable[[int], int]:
    """For an offset, the furthest end among the `spans` (which may overlap) that start at or before it (-1 when
    none does), in log time: testing every token against every span made long questions quadratic (issue 23)."""
    ordered = sorted(spans)
    starts = [s for s, _ in ordered]
    reach, furthest = [], -1  # reach[i]: the furthest end among ordered[:i + 1]
    for _, e in ordered:
        furthest = max(furthest, e)
        reach.append(furthest)

    def at(offset: int) -> int:
        i = bisect.bisect_right(starts, offset) - 1
        return reach[i] if i >= 0 else -1
    return at


def in_spans(spans: Iterable[tuple[int, int]]) -> Callable[[int], bool]:
    """A test whether a character offset lies in one of the half-open `spans`."""
    reach = furthest_reach(spans)
    return lambda offset: reach(offset) > offset


def tokenize(text: str) -> list[Token]:
    # Identifiers split on '_' and '.', so fct_orders and "fct orders" are the same words.
    low = _without_clitics(text.lower())
    return [Token(_shorthand(m, low) or normalize(m.group()), m.start(), m.end()) for m in _TOKEN.finditer(low)]


def _shorthand(m: re.Match, low: str) -> str | None:
    """"customers w/ orders": the shorthand "w/" is read as "with" (the "o" of "w/o" is then "without")."""
    if m.group() == "w" and low[m.end():m.end() + 1] == "/" and not _WITHOUT.match(low, m.end()):
        return "with"
    if m.group() == "o" and m.start() >= 2 and low[m.start() - 2:m.start()] == "w/":
        return "without"
    return None


def _without_clitics(low: str) -> str:
    return _CLITIC_S.sub("  ", low) if "'" in low or "\u2019" in low else low


def words(text: str) -> list[str]:
    # The norms of tokenize(text), without building a Token per word (full-text re-scoring reads ~1,000 rows).
    # Names are read by this and questions by tokenize: both drop the same clitics, so "Women's wear" still matches.
    return [normalize(w) for w in _TOKEN.findall(_without_clitics(text.lower()))]


STOPWORDS = {normalize(w) for w in """
a an the and or but of on in at to for by with from as is are was were be been being it its this that these
those there here what which who whom whose when where why how do does did done can could should would will
shall may might must i me my we our us you your they them their he she his her please tell show give explain
summarize summarise describe list about into than then so if not no yes any all some each per via vs versus
right correct true still also just only really actually exactly currently use used using want need know
after before minus less excluding including without within under over between during since until till
through across against among plus like
""".split()}

# Words a question uses around an entity name without naming a different entity. A content word
# outside this list directly before a bare head noun ("recognized revenue", "board revenue")
# means the question names something else, so the bare noun must not be taken as a match.
GENERIC = STOPWORDS | {normalize(w) for w in """
definition definitions define defined defining mean means meaning meant formula calculate calculated
calculation computed compute metric kpi measure number figure apply applies applied applicable govern
governs governing valid effective reporting report reported date day period month quarter year fiscal
calendar end start beginning close official approved authoritative latest current new newest old older
legacy superseded outdated deprecated obsolete previous prior original our company say says said claim claims state states stated according
mention mentions wiki draft note memo page doc document handbook proposal slack thread email deck model
models dbt version versions grain granularity level lineage source sources upstream downstream table
tables feed feeds fed come comes derive derived depend depends dependency backing back backs behind
support supports supported implement implemented fresh freshness stale loaded load last updated update
latency age sla expectation expectations threshold thresholds up time total amount value compare
history historical change changed changes between ignore follow registry rule rules policy instruction
instructions did happen happened whats what's look looks like treat treated treatment includes include
including exclude excludes excluding is that this
""".split()}

# Ordinary verbs that sit before a metric's head noun without qualifying it ("do returns lower net
# revenue?", "does tax increase revenue?").
GENERIC |= {normalize(w) for w in """
lower lowers reduce reduces increase increases raise raises inflate inflates affect affects impact impacts
hit hits hurt hurts boost boosts drive drives count counts move moves drop drops cut cuts grow grows shrink
shrinks decrease decreases distort distorts skew skews matter matters subtract subtracts deduct deducts add
adds remove removes contain contains cover covers capture captures reflect reflects
""".split()}
# Words that say how a thing is ("is revenue final?", "is the churn data good?"), generic where they follow a name.
# Where a noun is expected (after "of") they are part of a name instead: "cost of goods", "value of live bookings".
STATE_WORDS = {normalize(w) for w in """
live ready final available stable accurate reliable trustworthy broken ok okay good bad wrong
""".split()}
# ... and verbs of time and change that follow a name ("is any change to churn coming?").
GENERIC |= STATE_WORDS | {normalize(w) for w in """
coming going changing shifting switching moving happening getting becoming starting beginning ending planned
scheduled expected due soon next upcoming pending proposed work works working mean differ differs
yet done
owner owners ownership owned steward maintainer maintainers contact responsible data numbers figures stats
def defn defs calc calcs pls plz thx info
""".split()}
# ... and words about a table's make-up, which follow a name without making a longer one ("what is orders
# built from?", "which columns does customers have?").
GENERIC |= {normalize(w) for w in """
built build builds made column columns field fields have has had hold holds row rows
""".split()}

MONTH_WORDS = {"jan", "january", "feb", "february", "mar", "march", "apr", "april", "may", "jun", "june",
               "jul", "july", "aug", "august", "sep", "sept", "september", "oct", "october", "nov",
               "november", "dec", "december", "q1", "q2", "q3", "q4", "h1", "h2", "fy", "cy", "st", "nd",
               "rd", "th"}


def is_qualifier(word: str) -> bool:
    """A content word that, placed before a noun, names a different thing (see GENERIC)."""
    return not (word in GENERIC or word in MONTH_WORDS or word.isdigit() or re.fullmatch(r"(fy|q[1-4]|h[12]|v)\d*", word))


def is_object_qualifier(word: str) -> bool:
    """A content word that, inside an "of" phrase after a noun ("cost of goods"), names a different thing: as before
    a noun, except that a word saying how a thing is names a thing there (STATE_WORDS)."""
    return word in STATE_WORDS or is_qualifier(word)


# Words that say what is asked, not what it is about.
ASKING_WORDS = {w for w in (
    "list show see view can could may might would please tell give me my we us our i you all every any each "
    "available visible defined exist exists there here catalog access have has about related regarding around "
    "concerning topic on for with what which who whose how do does did is are was were the a an of in to "
    "enumerate find display know want need let lookup look up say says said state states mention mentions "
    "summarize summarise summary quote open read cover covers propose proposes tell tells track tracks tracked "
    "report reports publish publishes maintain maintains own owns many").split()}


def content_words(text: str, spans: list[tuple[int, int]] = (), drop: set[str] = frozenset()) -> list[str]:
    """The question's own words (normalized), minus stop words, asking words, `drop` and `spans` (dates)."""
    out = []
    excluded = in_spans(spans)
    for t in tokenize(text):
        if excluded(t.start):
            continue
        if t.norm in STOPWORDS or t.norm in ASKING_WORDS or t.norm in drop or len(t.norm) < 2:
            continue
        out.append(t.norm)
    return list(dict.fromkeys(out))
