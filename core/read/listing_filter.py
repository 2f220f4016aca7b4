"""The condition of a whole-catalog question: "which models are deprecated?", "which metrics have no owner?".

Read from the question's words alone. The listing it filters (core/answer/discover.py) is the role's view, so a
"none" answer counts only what the asker may see.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

# The words, as a regex fragment: core/read/intent.py reads a listing question ending in one of them as discover.
CONDITION_WORDS = (r"deprecated|drafts?|superseded|retired|unowned|ownerless|"
                   r"(?:have|has|having|with)\s+no\s+(?:\w+\s+)?owners?|without\s+(?:an?\s+|any\s+)?(?:\w+\s+)?owners?|"
                   r"(?:lack|lacks|lacking|missing)\s+(?:an?\s+)?(?:\w+\s+)?owners?|no\s+owners?")
CONDITION = re.compile(r"\b(?:" + CONDITION_WORDS + r")\b", re.I)
LIFECYCLES = {"deprecated": "deprecated", "draft": "draft", "drafts": "draft", "superseded": "superseded",
              "retired": "retired"}


@dataclass(frozen=True)
class Condition:
    field: str  # lifecycle | owner
    value: str | None  # the lifecycle asked for; None for "no owner"
    span: tuple[int, int]  # where the question says it (not a topic word)

    def phrase(self, many: bool) -> str:
        """The predicate as said of one listed thing, or of several: "is deprecated", "have no owner"."""
        if self.field == "owner":
            return "have no owner" if many else "has no owner"
        if self.value == "draft":
            return "are drafts" if many else "is a draft"
        return f"{'are' if many else 'is'} {self.value}"


def listing_condition(question: str) -> Condition | None:
    m = CONDITION.search(question)
    if m is None:
        return None
    said = m.group().lower()
    if said in LIFECYCLES:
        return Condition("lifecycle", LIFECYCLES[said], m.span())
    return Condition("owner", None, m.span())
