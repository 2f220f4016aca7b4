"""Over-long text in generated objects (a dbt model whose column descriptions run past the limit) is cut, not
refused: the model stays in the catalog, with its text truncated and a warning naming the model and the field.

A hand-written catalog is still refused for such a field (core/catalog/evidence.py's MAX_TEXT_CHARS): its author can
fix it. A dbt project's descriptions are someone else's, written for dbt docs, and dropping a whole model (and every
metric and edge that links to it) for one long description loses far more than the cut text.
"""
from __future__ import annotations

import pickle
import sys

from core.catalog.evidence import MAX_TEXT_CHARS

MARK = " [... cut: {n:,} characters over the limit]"


def cut_oversized(objects: list[dict], limit: int = MAX_TEXT_CHARS) -> list[str]:
    """Truncate, in place, every string in `objects` longer than `limit`; one warning per field cut."""
    warnings: list[str] = []
    for obj in objects:
        if _size(obj) <= limit:
            continue  # no string inside can be longer than the whole: the walk runs only on the few large objects
        where = obj.get("evidence_id") or "(no id)"
        for field, length in _cut(obj, "", limit):
            warnings.append(f"{obj.get('kind') or 'object'} {where}: field {field} is {length:,} characters long, "
                            f"over the {limit:,}-character limit; kept, cut to its first {limit:,}")
    return warnings


def _size(obj: dict) -> int:
    """At least the length of the longest string in `obj` (pickle keeps each one whole, as UTF-8), and cheap:
    pickling in C is several times faster than walking 100k generated objects in Python."""
    try:
        return len(pickle.dumps(obj, protocol=5))
    except (pickle.PicklingError, TypeError, AttributeError):
        return sys.maxsize  # something pickle cannot write: walk it


def _cut(value, path: str, limit: int):
    """Yield (field path, original length) for each string cut below `value` (a dict or list, changed in place)."""
    items = value.items() if isinstance(value, dict) else enumerate(value)
    for key, item in list(items):
        here = f"{path}.{key}" if isinstance(value, dict) else f"{path}[{key}]"
        here = here.lstrip(".")
        if isinstance(item, str):
            if len(item) > limit:
                mark = MARK.format(n=len(item) - limit)
                value[key] = item[:limit - len(mark)] + mark
                yield here, len(item)
        elif isinstance(item, (dict, list)):
            yield from _cut(item, here, limit)
