"""References from a visible object to others, rendered for one role: a hidden target is never named.

Generated text names other objects in a few places only: a derived or ratio metric's formula names its input
metrics (`Evidence.mentions`, quoted again in its text), and lineage objects carry edges to their parents. When the reader may not see
the target, its name is replaced by a fixed phrase and the edge is dropped. Pure: the caller says which ids
are hidden.
"""
from __future__ import annotations

import re

from core.catalog.evidence import Evidence

HIDDEN_NAME = "[not shared with your role]"


def references(ev: Evidence) -> set[str]:
    """Ids this object points at in its text, formula or edges."""
    tests = {m for t in ev.model.tests for m in t.models} if ev.model else set()
    return set(ev.mentions.values()) | {n for e in ev.edges for n in (e.upstream, e.downstream)} | tests


def _swap(text: str | None, names: list[str]) -> str | None:
    if not text:
        return text
    for name in names:
        text = re.sub(rf"(?<![\w.]){re.escape(name)}(?![\w])", HIDDEN_NAME, text)
    return text


def redact(ev: Evidence, hidden: set[str]) -> Evidence:
    """The object as a role that cannot see `hidden` may read it."""
    names = sorted((n for n, target in ev.mentions.items() if target in hidden), key=len, reverse=True)
    edges = [e for e in ev.edges if e.upstream not in hidden and e.downstream not in hidden]
    tests = [t for t in ev.model.tests if not hidden & set(t.models)] if ev.model else []
    if not names and len(edges) == len(ev.edges) and len(tests) == len(ev.model.tests if ev.model else []):
        return ev
    update: dict = {"mentions": {n: t for n, t in ev.mentions.items() if t not in hidden}, "edges": edges}
    if ev.model and len(tests) < len(ev.model.tests):
        # A test reading a hidden node ("relationships to payouts") is left out whole: its name says what it reads.
        update["model"] = ev.model.model_copy(update={"tests": tests})
    if names and ev.metric:
        # Only what the reader generated is rewritten (the formula, also quoted in the text); a description
        # people wrote stays as written.
        formula = _swap(ev.metric.formula, names)
        filters = [_swap(f, names) for f in ev.metric.filters]
        text = ev.text.replace(ev.metric.formula, formula)
        for old, new in zip(ev.metric.filters, filters):
            text = text.replace(old, new)
        update.update(text=text, metric=ev.metric.model_copy(update={"formula": formula, "filters": filters}))
    return ev.model_copy(update=update)
