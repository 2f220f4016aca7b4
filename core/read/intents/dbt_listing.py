"""The dbt condition of a whole-catalog question: models with or without tests, with a failing test, by tag, by a meta
value, by materialization, disabled ones, by group, with an enforced contract, by access, and sources without a
freshness check.

Read from the words alone, as `field:value` strings a listing checks against each visible object's recorded facts
(core/answer/intents/dbt_listing.py). The words are the condition's, never a name: "which models are tagged finance?" lists
by the tag and never picks a model called `tagged_orders`, and "models without tests" never one called `test_runs`.
"""
from __future__ import annotations

import re

_Q = r"['\"`\u2018\u2019\u201c\u201d]?"  # a value may be quoted
_TESTS = r"(?:(?:data|dbt|generic|schema)\s+)?tests?"
_NO = r"(?:without|with\s+no|having\s+no|have\s+no|has\s+no|lack(?:s|ing)?|missing|no)\s+(?:an?\s+|any\s+)?"
_WITH = r"(?:with|having|that\s+have|that\s+has|have|has)\s+(?:an?\s+|any\s+|some\s+|at\s+least\s+one\s+)?"
_FAILING = r"(?:failing|failed|broken|red|erroring|errored)"
# (value or a group name to read the value from, pattern); the first match wins, in this order.
CONDITIONS: list[tuple[str, re.Pattern]] = [
    ("tests:failing", re.compile(
        r"\b" + _WITH + _FAILING + r"\s+" + _TESTS + r"\b|\b" + _TESTS + r"\s+(?:that\s+)?(?:failed|failing|fail)\b|"
        r"\bfail(?:ed|ing|s)?\s+(?:a\s+|any\s+|one\s+or\s+more\s+|their\s+|its\s+)?" + _TESTS + r"\b", re.I)),
    ("tests:without", re.compile(r"\b" + _NO + _TESTS + r"\b|\buntested\b|\bnot\s+(?:yet\s+)?tested\b", re.I)),
    ("tests:with", re.compile(r"\b" + _WITH + _TESTS + r"\b|\b(?:are|is)\s+tested\b|\btested\s+(?=models\b)", re.I)),
    ("freshness:none", re.compile(
        r"\b" + _NO + r"freshness(?:\s+(?:checks?|polic(?:y|ies)|thresholds?|tests?|configs?|configured|set))?\b|"
        r"\bfreshness\s+(?:is\s+)?not\s+(?:checked|configured|set)\b|\bnot\s+checked\s+for\s+freshness\b", re.I)),
    ("tag", re.compile(r"\btagged\s+(?:with\s+|as\s+)?(?:the\s+)?(?:tag\s+)?" + _Q + r"(?P<v>[\w-]+)" + _Q + r"|"
                       r"\b(?:with|having|have|has|carry(?:ing)?)\s+(?:the\s+)?tags?\s+" + _Q + r"(?P<w>[\w-]+)" + _Q
                       + r"|\b(?:with|having|have|has)\s+(?:the\s+)?" + _Q + r"(?P<x>[\w-]+)" + _Q + r"\s+tag\b", re.I)),
    ("materialized", re.compile(r"\b(?P<v>incremental|ephemeral)\b|\bmateriali[sz]ed\s+as\s+(?:an?\s+)?(?P<w>\w+)",
                                re.I)),
    ("enabled:false", re.compile(r"\bdisabled\b|\bnot\s+enabled\b|\bturned\s+off\b", re.I)),
    ("group", re.compile(r"\b(?:in|of|owned\s+by|belonging\s+to|from)\s+(?:the\s+)?" + _Q + r"(?P<v>[\w-]+)" + _Q
                         + r"\s+group\b|\bgroup\s+" + _Q + r"(?P<w>[\w-]+)" + _Q, re.I)),
    ("contract:true", re.compile(r"\b" + _WITH + r"(?:enforced\s+)?contracts?\b|\bcontracts?\s+enforced\b|"
                                 r"\bcontracted\b", re.I)),
    ("access", re.compile(r"\b(?:are|is)\s+(?P<v>public|private|protected)\b|\b(?P<w>public|private|protected)\s+"
                          r"(?:models|access)\b|\baccess\s+(?:is\s+)?(?P<x>public|private|protected)\b", re.I)),
    ("meta", re.compile(r"\b(?:where|whose)\s+(?:meta\s+)?" + _Q + r"(?P<k>[a-z][\w.]*)" + _Q
                        + r"\s+(?:is|=|equals|is\s+set\s+to)\s+" + _Q + r"(?P<v>[\w.@-]+)" + _Q + r"|"
                        r"\bmeta(?:data)?\s+(?:key\s+)?" + _Q + r"(?P<k2>[a-z][\w.]*)" + _Q
                        + r"(?:(?:\s*(?:=|is|of|equal\s+to|set\s+to)\s*|\s+)" + _Q + r"(?P<v2>(?!set\b|defined\b|"
                        r"present\b|and\b|or\b|on\b|in\b|for\b)[\w.@-]+)" + _Q + r")?", re.I)),
    ("meta:pii", re.compile(r"\b(?:with|having|contain(?:s|ing)?|hold(?:s|ing)?|marked(?:\s+as)?|flagged(?:\s+as)?|"
                            r"that\s+(?:contain|have|hold))\s+(?:any\s+)?(?:pii|personal\s+data)\b|\bpii\s+(?=models|"
                            r"sources|tables)\b", re.I)),
]
# The words as a regex fragment: core/read/intents/listing_filter.py reads a listing question ending in one of them.
DBT_CONDITION_WORDS = "|".join(f"(?:{re.sub(r'[(][?]P<[a-z0-9]+>', '(?:', p.pattern)})" for _, p in CONDITIONS)


def dbt_condition(question: str) -> tuple[str, tuple[int, int]] | None:
    """("field:value", span) for the first dbt condition the question says, or None."""
    for name, pattern in CONDITIONS:
        m = pattern.search(question)
        if m is None:
            continue
        if ":" in name:
            return name, m.span()
        said = {k: v for k, v in m.groupdict().items() if v}
        if name == "meta":
            key = said.get("k") or said.get("k2")
            value = said.get("v") or said.get("v2")
            return f"meta:{key.lower()}" + (f"={value}" if value else ""), m.span()
        value = next(iter(said.values()), None)
        if value is None:
            continue
        return f"{name}:{value.lower() if name in ('materialized', 'access') else value}", m.span()
    return None


def phrase(value: str, many: bool) -> str:
    """The condition as said of one listed thing, or of several."""
    field, _, arg = value.partition(":")
    has, are = ("have", "are") if many else ("has", "is")
    if value == "tests:failing":
        return f"{has} a test that failed in the last recorded run"
    if value == "tests:without":
        return f"{has} no data tests"
    if value == "tests:with":
        return f"{has} data tests"
    if value == "freshness:none":
        return f"{has} no freshness check"
    if field == "tag":
        return f"{are} tagged {arg}"
    if field == "materialized":
        return f"{are} materialized as {arg}"
    if value == "enabled:false":
        return f"{are} disabled"
    if field == "group":
        return f"{are} in the {arg} group"
    if value == "contract:true":
        return f"{has} an enforced contract"
    if field == "access":
        return f"{are} {arg}"
    if value == "meta:pii":
        return f"{are} flagged as PII in meta"
    key, _, want = arg.partition("=")
    return f"{has} meta {key} = {want}" if want else f"{has} meta {key} set"
