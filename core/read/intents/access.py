"""Who may see what, as a question asks it: "who can see the revenue handbook?" asks an object's access list;
"can finance see churn?" names a role as the one asking (a listing shows only the asker's own view)."""
from __future__ import annotations

import re

ACCESS_ASKED = re.compile(
    r"\bwho (?:else )?(?:can|could|may|is allowed to|gets to|is able to) (?:see|read|view|access|open)\b|"
    r"\bwho (?:has|have|had) (?:access|read access|permission)\b|"
    r"\bwhich (?:roles?|teams?|groups?|people|users?) (?:can|could|may|have access|has access|are allowed to|"
    r"is allowed to) ?(?:see|read|view|access|open)?\b|"
    r"\b(?:visible|readable|accessible) to (?:whom|which roles?)\b|\baccess list\b|\bacl\b", re.I)


def asks_access(text: str) -> bool:
    return bool(ACCESS_ASKED.search(text))


WHO_SEES = re.compile(r"\b(?:can|could|may|does|do|is|are)\s+(?:the\s+)?([\w-]+)\s+(?:team\s+|role\s+)?(?:see|access|view|read|have)\b",
                      re.I)


def roles_named(text: str) -> list[str]:
    """The words a question names as who sees ("can finance see ..."), lower-cased, in the order written."""
    return [m.group(1).lower() for m in WHO_SEES.finditer(text)]
