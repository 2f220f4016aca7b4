"""What disagrees with the governing definition, for a question that asks whether anything does ("are there drafts or
wiki pages that contradict how churn is defined?"; core/read/intents/disagreement.py reads the question).

Nothing new is looked for: the answer's conflicts are already the role's drafts, superseded pages, notes and other
non-governing documents about the entity on the date (catalog rules and the search pass). Approved versions in effect
at other times are other versions, not disagreement, and a draft that starts after the date (NOT YET IN EFFECT) is a
change to come, not a disagreement on that date (the status line's "No draft disagrees" says the same). Of the rest, those of the kinds the question names ("wiki pages":
the wiki's) decide yes or no; the others are kept, so "no wiki page disagrees, but a draft does" can be said.
"""
from __future__ import annotations

from core.catalog.envelope import Conflict, Disagreement
from core.catalog.evidence import Evidence, Kind, Lifecycle
from core.catalog.text import tokenize
from core.resolve.upcoming import LABEL as LATER


def of_kind(ev: Evidence, kind: str) -> bool:
    """Whether a document is of a kind a question names: a draft (or proposal) by its lifecycle, a note by its kind,
    the rest by a word of its title, kind or class ("wiki" in "Revenue Handbook (old wiki page)" or class wiki)."""
    if kind == "draft":
        return ev.lifecycle is Lifecycle.draft
    if kind == "note" and ev.kind is Kind.note:
        return True
    words = {t.norm for t in tokenize(f"{ev.title} {ev.kind.value} {ev.authority_class or ''}")}
    return kind in words


def disagreement(conflicts: list[Conflict], evidence: dict[str, Evidence], asked: list[str],
                 governing: str) -> Disagreement:
    """`evidence`: the conflicts' objects as the role's view reads them (one missing is not counted); `asked`: the kinds
    the question names, none for any kind."""
    disagreeing = [c.evidence_id for c in conflicts
                   if c.evidence_id in evidence and not evidence[c.evidence_id].governs and c.label != LATER]
    mine = [i for i in disagreeing if not asked or any(of_kind(evidence[i], k) for k in asked)]
    return Disagreement(asked=asked, verdict="yes" if mine else "no", evidence_ids=mine,
                        others=[i for i in disagreeing if i not in mine], governing=governing)
