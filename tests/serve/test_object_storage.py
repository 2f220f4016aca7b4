"""A catalog published to object storage and read by replicas, against a real S3 server (SeaweedFS,
started here on loopback; tests/objectstore.py): revisions are uploaded whole before CURRENT moves, a
replica answers exactly as the local catalog does (its index read from s3:// by LanceDB), follows a new
revision without a restart, and no answer mixes two revisions while publishes keep coming."""
import copy
import threading
import time
from datetime import date

import pytest
from concurrency import answer, foreign_ids, questions, run_threads
from conftest import DEMO
from objectstore import env_for, seaweedfs

from core.catalog.store import Store
from core.ingest.load import load_catalog
from core.ingest.publish import publish
from core.ingest.upload import publish_to
from core.retrieve.search import Searcher
from core.serve.cli import main
from core.serve.live import Live
from core.settings.objects import (
    DB_NAME,
    INDEX_NAME,
    POINTER,
    ObjectLocation,
    ObjectStoreError,
    RemoteIndex,
    read_pointer,
)

CATALOG = load_catalog(DEMO)
QS = questions(CATALOG)[::3]  # every role, common and aimed-at-hidden questions; a third keeps it quick
FOREIGN = {role: foreign_ids(CATALOG, role) for role in CATALOG.role_names}


def _changed(catalog):
    """The demo with net revenue v2 reworded (a different revision, and different answers about it)."""
    other = copy.deepcopy(catalog)
    for ev in other.evidence:
        if ev.evidence_id == "metric.net_revenue.v2":
            ev.text = ev.text + " Restated for the 2025 audit."
            ev.content_hash = ev.compute_hash()
    return other


@pytest.fixture(scope="module")
def s3(tmp_path_factory):
    with seaweedfs(tmp_path_factory.mktemp("seaweedfs")) as settings:
        yield settings


@pytest.fixture(scope="module")
def revisions(tmp_path_factory, embedder):
    """Two local revisions (A, B), each with its sequential answers to every question."""
    out = {}
    for name, cat in (("a", CATALOG), ("b", _changed(CATALOG))):
        db = tmp_path_factory.mktemp(f"rev-{name}") / "catalog.duckdb"
        publish(cat, db, embedder, quiet=True)
        store = Store(db)
        out[name] = (db, cat.revision(), {q: answer(store, Searcher(store, embedder), *q) for q in QS})
    assert out["a"][1] != out["b"][1] and out["a"][2] != out["b"][2]
    return out


def test_publish_uploads_the_revision_then_points_current_at_it(s3, revisions):
    db, rev, _ = revisions["a"]
    url = "s3://asof-test/team/finance"
    pointer = publish_to(url, db, s3)
    where, fs = ObjectLocation.parse(url), s3.filesystem()
    assert read_pointer(fs, where) == pointer
    assert pointer.revision == rev and pointer.index_version is not None
    assert fs.get_file_info(where.revision_key(pointer.folder, DB_NAME)).size == db.stat().st_size
    assert fs.get_file_info(where.revision_key(pointer.folder, INDEX_NAME) + "/chunks.lance").type.name == "Directory"
    second = publish_to(url, revisions["b"][0], s3)
    assert read_pointer(fs, where) == second and second.folder != pointer.folder
    # The first revision is still there, whole, for replicas answering from it.
    assert fs.get_file_info(where.revision_key(pointer.folder, DB_NAME)).size == db.stat().st_size


