"""Things listed by how their names are written: "models whose name starts with fct_", "which models begin with stg_?",
"sources ending in _events", "fct_* models", "metrics with the prefix net_".

dbt projects name models by layer (stg_, int_, fct_, dim_), so analysts list them that way; read as a topic, "fct_"
matched no word and the question was not found. The part is compared with each visible row's own names (its label,
and its id without the kind), case aside; nothing hidden is listed or counted (core/answer/intents/discover.py).
"""
from __future__ import annotations

import re

from core.read.intents.gated import Gated

_PART = r"(?:(?:the\s+)?(?:letters?|prefix|suffix|string|text)\s+)?[`'\"]?(?P<part>[A-Za-z0-9_][\w.-]*?|_[\w.-]+?)[`'\"]?(?=[\s?.,;:!)]|$)"
_NAME_LEAD = r"(?:(?:whose|with|having|have|has)\s+(?:a\s+|the\s+)?names?\s+|named\s+)"
# "contains" says something of names only after a name word: "which models contain customer_id" asks about columns.
_HOW = (r"(?:(?:" + _NAME_LEAD + r"|(?:that|which)\s+(?:are\s+)?)?"
        r"(?:(?P<start>start(?:s|ing)?|begin(?:s|ning)?)\s+with|(?P<end>end(?:s|ing)?)\s+(?:with|in)|"
        r"(?P<prefixed>prefixed)(?:\s+(?:with|by))?|(?P<suffixed>suffixed)(?:\s+(?:with|by))?|"
        r"with\s+(?:the\s+|a\s+)?(?P<prefix>prefix|suffix))|"
        + _NAME_LEAD + r"(?P<contain>contain(?:s|ing)?|includ(?:es|ing)))\s+" + _PART)
# Every branch says how names are written: starts, begins, ends, prefix, suffix, contains or includes.
NAME_PART = Gated(r"\b" + _HOW, re.I, needs=r"start|begin|end|prefix|suffix|contain|includ")
# "fct_* models", "list *_daily sources": a wildcard written the way a shell or dbt selector takes it.
# A verb may come between the kind and that word: "which sources are called raw_*", "models that look like *_joined".
_STAR_VERB = r"(?:(?:that\s+|which\s+)?(?:are|is|were|was|get|look|looks|sound|sounds)\s+)?"
_STAR_LEAD = re.compile(r"\b" + _STAR_VERB + r"(?:named|called|like|matching)\s+\Z", re.I)
STAR = re.compile(r"(?<![\w*])(?P<star>[A-Za-z][\w.]*\*|\*[\w.]*\w)(?![\w*])")
_NOUNS = r"(?:metrics|kpis|measures|models|sources|tables|datasets|documents|docs|pages|dashboards|exposures|reports)"
# The listing question itself (core/read/intents/intent.py): a kind in the plural, then how its names are written, or a
# wildcard beside the kind.
_ANY_STAR = r"(?<![\w*])(?:[A-Za-z][\w.]*\*|\*[\w.]*\w)(?![\w*])"
# Every branch names a kind in the plural (core/read/intents/gated.py: not compiled for a question that names none).
LISTED = Gated(r"\b" + _NOUNS + r"\b(?:\s+\w+){0,2}?\s+" + _HOW + r"|" + _ANY_STAR + r"\s+" + _NOUNS + r"\b|\b"
               + _NOUNS + r"\s+" + _STAR_VERB + r"(?:named|called|like|matching)\s+" + _ANY_STAR, re.I, needs=_NOUNS)


def read(question: str) -> tuple[str, str, tuple[int, int]] | None:
    """(how: prefix | suffix | contains, the part as written, where the question says it), or None."""
    star = STAR.search(question)
    if star:
        said = star.group("star")
        # "models named fct_*": the word that leads to the wildcard is part of how names are written, not a topic.
        lead = _STAR_LEAD.search(question, 0, star.start())
        span = (lead.start() if lead else star.start(), star.end())
        return ("prefix", said[:-1], span) if said.endswith("*") else ("suffix", said[1:], span)
    m = NAME_PART.search(question)
    if m is None:
        return None
    g = m.groupdict()
    part = g["part"].rstrip(".")
    if part.lower() in ("the", "a", "an"):
        return None
    how = ("prefix" if g["start"] or g["prefixed"] or (g["prefix"] or "").lower() == "prefix"
           else "suffix" if g["end"] or g["suffixed"] or g["prefix"] else "contains")
    return how, part, m.span()


def phrase(how: str, part: str, many: bool) -> str:
    said = {"prefix": "starting with", "suffix": "ending with", "contains": "containing"}[how]
    return f"{'have names' if many else 'has a name'} {said} {part}"


def fits(how: str, part: str, names: list[str]) -> bool:
    """Does one of the row's names start with, end with or contain the part (case aside)?"""
    p = part.casefold()
    for name in (n.casefold() for n in names if n):
        if (name.startswith(p) if how == "prefix" else name.endswith(p) if how == "suffix" else p in name):
            return True
    return False


def row_names(entity_id: str, label: str) -> list[str]:
    """A row's own names: its label, its id without the kind ("hr_raw.pay_runs") and that id's last part ("pay_runs")."""
    bare = entity_id.split(".", 1)[1] if "." in entity_id else entity_id
    return [label, bare, bare.rsplit(".", 1)[-1]]
