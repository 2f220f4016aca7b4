"""The CLI contract: ask, --json, --batch in input order, exit codes."""
import json
import subprocess
import sys

import pytest
from conftest import DEMO, ROOT, cli


def run_module(*args):
    """The real entry point, `python -m core`, in a fresh process."""
    return subprocess.run([sys.executable, "-m", "core", *args], cwd=ROOT, capture_output=True, text=True)


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    path = tmp_path_factory.mktemp("cli") / "demo.duckdb"
    assert cli("ingest", str(DEMO), "--db", str(path)).returncode == 0
    return str(path)


def test_ask_human_readable(db):
    r = run_module("ask", "--db", db, "--role", "analyst", "--date", "2025-03-31", "What does net revenue mean?")
    assert r.returncode == 0
    assert r.stdout.startswith("[answer]") and "metric.net_revenue.v2" in r.stdout


def test_ask_json(db):
    r = cli("ask", "--db", db, "--role", "analyst", "--date", "2024-06-30", "--json", "What does net revenue mean?")
    env = json.loads(r.stdout)
    assert env["behavior"] == "answer" and env["selected"][0]["evidence_id"] == "metric.net_revenue.v1"
    assert env["trace"] and env["catalog_revision"]


def test_every_behavior_exits_zero(db):
    for q in ("What is net revenue?", "What is zebra margin?", "What is CLV?"):
        assert cli("ask", "--db", db, "--role", "analyst", q).returncode == 0


def test_period_flag(db):
    r = cli("ask", "--db", db, "--role", "analyst", "--period", "2025-01-01..2025-12-31", "--json", "churn definition")
    assert json.loads(r.stdout)["behavior"] == "split"


def test_batch_keeps_input_order_in_a_fresh_process(db, tmp_path):
    lines = [{"question": "What is net revenue?", "role": "analyst", "date": "2024-06-30"},
             {"question": "What is net revenue?", "role": "analyst"},
             {"question": "Is raw_shop.orders fresh?", "role": "finance", "at": "2026-11-29T12:00:00Z"},
             {"question": "What is CAC?", "role": "marketing", "date": "2025-01-31"}]
    batch = tmp_path / "q.jsonl"
    batch.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    r = run_module("ask", "--db", db, "--batch", str(batch))
    assert r.returncode == 0, r.stderr
    out = [json.loads(x) for x in r.stdout.splitlines()]
    # The undated question is answered for the demo's today, not asked back (issue 19 item 3).
    assert [e["behavior"] for e in out] == ["answer", "answer", "answer", "answer"]
    assert out[1]["reporting_date"] == "2026-11-29" and out[1]["today_by_default"]
    assert [e["role"] for e in out] == ["analyst", "analyst", "finance", "marketing"]


@pytest.mark.parametrize("args", [
    ["ask", "--role", "ceo", "What is net revenue?"],
    ["ask", "--role", "analyst", "--date", "2025-02-30", "q"],
    ["ask", "--role", "analyst", "--period", "2025-12-31..2025-01-01", "q"],
    ["ask", "--role", "analyst"],
])
def test_bad_usage_exits_two(db, args):
    r = run_module(args[0], "--db", db, *args[1:]) if "ceo" in args else cli(args[0], "--db", db, *args[1:])
    assert r.returncode == 2
    assert "error" in r.stderr.lower()


def test_batch_with_unknown_role_prints_nothing(db, tmp_path):
    batch = tmp_path / "q.jsonl"
    batch.write_text(json.dumps({"question": "q", "role": "analyst"}) + "\n" + json.dumps({"question": "q", "role": "ceo"}))
    r = cli("ask", "--db", db, "--batch", str(batch))
    assert r.returncode == 2 and r.stdout == "" and "ceo" in r.stderr


def test_a_batch_line_that_fails_inside_costs_only_itself(db, tmp_path, monkeypatch):
    import core.serve.cli
    real = core.serve.cli._answer

    def flaky(store, q, searcher, args, last=None):
        if "boom" in q.text:
            raise TypeError("secret catalog words")
        return real(store, q, searcher, args, last)
    monkeypatch.setattr(core.serve.cli, "_answer", flaky)
    batch = tmp_path / "q.jsonl"
    batch.write_text("\n".join(json.dumps({"question": q, "role": "analyst"})
                               for q in ("net revenue on 2025-03-31", "boom", "churn rate on 2025-01-01")))
    r = cli("ask", "--db", db, "--batch", str(batch))
    lines = [json.loads(x) for x in r.stdout.splitlines()]
    assert r.returncode == 1 and len(lines) == 3
    assert lines[0]["behavior"] == "answer" and lines[2]["behavior"] == "answer"
    assert lines[1] == {"line": 2, "error": "internal error (TypeError); the other lines are answered"}
    assert "secret" not in r.stdout + r.stderr


def test_missing_database(tmp_path):
    r = cli("ask", "--db", str(tmp_path / "none.duckdb"), "--role", "analyst", "q")
    assert r.returncode == 2 and "ingest" in r.stderr


def test_a_steward_asks_as_in_the_app(db):
    """The CLI widens a steward's view to its review queue exactly as the Ask page does, and says so; it stays
    the steward's own answer, and a question about an object outside the queue stays not found."""
    r = cli("ask", "--db", db, "--role", "governance", "--date", "2025-03-31", "What is net revenue?")
    assert r.returncode == 0
    assert "role: governance" in r.stdout and "metric.net_revenue.v2" in r.stdout
    assert "note: Steward view (read-only):" in r.stdout and "from your review queue" in r.stdout
    r = cli("ask", "--db", db, "--role", "governance", "--json", "which metrics use net revenue?")
    assert "contribution_margin" not in r.stdout and "cogs_usd" not in r.stdout
    r = cli("ask", "--db", db, "--role", "governance", "--json", "What does contribution margin mean on 2025-03-31?")
    env = json.loads(r.stdout)
    assert env["role"] == "governance" and env["behavior"] == "not_found_or_not_authorized"
    assert not any("Steward view" in n for n in env["notes"])
    # A non-steward is never widened.
    r = cli("ask", "--db", db, "--role", "marketing", "--json", "What does contribution margin mean on 2025-03-31?")
    assert json.loads(r.stdout)["behavior"] == "not_found_or_not_authorized"
