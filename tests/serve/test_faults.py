"""Faults: a broken index, a broken database file, unusable paths, a full disk, and `kill -9` mid-ingest.

What a user notices: `ask` keeps answering from the catalog with a visible notice when the index is
gone or corrupted, the next ingest rebuilds it, bad files and paths give one clear error (exit 2, no
traceback), and an ingest killed at any moment leaves the previous catalog and index answering exactly
as before.
"""
import errno
import hashlib
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import DEMO, ROOT, cli

from core.ingest.load import load_catalog

QUESTION = ["--role", "analyst", "--date", "2025-03-31", "--at", "2026-11-29T12:00:00Z", "--json",
            "What does net revenue mean?"]


def digest(path: Path) -> str:
    if path.is_dir():
        h = hashlib.sha256()
        for p in sorted(path.rglob("*")):
            h.update(str(p.relative_to(path)).encode())
            if p.is_file():
                h.update(p.read_bytes())
        return h.hexdigest()
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _garbage(path: Path) -> None:
    path.write_bytes(os.urandom(max(path.stat().st_size, 64)))


CORRUPTIONS = {
    "folder deleted": lambda lance: shutil.rmtree(lance),
    "data files overwritten": lambda lance: [_garbage(p) for p in (lance / "chunks.lance" / "data").iterdir()],
    "data files truncated": lambda lance: [os.truncate(p, 100) for p in (lance / "chunks.lance" / "data").iterdir()],
    "manifests overwritten": lambda lance: [_garbage(p) for p in (lance / "chunks.lance" / "_versions").glob("*.manifest")],
    "full-text index deleted": lambda lance: [shutil.rmtree(p) for p in (lance / "chunks.lance" / "_indices").iterdir()],
}


def _answer(db: Path) -> dict:
    r = cli("ask", "--db", str(db), *QUESTION)
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stderr
    return json.loads(r.stdout)


@pytest.mark.parametrize("how", list(CORRUPTIONS), ids=list(CORRUPTIONS))
def test_broken_index_answers_from_the_catalog_with_a_notice(demo_copy, how):
    baseline = _answer(demo_copy)
    assert baseline["index"]["status"] == "current"
    CORRUPTIONS[how](demo_copy.with_suffix(".lance"))
    env = _answer(demo_copy)
    assert env["behavior"] == baseline["behavior"] == "answer"
    assert [s["evidence_id"] for s in env["selected"]] == [s["evidence_id"] for s in baseline["selected"]]
    assert env["index"]["status"] == "unavailable"
    assert any(n.startswith("Search index unavailable") and "ingest" in n for n in env["notes"])
    text = cli("ask", "--db", str(demo_copy), *[a for a in QUESTION if a != "--json"]).stdout
    assert "note: Search index unavailable" in text


def test_next_ingest_rebuilds_a_corrupted_index(demo_copy):
    baseline = _answer(demo_copy)
    CORRUPTIONS["data files overwritten"](demo_copy.with_suffix(".lance"))
    r = cli("ingest", str(DEMO), "--db", str(demo_copy))
    assert r.returncode == 0, r.stderr
    assert "cannot be read" in r.stderr and "rebuilding" in r.stderr
    assert "107 embedded" in r.stdout  # nothing reusable in a corrupted index
    env = _answer(demo_copy)
    assert env["index"] == baseline["index"] and env["selected"] == baseline["selected"]
    assert env["conflicts"] == baseline["conflicts"]
    assert not list(demo_copy.parent.glob(".*broken*")), "the set-aside broken index is removed"


@pytest.mark.parametrize("make", ["empty", "truncated", "not duckdb", "folder"])
def test_unreadable_database_file_is_a_clear_error(tmp_path, ingested_demo, make):
    db = tmp_path / "demo.duckdb"
    if make == "empty":
        db.write_bytes(b"")
    elif make == "truncated":
        db.write_bytes(ingested_demo.read_bytes()[:5000])
    elif make == "not duckdb":
        db.write_text("roles: [analyst]\n" * 500)
    else:
        db.mkdir()
    r = cli("ask", "--db", str(db), "--role", "analyst", "What is net revenue?")
    assert r.returncode == 2
    assert str(db) in r.stderr and "ingest" in r.stderr and "Traceback" not in r.stderr, r.stderr


def test_ingest_into_unusable_paths_is_a_clear_error(tmp_path):
    folder = tmp_path / "a_folder.duckdb"
    folder.mkdir()
    r = cli("ingest", str(DEMO), "--db", str(folder))
    assert r.returncode == 2 and "is a folder" in r.stderr

    (tmp_path / "x.lance").write_text("not an index")
    r = cli("ingest", str(DEMO), "--db", str(tmp_path / "x.duckdb"))
    assert r.returncode == 2 and "x.lance is a file" in r.stderr
    assert not (tmp_path / "x.duckdb").exists()

    # Root ignores permission bits, so an unwritable place is a path below a regular file.
    blocker = tmp_path / "blocker"
    blocker.write_text("a file")
    r = cli("ingest", str(DEMO), "--db", str(blocker / "sub" / "c.duckdb"))
    assert r.returncode == 2 and "is a file, not a folder" in r.stderr


