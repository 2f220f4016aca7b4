"""Bounded work per question: the one place that says how long a question may be and how much work one
answer may take. Every surface (core.answer.ask, the CLI, the MCP tools, the Ask page) reads these.

The length cap is checked before anything reads the question. The time budget is CPU time of the thread
answering (time.thread_time), so a busy machine does not cut an ordinary answer short, while a question
that keeps one CPU busy is stopped: `check()` is called between steps (core/answer/ask.py, core/read/dates/written.py) and
raises OverBudget once the answer's budget is spent; core.answer.ask turns that into an abstain envelope. Loading
the embedding model and an LLM reading (which has its own timeout) are not counted (`not_counted`).
"""
from __future__ import annotations

import time
from contextlib import contextmanager
from contextvars import ContextVar

MAX_QUESTION_CHARS = 2000   # longer questions are refused before they are read
ANSWER_BUDGET_S = 5.0       # CPU seconds one answer may use; ordinary answers take well under 0.5 s

_deadline: ContextVar[float | None] = ContextVar("asof_answer_deadline", default=None)


class QuestionTooLong(ValueError):
    """A question over MAX_QUESTION_CHARS: refused on every surface with the same message."""


class OverBudget(RuntimeError):
    """The answer's time budget is spent (raised by check(), handled in core.answer.ask)."""


def too_long(text: str | None) -> str | None:
    """The message for a question over the cap, or None."""
    n = len(text or "")
    if n <= MAX_QUESTION_CHARS:
        return None
    return (f"The question is {n:,} characters long; AsOf reads questions of up to {MAX_QUESTION_CHARS:,} "
            "characters. Ask a shorter question (one metric, one date).")


def check_question(text: str | None) -> None:
    message = too_long(text)
    if message:
        raise QuestionTooLong(message)


def over_budget_message() -> str:
    return (f"Stopped: this question needed more than {ANSWER_BUDGET_S:g} seconds of work, so it was not "
            "answered. Ask a shorter, more specific question.")


@contextmanager
def answer_budget(seconds: float | None = None):
    """Give the answer computed inside the block `seconds` (default ANSWER_BUDGET_S) of this thread's CPU time.
    Nested blocks keep the outer deadline: one answer has one budget."""
    if _deadline.get() is not None:
        yield
        return
    token = _deadline.set(time.thread_time() + (ANSWER_BUDGET_S if seconds is None else seconds))
    try:
        yield
    finally:
        _deadline.reset(token)


@contextmanager
def not_counted():
    """Work inside the block is not the question's own (loading the embedding model once per process, an LLM
    call with its own timeout): the answer's deadline moves by the CPU time it took."""
    start = time.thread_time()
    try:
        yield
    finally:
        deadline = _deadline.get()
        if deadline is not None:
            _deadline.set(deadline + time.thread_time() - start)


def check() -> None:
    """Raise OverBudget when the current answer's budget is spent; free outside an answer."""
    deadline = _deadline.get()
    if deadline is not None and time.thread_time() >= deadline:
        raise OverBudget(over_budget_message())
