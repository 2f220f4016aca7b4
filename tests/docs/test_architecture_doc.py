"""docs/architecture.md's package table is how a newcomer finds a module: each stage's row names every module of its
package (sub-packages as `dates/written.py`), and names none that is gone. A module added, moved or merged without
its row fails here, with the names to add or drop."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "architecture.md").read_text()
STAGES = sorted(p.name for p in (ROOT / "core").iterdir() if (p / "__init__.py").exists())


def row(stage: str) -> str:
    m = re.search(rf"^\| {stage} \| `core/{stage}/` \|(.*)$", DOC, re.M)
    assert m, f"docs/architecture.md has no row for core/{stage}/"
    return m.group(1)


@pytest.mark.parametrize("stage", STAGES)
def test_the_row_names_every_module_of_its_package(stage):
    modules = {str(p.relative_to(ROOT / "core" / stage)) for p in (ROOT / "core" / stage).rglob("*.py")
               if p.name != "__init__.py"}
    named = set(re.findall(r"`([\w/]+\.py)", row(stage)))
    assert sorted(modules - named) == [], f"add to the {stage} row of docs/architecture.md"
    assert sorted(named - modules) == [], f"gone from core/{stage}/: drop from docs/architecture.md"


def test_the_walk_through_names_files_that_exist():
    # "One question, top to bottom" and "One reading per question" cite files as <stage>/<path>.py.
    cited = set(re.findall(r"`((?:" + "|".join(STAGES) + r")/[\w/]+\.py)", DOC))
    assert cited and sorted(c for c in cited if not (ROOT / "core" / c).exists()) == []
