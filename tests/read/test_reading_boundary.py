"""A question is read once, in core/read/: the stages after it (answer/, resolve/, explain/) take its `Reading` and never
read the question's text themselves. Before this, about 60 places in 14 modules re-scanned `q.text` (the intent
reader five times on one path); a new one would quietly bring that back, so this reads every module of those stages
(serve/ may keep the text, for the audit log) and names each place that touches the question's text: `.text` of a
question (`q`, `question`, `run.q`) or the Reading's own `_text`. The import-linter contract "Only read/ reads the
words of a question" (pyproject.toml) keeps read/'s text readers out of the same stages."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from core.read.reading import read

ROOT = Path(__file__).resolve().parents[2] / "core"
LATER_STAGES = ("answer", "resolve", "explain")
QUESTION_NAMES = {"q", "question"}


def touches_question_text(source: str) -> list[int]:
    """Line numbers where `source` reads a question's text: `q.text`, `question.text`, `<x>.q.text`, `._text`."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Attribute):
            continue
        if node.attr == "_text":
            lines.append(node.lineno)
        elif node.attr == "text":
            owner = node.value
            name = owner.id if isinstance(owner, ast.Name) else owner.attr if isinstance(owner, ast.Attribute) else None
            if name in QUESTION_NAMES:
                lines.append(node.lineno)
    return lines


def violations(root: Path) -> list[str]:
    return [f"{path.relative_to(root.parent)}:{line}"
            for stage in LATER_STAGES for path in sorted((root / stage).rglob("*.py"))
            for line in touches_question_text(path.read_text())]


def test_no_later_stage_reads_the_question_text():
    assert violations(ROOT) == [], "read it in core/read/reading.py and take it from run.reading"


@pytest.mark.parametrize("source", [
    "def f(run):\n    return run.q.text.lower()\n",
    "def f(q):\n    return len(q.text)\n",
    "def f(question):\n    return question.text\n",
    "def f(run):\n    return run.reading._text\n",
])
def test_the_check_sees_each_way_of_reading_the_text(source):
    assert touches_question_text(source) == [2]


def test_evidence_text_is_not_the_question():
    # Evidence, citations and sentences have text of their own: reading those is what the later stages are for.
    assert touches_question_text("def f(ev, s, c):\n    return ev.text + s.text + c.text\n") == []


class _Asked:  # what core/answer/ask.py's Question gives read(): its text and what a follow-up carried
    def __init__(self, text: str, carried: str | None = None):
        self.text, self.carried = text, carried


def test_a_reading_holds_what_the_stages_ask_of_the_words():
    from datetime import date
    reading = read(_Asked("which dashboards use fare takings vs ridership in 2024?", "Continuing"), date(2025, 3, 1))
    assert reading.downstream_kind == "exposure"
    assert [d.start for d in reading.intent.dates] == [date(2024, 1, 1)]
    sides = reading.sides
    assert sides is not None and [s.content_words([d.span for d in s.intent.dates]) for s in sides][1] == ["ridership"]
    assert reading.carried == "Continuing" and "fare" in reading.all_words
    assert "_text" not in repr(reading) and "dashboards" not in repr(reading)  # the words stay inside
