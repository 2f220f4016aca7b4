"""Does a definition count something? Read from the definition's structured fields only, never its prose:
an exclusion that names every word of the term says no; a formula whose identifiers name every word says
yes; anything else is "not stated" (a filter is left out on purpose: `is_test = false` names test orders to
leave them out, so a name in a filter says nothing about which way). Pure."""
from __future__ import annotations

import re

from core.catalog.envelope import Inclusion
from core.catalog.evidence import Evidence
from core.catalog.text import content_words


def _words(text: str) -> set[str]:
    return set(content_words(re.sub(r"[_.]", " ", text)))


def inclusion(definition: Evidence, term: str) -> Inclusion | None:
    if definition.metric is None:
        return None
    want = set(content_words(term))
    if not want:
        return None
    m = definition.metric
    for excluded in m.exclusions:
        if want <= _words(excluded):
            return Inclusion(term=term, verdict="no", where=excluded, evidence_id=definition.evidence_id)
    if want <= _words(m.formula):
        # Name the identifiers that carry the term: "uses refunds" must be read against refund_amount_usd's
        # sign in the formula, which the answer shows, not against the word "includes".
        names = [n for n in dict.fromkeys(re.findall(r"[A-Za-z_][\w.]*", m.formula)) if want & _words(n)]
        return Inclusion(term=term, verdict="yes", where=", ".join(names) or m.formula,
                         evidence_id=definition.evidence_id)
    return Inclusion(term=term, verdict="not_stated", evidence_id=definition.evidence_id)