def test_a_replica_answers_as_the_local_catalog_and_follows_current_without_restart(s3, revisions, embedder,
                                                                                     tmp_path):
    url = "s3://asof-test/follow"
    publish_to(url, revisions["a"][0], s3)
    live = Live(url, embedder, cache_dir=tmp_path / "cache", objects=s3, poll_s=0)
    store = live.store()
    searcher = live.searcher(store)
    assert store.revision == revisions["a"][1]
    assert isinstance(searcher.path, RemoteIndex) and searcher.path.uri.startswith("s3://asof-test/follow/")
    assert searcher.available and searcher.problem is None
    sample = QS[::7]
    assert all(answer(store, searcher, *q) == revisions["a"][2][q] for q in sample)

    publish_to(url, revisions["b"][0], s3)
    new = live.store()
    assert new is not store and new.revision == revisions["b"][1]
    new_searcher = live.searcher(new)
    assert all(answer(new, new_searcher, *q) == revisions["b"][2][q] for q in sample)
    # A request that started on revision A finishes on A.
    assert all(answer(store, searcher, *q) == revisions["a"][2][q] for q in sample[:5])


def test_replicas_never_mix_revisions_while_publishes_keep_coming(s3, revisions, embedder, tmp_path):
    url = "s3://asof-test/load"
    (a_db, a_rev, a_base), (b_db, b_rev, b_base) = revisions["a"], revisions["b"]
    publish_to(url, a_db, s3)
    replicas = [Live(url, embedder, cache_dir=tmp_path / f"r{i}", objects=s3, poll_s=0.05) for i in range(2)]
    acceptable = {q: {a_base[q], b_base[q]} for q in QS}
    stop, published, turn = threading.Event(), [], [0]

    def resources():
        turn[0] += 1  # requests alternate between the two replicas
        live = replicas[turn[0] % 2]
        store = live.store()
        return store, live.searcher(store)

    def writer():
        for db, rev in ((b_db, b_rev), (a_db, a_rev), (b_db, b_rev)):
            if stop.is_set():
                break
            publish_to(url, db, s3)
            published.append(rev)

    w = threading.Thread(target=writer)
    w.start()
    result = run_threads(resources, QS, acceptable, FOREIGN, threads=6, per_thread=25)
    stop.set()
    w.join()
    assert published and result.errors == []
    assert result.answers == 6 * 25
    assert result.differing == [] and result.foreign == []
    for live in replicas:  # every replica ends on the last published revision, within a few poll intervals
        deadline = time.monotonic() + 10  # its watch may be downloading it: requests meanwhile get the one before
        while live.store().revision != published[-1] and time.monotonic() < deadline:
            time.sleep(0.05)
        assert live.store().revision == published[-1]


def test_cli_ingest_publish_and_publish(s3, tmp_path, monkeypatch, capsys):
    for key, value in env_for(s3).items():
        monkeypatch.setenv(key, value)
    db = tmp_path / "cli.duckdb"
    assert main(["ingest", str(DEMO), "--db", str(db), "--publish", "s3://asof-test/cli"]) == 0
    assert "CURRENT now points at it" in capsys.readouterr().out
    fs, where = s3.filesystem(), ObjectLocation.parse("s3://asof-test/cli")
    first = read_pointer(fs, where)
    assert first.revision == Store(db).revision
    assert main(["publish", "s3://asof-test/cli", "--db", str(db)]) == 0
    assert read_pointer(fs, where).folder != first.folder
    # A bad URL is refused before any work, naming what is wrong.
    assert main(["ingest", str(DEMO), "--db", str(tmp_path / "x.duckdb"), "--publish", "s3://A_B/x"]) == 2
    assert "not a valid S3 bucket name" in capsys.readouterr().err
    assert not (tmp_path / "x.duckdb").exists()


def test_nothing_published_and_a_damaged_pointer_are_clear_errors(s3, tmp_path):
    live = Live("s3://asof-test/none", None, cache_dir=tmp_path, objects=s3)
    with pytest.raises(ObjectStoreError, match=r"nothing is published at s3://asof-test/none yet"):
        live.store()
    fs = s3.filesystem()
    with fs.open_output_stream(f"asof-test/damaged/{POINTER}") as f:
        f.write(b'{"folder": "../../etc", "revision": "x", "published_at": "2026-01-01T00:00:00Z"}')
    with pytest.raises(ObjectStoreError, match=r"s3://asof-test/damaged/CURRENT is not an AsOf catalog pointer "
                                               r"\(field folder"):
        Live("s3://asof-test/damaged", None, cache_dir=tmp_path, objects=s3).store()