def test_full_disk_while_writing_the_database_leaves_it_unchanged(demo_copy, monkeypatch):
    before = (digest(demo_copy), digest(demo_copy.with_suffix(".lance")))
    answer = _answer(demo_copy)
    import core.catalog.store as store

    def full(*_a, **_k):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    monkeypatch.setattr(store.os, "replace", full)
    changed = demo_copy.parent / "changed.json"
    data = json.loads(load_catalog(DEMO).model_dump_json())
    data["evidence"][0]["text"] += " Changed."
    changed.write_text(json.dumps({"roles": data["roles"], "principals": data["principals"],
                                   "evidence": data["evidence"]}))
    r = cli("ingest", str(changed), "--db", str(demo_copy))
    monkeypatch.undo()
    assert r.returncode == 2 and "No space left on device" in r.stderr and "unchanged" in r.stderr, r.stderr
    assert digest(demo_copy) == before[0]
    assert not list(demo_copy.parent.glob(".*tmp-*")), "the temporary database is removed"
    assert _answer(demo_copy) == answer


def test_full_disk_while_writing_the_index_leaves_the_database_unchanged(demo_copy, monkeypatch):
    before = digest(demo_copy)
    import core.ingest.publish as publish_mod

    def full(*_a, **_k):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    monkeypatch.setattr(publish_mod, "write_index", full)
    r = cli("ingest", str(DEMO), "--db", str(demo_copy))
    assert r.returncode == 2 and "No space left on device" in r.stderr and "search index" in r.stderr
    assert digest(demo_copy) == before


def test_stale_temp_files_of_dead_ingests_are_removed(demo_copy):
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    stale = [demo_copy.parent / f".demo.duckdb.tmp-{dead.pid}", demo_copy.parent / f".demo.duckdb.tmp-{dead.pid}.wal"]
    for p in stale:
        p.write_bytes(os.urandom(4096))
    aside = demo_copy.parent / f".demo.lance.broken-{dead.pid}"
    aside.mkdir()
    spill = demo_copy.parent / f".demo.duckdb.tmp-{dead.pid}.spill"  # pages DuckDB wrote out while it wrote
    spill.mkdir()
    (spill / "duckdb_temp_storage-0.tmp").write_bytes(os.urandom(4096))
    stale.append(spill)
    live = demo_copy.parent / ".demo.duckdb.tmp-1"  # pid 1 is alive: maybe someone's ingest in progress
    live.write_bytes(b"x")
    _answer(demo_copy)  # readers are not disturbed by temporary files
    r = cli("ingest", str(DEMO), "--db", str(demo_copy))
    assert r.returncode == 0, r.stderr
    assert not any(p.exists() for p in stale) and not aside.exists()
    assert live.exists()


# ---- kill -9 at random moments of an ingest ---------------------------------------------------------

# The ingest runs in a child process with a deterministic bag-of-words embedder (the real model takes
# seconds to import, which would leave no time for many kills); the code path is the CLI's own.
EMBEDDER = """
import hashlib
import numpy as np

class WordEmbedder:
    dim = 64
    precision = "fp32"
    def __init__(self, *a, **k): pass
    def for_rows(self, rows): return self
    def for_precision(self, precision): return self
    def encode(self, texts, progress=None):
        out = np.zeros((len(texts), 64), np.float32)
        for i, t in enumerate(texts):
            for w in t.lower().split():
                out[i, int(hashlib.md5(w.encode()).hexdigest(), 16) % 64] += 1
        n = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.where(n == 0, 1, n)
"""
DRIVER = EMBEDDER + """
import os, signal, sys
import core.serve.cli as cli
import core.ingest.publish as publish
import core.catalog.store as store

cli.Embedder = WordEmbedder
point = os.environ.get("KILL_AT")
if point == "before_db":  # index committed and tagged, database not yet replaced
    publish.write_catalog = lambda *a, **k: os.kill(os.getpid(), signal.SIGKILL)
if point == "before_replace":  # temporary database complete, not yet renamed over the old one
    store.os.replace = lambda *a, **k: os.kill(os.getpid(), signal.SIGKILL)
print("READY", flush=True)
sys.exit(cli.main(sys.argv[1:]))
"""


def _embedder():
    ns: dict = {}
    exec(EMBEDDER, ns)  # noqa: S102 (the test's own code, shared with the child process)
    return ns["WordEmbedder"]()


ASKS = [("What does net revenue mean?", "analyst", "2025-03-31"), ("How was churn defined?", "analyst", None),
        ("Is raw_shop.orders fresh?", "finance", None), ("What is CAC?", "marketing", "2025-01-31"),
        ("What does the revenue wiki say?", "finance", "2024-06-30")]


