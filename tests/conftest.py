import os
import sys
from datetime import datetime, timezone
from pathlib import Path

for key, value in {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "LITELLM_LOCAL_MODEL_COST_MAP": "True",
                   "LANCEDB_LOG": "error", "HF_HUB_DISABLE_PROGRESS_BARS": "1"}.items():
    os.environ.setdefault(key, value)

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import pytest  # noqa: E402

from core.ask import Question, ask  # noqa: E402
from core.load import load_catalog  # noqa: E402
from core.store import Store, write_catalog  # noqa: E402

DEMO = ROOT / "data" / "demo"
SUITES = ROOT / "tests" / "suites"
# The demo's recorded loads are from the morning of 2026-11-29; freshness is evaluated at noon that day.
DEMO_AT = datetime(2026, 11, 29, 12, 0, tzinfo=timezone.utc)


def _build(tmp_path_factory, name: str, source: Path) -> Store:
    db = tmp_path_factory.mktemp(name) / f"{name}.duckdb"
    write_catalog(load_catalog(source), db)
    return Store(db)


@pytest.fixture(scope="session")
def demo_store(tmp_path_factory) -> Store:
    return _build(tmp_path_factory, "demo", DEMO)


@pytest.fixture(scope="session")
def suite_stores(tmp_path_factory) -> dict[str, Store]:
    return {s: _build(tmp_path_factory, f"suite_{s}", SUITES / f"suite_{s}.catalog.json") for s in ("a", "b")}


@pytest.fixture
def ask_demo(demo_store):
    def _ask(question: str, role: str = "analyst", day=None, period=None, at=DEMO_AT):
        return ask(demo_store, Question(role=role, text=question, day=day, period=period, at=at))
    return _ask
