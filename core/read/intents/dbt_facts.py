"""Questions about what dbt recorded of one model or source: whether its tests passed in the last run (and which
failed), when it last ran and how long that took, and its tags, meta and configuration. Read from the words alone;
which table is meant is the ranker's, over the role's visible catalog.

"did the tests on X pass?", "are X's tests green?", "which tests failed on X?", "X test results" ask for results;
"when did X last run?", "how long did X take to build?", "X's last run" for its run; "what are X's tags?", "what
meta does X have?", "is X incremental?", "how is X materialized?", "is X PII?" for its recorded properties. "A/B test"
names an experiment, never a data test.
"""
from __future__ import annotations

import re

_TESTS = r"(?<!a/b\s)(?<!ab\s)(?<!split\s)\b(?:(?:dbt|data|generic|singular|schema|quality)\s+)?tests?\b"
_OUTCOME = (r"(?:pass|passes|passed|passing|fail|fails|failed|failing|failures?|green|red|broken|break|succeed(?:ed|s)?|"
            r"errored|errors?|warn(?:ed|s|ing|ings)?|skipped|ok|okay)")
TEST_RESULTS_ASKED = re.compile(
    _TESTS + r"[^?.;]{0,60}?\b" + _OUTCOME + r"\b|"
    r"\b" + _OUTCOME + r"\b[^?.;]{0,40}?" + _TESTS + r"|"
    r"\btests?\s+(?:results?|status|outcomes?)\b|\bresults?\s+of\s+(?:the\s+|its\s+)?" + _TESTS, re.I)
LAST_RUN_ASKED = re.compile(
    r"\b(?:last|latest|most\s+recent|previous)\s+(?:dbt\s+)?(?:run|build|built|ran|execution)\b|"
    # "when did X last run?", never "when did the pay run data last load?" (a name that holds "run")
    r"\bwhen\s+(?:was|did|were|has|had)\b[^?.;]{1,60}?\b(?:last\s+)?(?:run|ran|built|build|rebuilt|executed)"
    r"(?=\s*(?:$|[?.,;!]|(?:last|in|on|at|successfully|today|yesterday)\b))|"
    r"\bhow\s+long\b[^?.;]{0,60}?\b(?:take|took|takes|run|ran|runs|build|builds|built)\b|"
    r"\b(?:run|build|execution)\s+(?:time|duration)\b|"
    r"\bdid\b[^?.;]{1,60}?\b(?:run|build)\s+(?:succeed|successfully|ok|fine)\b", re.I)
_CLOSES = r"(?=\s*(?:$|[?.,;!]|(?:in|on|for|as|now|today|at\s+the\s+moment)\b))"
_MATERIALIZATIONS = r"(?:incremental|ephemeral|a\s+view|a\s+table|a\s+snapshot|materiali[sz]ed\s+as\s+\w+)"
PROPERTIES_ASKED = re.compile(
    r"\btags?\b|\btagged\b|\bmeta(?:data)?\b|\bmateriali[sz](?:ed|ation)\b|\bcontract(?:s|ed)?\b|"
    r"\baccess\s+(?:level|modifier)\b|\b(?:is|are)\s+(?:it\s+|they\s+)?(?:public|private|protected)\b|"
    # Asked yes or no, the state closing the clause: "is X incremental?", "is X disabled in dbt?", never "what is the
    # disabled model?" (an adjective naming something) nor "is there a PII model?".
    r"^\W*(?:is|are|was)\s+(?!there\b)[^?.;]{1,60}?\b(?:" + _MATERIALIZATIONS + r"|disabled|enabled)" + _CLOSES + r"|"
    r"^\W*(?:is|are|does|do)\s+(?!there\b)[^?.;]{1,60}?\b(?:pii|personal\s+data|personally\s+identifiable)"
    r"(?:\s+(?:data|fields?|columns?))?" + _CLOSES, re.I)
