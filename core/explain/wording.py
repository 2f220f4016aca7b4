"""Small wording helpers shared by the deterministic explanation (prose) and its intent sentences
(intent_prose): counts in words, version names, intervals, lists."""
from __future__ import annotations

from datetime import date, timedelta

from core.catalog.envelope import Conflict, EvidenceRef

_COUNTS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine"}


def _count(n: int) -> str:
    return _COUNTS.get(n, str(n))


def _version(version: str | None) -> str:
    if not version:
        return ""
    return f"v{version}" if version[:1].isdigit() else version


def _interval(valid_from: date | None, valid_to: date | None) -> str:
    start = f"from {valid_from}" if valid_from else "from the start of the catalog"
    end = f"through {valid_to - timedelta(days=1)}" if valid_to else "with no end date"
    return f"{start} {end}"


def _join(items: list[str]) -> str:
    items = [i for i in items if i]
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def _name(ref: EvidenceRef | Conflict) -> str:
    v = _version(ref.version)
    if not v or v.lower() in ref.title.lower() or not ref.kind.startswith(("metric", "model")):
        return ref.title
    return f"{ref.title} ({v})"
