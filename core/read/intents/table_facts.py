"""Questions about a table's own make-up: which data tests run on it, whether a column is tested, what columns it
has. Read from the words alone; which table is meant is the ranker's, over the role's visible catalog.

"which tests run on X?", "what tests does X have?", "how is X tested?", "is column Y tested?", "does X have a test
on Y?" ask for tests; "what columns does X have?", "which fields are in X?", "the schema of X", "X's columns and
their types" ask for columns. "A/B test", "test group", "any test orders" name an experiment or test data, not a data
test: the test noun ends the question or is followed by what a data test does or where it runs.
"""
from __future__ import annotations

import re

from core.read.intents.dbt_facts import dbt_fact_asked

_TEST_NOUN = r"(?:(?:dbt|data|generic|singular|schema|quality)\s+)?tests?"
_NOT_DATA_TEST = r"(?<!a/b\s)(?<!ab\s)(?<!split\s)(?<!ab-)(?<!a/b-)"
TESTS_ASKED = re.compile(
    r"\b(?:which|what|any|list|show(?:\s+me)?|are\s+there(?:\s+any)?|how\s+many)\s+(?:of\s+)?(?:the\s+|its\s+)?"
    + _NOT_DATA_TEST + _TEST_NOUN + r"\b(?=\s*(?:$|[?.,;:]|(?:run|runs|running|on|for|of|against|defined|does|do|did|"
    r"are|is|exist|exists|cover|covers|check|checks|that|there|in\s+(?:dbt|the\s+project))\b))|"
    r"\b(?:is|are|was|were|gets?)\b[^?.;]{1,80}?\b(?:tested|covered\s+by\s+(?:a\s+|any\s+)?tests?)\b|"
    r"\bhow\s+(?:is|are|do\s+we|does\s+\w+)\b[^?.;]{1,60}?\btest(?:ed)?\b|"
    r"\b(?:does|do|did|has|have)\b[^?.;]{1,60}?\b(?:have|has|got|get)?\s*(?:a|any|some)\s+" + _NOT_DATA_TEST
    + _TEST_NOUN + r"\s+(?:on|for|of|against|covering)\b|"
    + _NOT_DATA_TEST + r"\btests?\s+(?:on|for|against|covering|that\s+run\s+on|run(?:ning)?\s+on|defined\s+on)\s+(?:the\s+)?\w",
    re.I)
COLUMNS_ASKED = re.compile(
    r"\b(?:which|what|list|show(?:\s+me)?|describe|name|any)\s+(?:are\s+)?(?:all\s+)?(?:of\s+)?(?:the\s+|its\s+|their\s+)?"
    r"(?:columns|fields)\b|"
    r"\b(?:columns|fields)\s+(?:of|in|does|do|on|has|have)\b|"
    r"\bschema\s+(?:of|for)\b|\bwhat(?:'s|\s+is)\s+(?:the\s+)?schema\b|"
    r"\b\w+'s\s+(?:columns|fields|schema)\b|"
    r"\bwhat\s+(?:type|data\s+type)\s+is\b|\bcolumn\s+types?\b", re.I)
# Columns something is made from ("which columns feed revenue?", "what columns is X computed from?", "what fields
# does X use?") are its lineage, answered by the definition flow, not the list of a table's columns.
COLUMNS_READ = re.compile(r"\b(?:feeds?|fed|uses?|used|reads?|come|comes|(?:computed|calculated|derived|built|made|"
                          r"sourced)\s+from|go(?:es)?\s+into)\b", re.I)
# The asking words of either question: set aside so that "tests", "columns" or "schema" is not read as a name.
CUE_WORDS = {"test", "tests", "tested", "testing", "dbt", "data", "generic", "singular", "quality", "covered",
             "column", "columns", "field", "fields", "schema", "type", "types", "run", "runs", "defined", "list",
             "show", "describe", "their", "its", "have", "has", "does", "any", "which", "what", "how", "many"}


def table_facts_asked(question: str) -> tuple[str | None, list[tuple[int, int]]]:
    """"test_results", "last_run" or "properties" (what dbt recorded: core/read/intents/dbt_facts.py), else "tests" or
    "columns" (tests first: "is column Y tested?" asks about tests), and the spans of the asking words in the
    question, or (None, [])."""
    recorded = dbt_fact_asked(question)
    if recorded[0]:
        return recorded
    for kind, pattern in (("tests", TESTS_ASKED), ("columns", COLUMNS_ASKED)):
        m = pattern.search(question)
        if m and kind == "columns" and COLUMNS_READ.search(question):
            return None, []
        if m:
            return kind, [(m.start() + w.start(), m.start() + w.end()) for w in re.finditer(r"[A-Za-z]+", m.group())
                          if w.group().lower() in CUE_WORDS]
    return None, []


IDENTIFIER = re.compile(r"`?([A-Za-z_][A-Za-z0-9_]*)`?")


def _as_written(question: str) -> str:
    """The question's words as a column name is compared with them: lower case, anything but letters, digits and
    underscores a space."""
    return re.sub(r"[^a-z0-9_]+", " ", question.lower())


def named_columns(question: str, columns: list[str]) -> list[str]:
    """The columns of `columns` the question names, as written or with spaces for underscores ("customer type")."""
    text = " " + _as_written(question) + " "
    spaced = text.replace("_", " ")
    out = []
    for col in dict.fromkeys(columns):
        low = col.lower()
        if f" {low} " in text or ("_" in low and f" {low.replace('_', ' ')} " in spaced):
            out.append(col)
    return out


def column_candidates(question: str) -> list[str]:
    """Every name `named_columns` could find in the question, lower case: each word as written ("customer_type") and
    each run of up to MAX_COLUMN_WORDS words joined by underscores ("customer type"). What a catalog-wide search for
    the tables holding a column the question names looks for, instead of reading every table's columns."""
    written = _as_written(question).split()
    spaced = " ".join(written).replace("_", " ").split()
    runs = ("_".join(spaced[i:i + n]) for n in range(2, MAX_COLUMN_WORDS + 1) for i in range(len(spaced) - n + 1))
    return list(dict.fromkeys([*written, *runs]))


MAX_COLUMN_WORDS = 6
# "is X tested?" is answered yes or no first.
YES_NO = re.compile(r"\s*(?:is|are|was|were|does|do|did|has|have)\b", re.I)


def opens_yes_no(question: str) -> bool:
    return bool(YES_NO.match(question))
