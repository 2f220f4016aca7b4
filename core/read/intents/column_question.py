"""Questions about one column of a table: what it means ("what does column minutes of rides mean?", "what is the
rider_id column in rides?", "the meaning of duration_s in rides"), and which column has a property ("which column
of rides is deprecated?", "which columns of rides are PII?", "what is the key of rides?").

Read from the words alone. The column word is only a candidate: the answer keeps it only when the table the ranker
chose has a column of that name (core/answer/intents/column_facts.py); a word naming no column is the definition flow's.
"""
from __future__ import annotations

import re

_C = r"`?(?P<{}>[A-Za-z_][\w]*)`?"
_TABLE = r"(?:of|in|on|from)\s+(?:the\s+)?"
MEANING_ASKED = [re.compile(p, re.I) for p in (
    r"\bwhat\s+(?:does|do|did)\s+(?:the\s+)?(?:column\s+)?" + _C.format("c") + r"(?:\s+column)?\s+" + _TABLE
    + r"[\w.`]+(?:\s+(?:model|table|source))?\s+(?:mean|stand\s+for|hold|contain|represent)\b",
    r"\bwhat\s+(?:is|are)\s+(?:the\s+)?(?:column\s+)?" + _C.format("c") + r"\s+column\s+" + _TABLE,
    r"\bwhat\s+(?:is|are)\s+(?:the\s+)?column\s+" + _C.format("c") + r"\s+" + _TABLE,
    r"\b(?:meaning|definition|description)\s+of\s+(?:the\s+)?(?:column\s+)?" + _C.format("c") + r"(?:\s+column)?\s+"
    + _TABLE,
    r"\bwhat\s+(?:does|do)\s+(?:the\s+)?(?:[\w.]+\s+)?(?:model's\s+|table's\s+)?column\s+" + _C.format("c")
    + r"\s+(?:mean|stand\s+for|hold)\b",
    r"\bwhat\s+(?:is|are)\s+" + _C.format("c") + r"\s+" + _TABLE + r"[\w.`]+(?:\s+(?:model|table|source))?\s*\??\s*$",
)]
# "which column of X is deprecated / PII / the key": the property, by the words that say it.
PROPERTIES = {
    "deprecated": r"deprecated|obsolete|legacy|no\s+longer\s+used|not\s+to\s+be\s+used|retired",
    "pii": r"pii|personal(?:ly\s+identifiable)?(?:\s+data|\s+information)?|sensitive",
    "key": r"(?:the\s+)?(?:primary\s+|unique\s+|natural\s+|surrogate\s+)?key|(?:the\s+)?(?:unique\s+)?identifier|"
           r"(?:the\s+)?grain",
}
FIND_ASKED = re.compile(
    r"\b(?:which|what)\s+(?:of\s+the\s+)?(?:column|columns|field|fields)\s+(?:of|in|on)\s+(?:the\s+)?[\w.`]+"
    r"(?:\s+(?:model|table|source))?\s+(?:is|are|was|were|holds?|carr(?:y|ies)|contains?)\s+(?:an?\s+|the\s+)?"
    r"(?P<p>" + "|".join(PROPERTIES.values()) + r")\b|"
    r"\b(?:which|what)\s+(?:column|columns|field|fields)\s+(?:is|are)\s+(?:an?\s+|the\s+)?(?P<q>"
    + "|".join(PROPERTIES.values()) + r")\s+(?:in|of|on)\b|"
    # "what is the grain of X?" is not here: it asks what one row of X stands for, the grain its version declares
    r"\bwhat\s+is\s+the\s+(?P<r>primary\s+key|key|unique\s+key|grain(?=\s+column))\s+(?:column\s+)?(?:of|in|for)\b", re.I)
CUE_WORDS = {"what", "which", "does", "do", "did", "is", "are", "was", "were", "the", "column", "columns", "field",
             "fields", "of", "in", "on", "from", "mean", "stand", "for", "hold", "holds", "contain", "contains",
             "represent", "meaning", "definition", "description", "model", "table", "source", "an", "a",
             "deprecated", "obsolete", "legacy", "pii", "personal", "personally", "identifiable", "data",
             "information", "sensitive", "key", "primary", "unique", "natural", "surrogate", "identifier", "grain",
             "carry", "carries", "no", "longer", "used", "not", "to", "be", "retired"}


def column_asked(question: str) -> tuple[str | None, str | None, list[tuple[int, int]]]:
    """("column_meaning", the column word) or ("column_find", the property: deprecated | pii | key), with the spans of
    the asking words and of the column word; or (None, None, [])."""
    m = FIND_ASKED.search(question)
    if m:
        said = next(v for v in (m.group("p"), m.group("q"), m.group("r")) if v)
        prop = next(k for k, p in PROPERTIES.items() if re.fullmatch(p, said, re.I))
        return "column_find", prop, _cues(question, m)
    for pattern in MEANING_ASKED:
        m = pattern.search(question)
        if m:
            return "column_meaning", m.group("c"), _cues(question, m) + [m.span("c")]
    return None, None, []


def _cues(question: str, m: re.Match) -> list[tuple[int, int]]:
    return [(m.start() + w.start(), m.start() + w.end()) for w in re.finditer(r"[A-Za-z]+", m.group())
            if w.group().lower() in CUE_WORDS]


def said_of(prop: str, text: str | None) -> bool:
    """Does a column's description (or a meta value, a tag) say the property? A foreign key is not the table's key."""
    if text and prop == "key":
        text = re.sub(r"\bforeign\s+key\b", " ", text, flags=re.I)
    return bool(text) and bool(re.search(r"\b(?:" + PROPERTIES[prop] + r")\b", text, re.I))
