"""The terms of a comparison: two things set side by side ("net revenue vs gmv", "compare X and Y", "differ between
X and Y"), each read later as a question of its own, and a draft named as one side ("X against its draft")."""
from __future__ import annotations

import re

SIDES = re.compile(r"^(?P<a>.+?)\s+(?:vs\.?|versus|against)\s+(?P<b>.+)$|"
                   r"\bcompare\s+(?P<a2>.+?)\s+(?:and|with|to)\s+(?P<b2>.+)$|"
                   r"\bdiffer\w*\s+between\s+(?P<a3>.+?)\s+and\s+(?P<b3>.+)$", re.I)


def sides(question: str) -> tuple[str, str] | None:
    """The two things compared, as written; None when the question does not set two things side by side."""
    m = SIDES.search(question)
    if not m:
        return None
    a, b = (next(g for g in m.group(*names) if g) for names in (("a", "a2", "a3"), ("b", "b2", "b3")))
    return a, b


DRAFT_NAMED = re.compile(r"\b(?:drafts?|proposals?|proposed|unapproved)\b", re.I)


def names_draft(question: str) -> bool:
    return bool(DRAFT_NAMED.search(question))
