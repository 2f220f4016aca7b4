"""What the resolve steps read and write of one question's run (core/answer/ask.py `_Run` is one): the question,
the role's view, what was read of it (`reading`, `intent`), the dates decided, and the trace and notes the answer carries. A protocol,
so the resolver depends on no stage above it."""
from __future__ import annotations

from datetime import date, datetime
from typing import Any, Protocol


class Run(Protocol):
    q: Any
    view: Any
    reading: Any  # core/read/reading.py: the question as read; the resolver never reads its text
    intent: Any
    at: datetime
    searcher: Any
    day: date | None
    period: tuple[date, date] | None
    notes: list[str]
    columns: Any
    other_versions: list
    answer_vector: object

    def step(self, rule: str, detail: str) -> None: ...

    def envelope(self, behavior: Any, verdict: str, **kw) -> Any: ...
