"""What the ranker weighs and what it decides: a Candidate carries one entity's signals, scored by WEIGHTS; a
Choice is the decision (an entity, a question back with at most MAX_OPTIONS options, or nothing found)."""
from __future__ import annotations

from dataclasses import dataclass, field

from core.catalog.entities import Match
from core.catalog.text import Token

# ---- the scoring model's weights (its thresholds: core/read/names/ranker.py) -----------------------------
WEIGHTS = {"phrase": 1.0, "length": 0.05, "fuzzy": 0.9, "head": 0.5, "bm25": 0.1, "dense": 0.6,
           "kind": 0.35, "aspect": 0.1, "subject": 0.4, "part": 0.4}


MAX_OPTIONS = 4


@dataclass
class Candidate:
    entity_id: str
    features: dict[str, float] = field(default_factory=dict)
    span: tuple[int, int] | None = None  # token span of the name in the question
    read_as: str | None = None  # the question's words, when they were read as a misspelt name

    @property
    def score(self) -> float:
        return sum(WEIGHTS[k] * v for k, v in self.features.items())


@dataclass
class Choice:
    decision: str  # answer | clarify | none
    entity_id: str | None = None
    options: list[str] = field(default_factory=list)
    rule: str = ""
    note: str | None = None  # how a misspelt name was read
    related: list[str] = field(default_factory=list)
    matches: list[Match] = field(default_factory=list)
    toks: list[Token] = field(default_factory=list)
    candidates: list[Candidate] = field(default_factory=list)
