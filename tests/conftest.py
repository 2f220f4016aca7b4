import contextlib
import io
import os
import shutil
import sys
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

for key, value in {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "LITELLM_LOCAL_MODEL_COST_MAP": "True",
                   "LANCEDB_LOG": "error", "HF_HUB_DISABLE_PROGRESS_BARS": "1"}.items():
    os.environ.setdefault(key, value)

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
# Tests are grouped by stage (tests/<stage>/); the shared harnesses (conftest, existence, concurrency,
# streamlit_server) sit here, and a few test modules share helpers by module name (test_permissions' hidden
# objects, test_explain's fake model), so every group is importable from every other.
TESTS = Path(__file__).resolve().parent
sys.path[1:1] = [str(TESTS)] + sorted(str(d) for d in TESTS.iterdir() if d.is_dir() and any(d.glob("test_*.py")))

import pytest  # noqa: E402

from core.answer.ask import Question, ask  # noqa: E402
from core.catalog.store import Store, write_catalog  # noqa: E402
from core.ingest.load import load_catalog  # noqa: E402
from core.retrieve.embed import Embedder  # noqa: E402
from core.retrieve.search import Searcher  # noqa: E402
from core.retrieve.writer import build_index  # noqa: E402

DEMO = ROOT / "data" / "demo"
SUITES = ROOT / "tests" / "suites"
# The demo's recorded loads are from the morning of 2026-11-29; freshness is evaluated at noon that day.
DEMO_AT = datetime(2026, 11, 29, 12, 0, tzinfo=timezone.utc)


@pytest.fixture(scope="module", autouse=True)
def _fresh_page_caches():
    """The pages cache their settings and catalog per process (st.cache_resource, read from ASOF_DB and the
    rest of the environment once). Each test module starts from its own environment, whatever module ran before
    it on this worker: with the suite spread over workers, the order of modules on one process is not fixed."""
    _clear_page_caches()
    yield
    _clear_page_caches()


def _clear_page_caches() -> None:
    st = sys.modules.get("streamlit")
    if st is not None:
        st.cache_resource.clear()
        st.cache_data.clear()


@pytest.fixture(scope="session")
def embedder() -> Embedder:
    return Embedder()


def build(tmp_dir: Path, name: str, source: Path, embedder: Embedder) -> tuple[Store, Searcher]:
    """Ingest like the CLI does: DuckDB catalog plus the LanceDB index beside it."""
    db = tmp_dir / f"{name}.duckdb"
    catalog = load_catalog(source)
    write_catalog(catalog, db)
    build_index(catalog, db, embedder, quiet=True)
    store = Store(db)
    return store, Searcher(store, embedder)


def asker(tmp_path_factory, embedder, name: str, roles: list[str], evidence: list[dict], at):
    """`ask(text, role)` on a catalog a test writes itself (its roles and evidence), on its own clock `at`."""
    from visits_catalog import write_yaml_catalog

    from core.answer.ask import Question, ask
    root = tmp_path_factory.mktemp(name)
    store, searcher = build(root, name, write_yaml_catalog(root / "catalog", roles, evidence, at), embedder)

    def _ask(text: str, role: str):
        return ask(store, Question(role=role, text=text, at=at), searcher=searcher)
    return _ask


@pytest.fixture(scope="session")
def demo(tmp_path_factory, embedder) -> tuple[Store, Searcher]:
    return build(tmp_path_factory.mktemp("demo"), "demo", DEMO, embedder)


@pytest.fixture(scope="session")
def demo_store(demo) -> Store:
    return demo[0]


@pytest.fixture(scope="session")
def suites(tmp_path_factory, embedder) -> dict[str, tuple[Store, Searcher]]:
    return {s: build(tmp_path_factory.mktemp(f"suite_{s}"), f"suite_{s}", SUITES / f"suite_{s}.catalog.json", embedder)
            for s in ("a", "b")}


@pytest.fixture
def ask_demo(demo):
    store, searcher = demo

    def _ask(question: str, role: str = "analyst", day=None, period=None, at=DEMO_AT):
        return ask(store, Question(role=role, text=question, day=day, period=period, at=at), searcher=searcher)
    return _ask


@dataclass
class CliResult:
    returncode: int
    stdout: str
    stderr: str


def cli(*args) -> CliResult:
    """`python -m core ...` in this process, so the embedding model stays loaded between calls
    (test_cli also runs the real entry point in fresh processes)."""
    from core.serve.cli import main
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(args))
        except SystemExit as exc:  # argparse's own usage errors
            code = exc.code
    return CliResult(code, out.getvalue(), err.getvalue())


@pytest.fixture(scope="session")
def ingested_demo(tmp_path_factory) -> Path:
    """The demo ingested once through the CLI, as a user would."""
    db = tmp_path_factory.mktemp("ingested") / "demo.duckdb"
    r = cli("ingest", str(DEMO), "--db", str(db))
    assert r.returncode == 0, r.stderr
    return db


@pytest.fixture
def demo_copy(tmp_path, ingested_demo) -> Path:
    """A private copy of the ingested demo (database and index) for a test that changes or breaks it."""
    db = tmp_path / "demo.duckdb"
    shutil.copy(ingested_demo, db)
    shutil.copytree(ingested_demo.with_suffix(".lance"), db.with_suffix(".lance"))
    return db


def listed(env) -> list[str]:
    """The entity ids a listing answer names, after checking it is one."""
    from core.catalog.envelope import Behavior
    assert env.behavior is Behavior.answer and env.listing is not None, (env.behavior, env.verdict)
    return [it.entity_id for it in env.listing.items]