def _answers(db: Path) -> tuple[str, list[dict]]:
    from datetime import date, datetime, timezone

    from core.answer.ask import Question, ask
    from core.catalog.store import Store
    from core.retrieve.search import Searcher

    store = Store(db)
    searcher = Searcher(store, _embedder())
    at = datetime(2026, 11, 29, 12, tzinfo=timezone.utc)
    out = [ask(store, Question(role=role, text=text, day=date.fromisoformat(day) if day else None, at=at),
               searcher=searcher).model_dump(mode="json", exclude={"recorded"})  # ingest numbers differ by file
           for text, role, day in ASKS]
    rev = store.revision
    store.close()
    return rev, out


def _catalogs(folder: Path) -> tuple[Path, Path]:
    """Two catalogs a re-ingest moves between: changed text, a removed page, an added note, a new ACL."""
    base = json.loads(load_catalog(DEMO).model_dump_json())
    old = {"roles": base["roles"], "principals": base["principals"], "evidence": base["evidence"]}
    new = json.loads(json.dumps(old))
    ev = {e["evidence_id"]: e for e in new["evidence"]}
    ev["metric.net_revenue.v2"]["text"] += " Refunds are netted in the month they are issued."
    new["evidence"] = [e for e in new["evidence"] if e["evidence_id"] != "note.revenue.slack_export"]
    new["evidence"].append({**ev["metric.net_revenue.v2"], "evidence_id": "note.revenue.kill_test",
                            "kind": "note", "authority": "non_authoritative", "lifecycle": "current",
                            "title": "A note added by the re-ingest", "metric": None, "superseded_by": None,
                            "supersedes": None, "links": {}, "content_hash": None})
    for e in new["evidence"]:
        if e["entity_id"] == "metric.churn_rate":
            e["acl"] = sorted(set(e["acl"]) | {"marketing"})
    for e in new["evidence"] + old["evidence"]:
        e["content_hash"] = None
    (folder / "old.json").write_text(json.dumps(old))
    (folder / "new.json").write_text(json.dumps(new))
    return folder / "old.json", folder / "new.json"


def _run(driver: Path, catalog: Path, db: Path, kill_after: float | None = None, point: str | None = None):
    env = {**os.environ, "PYTHONPATH": str(ROOT), **({"KILL_AT": point} if point else {})}
    p = subprocess.Popen([sys.executable, str(driver), "ingest", str(catalog), "--db", str(db)], cwd=ROOT, env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert p.stdout.readline().strip() == "READY"
    start = time.monotonic()
    if kill_after is not None:
        try:
            p.wait(timeout=kill_after)
        except subprocess.TimeoutExpired:
            p.send_signal(signal.SIGKILL)
    out, err = p.communicate(timeout=120)
    return p.returncode, time.monotonic() - start, out + err


def test_kill_9_at_random_moments_leaves_the_previous_catalog_answering(tmp_path):
    driver = tmp_path / "driver.py"
    driver.write_text(DRIVER)
    old, new = _catalogs(tmp_path)
    baselines, revs, work = {}, {}, []
    for name, catalog in (("old", old), ("new", new)):
        db = tmp_path / name / "c.duckdb"
        db.parent.mkdir()
        code, took, log = _run(driver, catalog, db)
        assert code == 0, log
        work.append(took)
        revs[name], answers = _answers(db)
        baselines[revs[name]] = answers
    assert len(baselines) == 2, "the two catalogs differ"

    db = tmp_path / "live" / "c.duckdb"
    db.parent.mkdir()
    assert _run(driver, old, db)[0] == 0
    rng = random.Random(14)
    # Two deterministic kill points (between index commit and database replace) and random moments.
    plan = [(None, "before_db"), (None, "before_replace")] + [
        (rng.uniform(0.0, max(work) * 0.9), None) for _ in range(8)]
    outcomes = []
    for delay, point in plan:
        rev_before, _ = _answers(db)
        target, rev_target = (new, revs["new"]) if rev_before == revs["old"] else (old, revs["old"])
        code, _, log = _run(driver, target, db, kill_after=delay if point is None else None, point=point)
        assert "Traceback" not in log, log
        rev, answers = _answers(db)
        # Either the previous revision or, if the kill came after the database was swapped in, the new one.
        assert rev in (rev_before, rev_target), "the catalog is one of the two complete revisions"
        assert code in (0, -signal.SIGKILL), log
        assert answers == baselines[rev], f"answers after kill ({delay}, {point}) differ from revision {rev}"
        outcomes.append("completed" if code == 0 else "killed" if rev == rev_before else "killed after commit")
    assert outcomes[:2] == ["killed", "killed"]
    assert any(o.startswith("killed") for o in outcomes[2:])
    # The next ingest after all this works and cleans up whatever the killed ones left.
    code, _, log = _run(driver, new, db)
    assert code == 0, log
    assert not list(db.parent.glob(".*tmp-*")) and not list(db.parent.glob(".*broken-*"))
    assert _answers(db) == (revs["new"], baselines[revs["new"]])
    print(f"kill -9 outcomes: {outcomes}; ingest took {max(work):.1f} s")
