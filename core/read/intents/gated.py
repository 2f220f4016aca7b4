"""A large pattern compiled on first need, and never for a question that lacks a part every match contains.

Compiling the intent patterns was about a tenth of a cold `asof ask` (one process, one question; docs/scale.md): the
listing patterns alone took 50 ms, and a definition question ("what is the churn rate?") never names a plural kind or
a freshness word, so it can never match them. `needs` is such a part: when it is found nowhere in the question, the
pattern cannot match there either, and `search` answers None without compiling it. Otherwise the compiled pattern
answers, so a gated pattern finds exactly what the plain one finds (tests/read/test_gated_patterns.py checks it).
"""
from __future__ import annotations

import re
from collections.abc import Iterator


class Gated:
    """`re.compile(pattern, flags)`, compiled when first searched; `needs` (optional): a pattern every match of
    `pattern` contains a match of, tested first."""

    __slots__ = ("pattern", "flags", "_needs", "_compiled")

    def __init__(self, pattern: str, flags: int = 0, needs: str | None = None):
        self.pattern, self.flags = pattern, flags
        self._needs = re.compile(needs, flags) if needs else None
        self._compiled: re.Pattern | None = None

    @property
    def compiled(self) -> re.Pattern:
        if self._compiled is None:
            self._compiled = re.compile(self.pattern, self.flags)
        return self._compiled

    @property
    def is_compiled(self) -> bool:
        return self._compiled is not None

    def _may_match(self, string: str) -> bool:
        return self._needs is None or self._needs.search(string) is not None

    def search(self, string: str) -> re.Match | None:
        return self.compiled.search(string) if self._may_match(string) else None

    def finditer(self, string: str) -> Iterator[re.Match]:
        return self.compiled.finditer(string) if self._may_match(string) else iter(())