# The asking words: set aside so that "tests", "tags" or "run" is never read as part of a name.
CUE_WORDS = {"test", "tests", "dbt", "data", "generic", "singular", "schema", "quality", "pass", "passes", "passed",
             "passing", "fail", "fails", "failed", "failing", "failure", "failures", "green", "red", "broken", "break",
             "succeed", "succeeded", "succeeds", "errored", "error", "errors", "warn", "warned", "warns", "warning",
             "warnings", "skipped", "ok", "okay", "results", "result", "status", "outcome", "outcomes", "last",
             "latest", "most", "recent", "previous", "run", "runs", "ran", "build", "builds", "built", "rebuilt",
             "execution", "executed", "when", "how", "long", "take", "took", "takes", "time", "duration", "tags",
             "tag", "tagged", "meta", "metadata", "materialized", "materialised", "materialization", "materialisation",
             "contract", "contracts", "contracted", "access", "level", "modifier", "public", "private", "protected", "incremental",
             "ephemeral", "view", "table", "snapshot", "disabled", "enabled", "pii", "personal", "personally",
             "identifiable", "which", "what", "did", "does", "do", "is", "are", "was", "were", "its", "the", "any",
             "successfully", "fine", "of", "on", "have", "has"}
ASKED = (("test_results", TEST_RESULTS_ASKED), ("last_run", LAST_RUN_ASKED), ("properties", PROPERTIES_ASKED))


def dbt_fact_asked(question: str) -> tuple[str | None, list[tuple[int, int]]]:
    """test_results, last_run or properties (in that order: "did its tests pass in the last run?" asks results), and
    the spans of the asking words, or (None, [])."""
    for kind, pattern in ASKED:
        m = pattern.search(question)
        if m:
            return kind, [(m.start() + w.start(), m.start() + w.end()) for w in re.finditer(r"[A-Za-z]+", m.group())
                          if w.group().lower() in CUE_WORDS]
    return None, []


MATERIALIZED_SAID = re.compile(r"\b(incremental|ephemeral|view|table|snapshot|seed)\b", re.I)
PII_SAID = re.compile(r"\b(pii|personal\s+data|personally\s+identifiable)\b", re.I)
YES_NO = re.compile(r"\s*(?:is|are|was|were|does|do|did|has|have)\b", re.I)


# The recorded properties a question names, so that one asked for and not recorded is said to be missing ("what tags
# and contract does X have?" is answered "no contract recorded", not silence), and the tests when asked beside them.
NAMED = (("tags", re.compile(r"\btag(?:s|ged)?\b", re.I)), ("meta", re.compile(r"\bmeta(?:data)?\b", re.I)),
         ("materialized", re.compile(r"\bmateriali[sz](?:ed|ation)\b", re.I)),
         ("contract", re.compile(r"\bcontract(?:s|ed)?\b", re.I)),
         ("access", re.compile(r"\baccess\s+(?:level|modifier)\b", re.I)), ("group", re.compile(r"\bgroups?\b", re.I)),
         ("tests", re.compile(_TESTS, re.I)))
_HAS = re.compile(r"\s*(?:does|do|did|has|have|is|are)\b", re.I)


def properties_named(question: str) -> list[str]:
    return [name for name, pattern in NAMED if pattern.search(question)]


def yes_no_property(question: str) -> tuple[str, str] | None:
    """A yes/no question about one recorded property: ("materialized", "incremental"), ("pii", ""), ("contract", "")
    for "does X have a contract?", ("tags", "") for "is X tagged?", or None."""
    if not YES_NO.match(question):
        return None
    if PII_SAID.search(question):
        return "pii", ""
    named = [n for n in properties_named(question) if n in ("contract", "tags", "meta")]
    if len(named) == 1 and _HAS.match(question):
        return named[0], ""
    m = MATERIALIZED_SAID.search(question)
    if m:
        return "materialized", m.group(1).lower()
    for word in ("disabled", "enabled", "public", "private", "protected"):
        if re.search(rf"\b{word}\b", question, re.I):
            return ("enabled", word) if word in ("disabled", "enabled") else ("access", word)
    return None
