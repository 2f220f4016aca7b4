"""The explanation attached to an envelope: cited sentences plus the validator's verdict on them."""
from __future__ import annotations

from pydantic import BaseModel, Field

DETERMINISTIC = "deterministic"  # `model` of an explanation written without an LLM


class Cited(BaseModel):
    text: str
    citations: list[str] = Field(default_factory=list)


class Problem(BaseModel):
    sentence: int | None  # index into the checked sentences; None for the whole explanation
    rule: str
    detail: str


class Validation(BaseModel):
    passed: bool
    problems: list[Problem] = Field(default_factory=list)
    dropped: list[int] = Field(default_factory=list)  # sentences removed before showing


class Explanation(BaseModel):
    text: str
    sentences: list[Cited]
    citations: list[str]
    model: str
    validation: Validation
    fallback_used: bool = False
    fallback_reason: str | None = None

    @classmethod
    def of(cls, sentences: list[Cited], model: str, validation: Validation, fallback_reason: str | None = None):
        cites = list(dict.fromkeys(c for s in sentences for c in s.citations))
        return cls(text=" ".join(s.text for s in sentences), sentences=sentences, citations=cites, model=model,
                   validation=validation, fallback_used=fallback_reason is not None, fallback_reason=fallback_reason)