@pytest.mark.parametrize("url, problem", [("s3://ab", "not a valid S3 bucket name"),
                                          ("s3://bucket/a/../b", "has an empty, '.' or '..' part"),
                                          ("/tmp/x", "not an object-storage URL")])
def test_object_urls_are_checked(url, problem):
    with pytest.raises(ValueError, match=problem):
        ObjectLocation.parse(url)


def test_an_mcp_replica_follows_the_published_catalog(s3, revisions, tmp_path, monkeypatch):
    """`ASOF_DB=s3://... asof mcp`: each call answers from the revision CURRENT names as the call starts."""
    from core.serve import mcp_tools as tools
    from core.serve.mcp_auth import resolve_identity
    from core.serve.mcp_server import CatalogHolder
    from core.settings.config import Settings
    for key, value in {**env_for(s3), "ASOF_DB": "s3://asof-test/mcp/", "ASOF_REPLICA_DIR": str(tmp_path / "r"),
                       "ASOF_POLL_SECONDS": "0"}.items():
        monkeypatch.setenv(key, value)
    settings = Settings.from_env()
    assert settings.catalog_url == "s3://asof-test/mcp" and settings.db_path == tmp_path / "r" / "replica.duckdb"
    publish_to(settings.catalog_url, revisions["a"][0], s3)
    holder = CatalogHolder(settings.catalog_url, settings)
    assert holder.db_path == settings.db_path  # the replica's own audit log, not the shared catalog's
    before = holder.current()
    alice = resolve_identity(before.store, "alice")
    day = date(2025, 6, 30)
    shown = str(tools.get_definition_tool(before, alice, "metric.net_revenue", day, None))
    assert before.store.revision == revisions["a"][1] and "Restated" not in shown and "net_revenue.v2" in shown
    publish_to(settings.catalog_url, revisions["b"][0], s3)
    after = holder.current()
    assert after.store.revision == revisions["b"][1]
    assert "Restated for the 2025 audit" in str(tools.get_definition_tool(after, alice, "metric.net_revenue", day, None))


def test_a_replica_keeps_its_revision_while_storage_is_unreachable(s3, revisions, tmp_path):
    url = "s3://asof-test/outage"
    publish_to(url, revisions["a"][0], s3)
    live = Live(url, None, cache_dir=tmp_path, objects=s3, poll_s=0)
    store = live.store()
    # The endpoint stops answering (a port nothing listens on): answers continue from the revision it had.
    live.replica._fs = s3.model_copy(update={"endpoint": "http://127.0.0.1:9"}).filesystem()
    assert live.store() is store and "cannot read s3://asof-test/outage/CURRENT" in live.replica.problem
    live.replica._fs = s3.filesystem()
    publish_to(url, revisions["b"][0], s3)
    assert live.store().revision == revisions["b"][1] and live.replica.problem is None


def test_an_idle_replica_has_the_new_revision_before_its_next_requests(s3, revisions, tmp_path):
    """Published while nobody asked: the requests that come after a quiet spell, several at once, all answer
    from the new revision (looked for only by requests, one of them downloaded it while the rest answered from
    the revision before, however long ago the publish was)."""
    url = "s3://asof-test/idle"
    publish_to(url, revisions["a"][0], s3)
    live = Live(url, None, cache_dir=tmp_path, objects=s3, poll_s=0.1)
    assert live.store().revision == revisions["a"][1]
    publish_to(url, revisions["b"][0], s3)
    time.sleep(1.5)  # fifteen poll intervals, no request
    seen, start = [], threading.Barrier(6)

    def request():
        start.wait()
        seen.append(live.store().revision)

    threads = [threading.Thread(target=request) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert seen == [revisions["b"][1]] * 6
