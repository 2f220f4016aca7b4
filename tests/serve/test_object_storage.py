"""A catalog published to object storage and read by replicas, against a real S3 server (SeaweedFS,
started here on loopback; tests/objectstore.py): revisions are uploaded whole before CURRENT moves, a
replica answers exactly as the local catalog does (its index read from s3:// by LanceDB), follows a new
revision without a restart, and no answer mixes two revisions while publishes keep coming."""
import copy
import hashlib
import json
import re
import shutil
import threading
import time
from datetime import date

import duckdb
import pytest
from concurrency import answer, foreign_ids, questions, run_threads
from conftest import DEMO
from objectstore import env_for, seaweedfs

from core.catalog.store import Store
from core.ingest.load import load_catalog
from core.ingest.publish import publish
from core.ingest.upload import publish_to
from core.retrieve.index import index_path
from core.retrieve.search import Searcher
from core.serve.cli import main
from core.serve.live import Live
from core.settings.objects import (
    DB_NAME,
    INDEX_NAME,
    POINTER,
    ObjectLocation,
    ObjectStoreError,
    Pointer,
    RemoteIndex,
    read_pointer,
)
from core.settings.signing import key_id, load_signing_key, new_key_pair, sign

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


def _put(fs, key: str, data: bytes) -> None:
    with fs.open_output_stream(key) as f:
        f.write(data)


def _point(fs, url: str, folder: str, revision: str, index_version: int | None = None, db_bytes: bytes = b"",
           key: str | None = None, signed: dict | None = None, **changes) -> None:
    """CURRENT written by hand, as a broken publish script or an operator would: signed with `key` (a private key
    file; None: unsigned), with the size and sha256 of the bytes uploaded (or `signed`'s values), then `changes`
    made after signing."""
    fields = {"folder": folder, "revision": revision, "index_version": index_version,
              "published_at": f"2026-05-0{1 + len(folder) % 8}T00:00:00Z", "db_size": len(db_bytes),
              "db_sha256": hashlib.sha256(db_bytes).hexdigest(), **(signed or {})}
    try:
        pointer = Pointer.model_validate(fields)
    except ValueError:
        pointer = None  # a folder no pointer may name: written as it is, refused when read
    if pointer is not None:
        if key:
            signer = load_signing_key(key)
            pointer = pointer.model_copy(update={"key_id": key_id(signer.public_key())})
            pointer = pointer.model_copy(update={"signature": sign(signer, pointer.fields())})
        fields = {**pointer.fields(), **changes}
    _put(fs, ObjectLocation.parse(url).key(POINTER), json.dumps(fields).encode())


def _older_schema(db, tmp_path):
    old = tmp_path / "old.duckdb"
    shutil.copy(db, old)
    con = duckdb.connect(str(old))
    con.execute("UPDATE meta SET value = '1' WHERE key = 'schema_version'")
    con.close()
    return old.read_bytes()


def test_a_bad_published_revision_is_refused_and_replicas_keep_the_last_good_one(s3, revisions, tmp_path, capsys,
                                                                                monkeypatch):
    """CURRENT naming a truncated, empty or missing database, a path with '..', an older schema, files that carry
    another revision id, or a missing index: every replica keeps answering from the last good revision, says why once
    on stderr, and moves on when CURRENT names a good revision again. The MCP server's holder, too."""
    from core.serve.mcp_server import CatalogHolder
    from core.settings.config import Settings
    url = "s3://asof-test/badpublish"
    (a_db, a_rev, _), (b_db, b_rev, _) = revisions["a"], revisions["b"]
    publish_to(url, a_db, s3)
    live = Live(url, None, cache_dir=tmp_path / "cache", objects=s3, poll_s=0)
    good = live.store()
    for key, value in {**env_for(s3), "ASOF_DB": url, "ASOF_REPLICA_DIR": str(tmp_path / "mcp"),
                       "ASOF_POLL_SECONDS": "0"}.items():
        monkeypatch.setenv(key, value)
    holder = CatalogHolder(url, Settings.from_env())
    assert good.revision == holder.current().store.revision == a_rev
    fs, where = s3.filesystem(), ObjectLocation.parse(url)
    b_bytes = b_db.read_bytes()
    b_index = int(Store(b_db).meta()["index_version"])
    capsys.readouterr()

    def bad(folder, revision, why, db_bytes=None, index_version=None, **changes):
        if db_bytes is not None:
            _put(fs, where.revision_key(folder, DB_NAME), db_bytes)
        _point(fs, url, folder, revision, index_version, db_bytes or b"", **{"key": s3.signing_key, **changes})
        for _ in range(3):  # each request finds the same CURRENT: refused once, not downloaded again
            assert live.store() is good and holder.current().store.revision == a_rev
        assert re.search(why, live.replica.problem), live.replica.problem
        assert "python -m core ingest" not in live.replica.problem
        err = capsys.readouterr().err
        assert err.count("warning:") == 2, err  # once for the app's replica, once for the MCP server's
        assert f"answering from revision {live.replica.current().pointer.folder} meanwhile" in err

    bad("truncated", b_rev, r"truncated.*catalog\.duckdb is refused: .*(not a readable DuckDB|not an AsOf catalog)",
        db_bytes=b_bytes[: len(b_bytes) // 2])
    # Cut short near its end, the file still attaches and fails only when its tables are read.
    bad("truncated-late", b_rev, r"catalog\.duckdb is refused: .*not a readable DuckDB",
        db_bytes=b_bytes[: len(b_bytes) * 19 // 20])
    bad("empty", b_rev, r"catalog\.duckdb is refused: .* is empty", db_bytes=b"")
    bad("missing", b_rev, r"names revision missing, but its catalog\.duckdb cannot be read")
    bad("..", b_rev, r"not an AsOf catalog pointer \(field folder: .*must not start with '\.'")
    bad("older", b_rev, r"written by an older AsOf \(schema 1", db_bytes=_older_schema(b_db, tmp_path))
    bad("other-id", "0" * 64, rf"as catalog revision 0{{64}}, but its catalog\.duckdb holds revision {b_rev}",
        db_bytes=b_bytes)
    bad("no-index", b_rev, r"its index catalog\.lance cannot be opened", db_bytes=b_bytes, index_version=b_index)
    # Whole, good files, but CURRENT not signed by the publisher: unsigned, signed by a key no replica trusts,
    # changed after signing, or signed without the file's size and hash.
    stranger, _ = new_key_pair(tmp_path / "stranger")
    bad("unsigned", b_rev, r"revision unsigned, but it is not signed", db_bytes=b_bytes, index_version=b_index,
        key=None)
    bad("stranger", b_rev, r"signed by key [0-9a-f]{16}, which this replica does not trust", db_bytes=b_bytes,
        index_version=b_index, key=str(stranger))
    bad("changed", b_rev, r"its signature does not verify", db_bytes=b_bytes, index_version=b_index,
        db_sha256="0" * 64)
    bad("no-hash", b_rev, r"without the size and sha256 of its catalog\.duckdb", db_bytes=b_bytes,
        index_version=b_index, signed={"db_size": None, "db_sha256": None})
    assert not (tmp_path / "cache" / "truncated").exists(), "a refused download is not kept"
    assert sorted(p.name for p in (tmp_path / "cache").iterdir()) == [live.replica.current().pointer.folder]

    publish_to(url, b_db, s3)  # CURRENT fixed: both follow at once
    assert live.store().revision == b_rev and live.replica.problem is None
    assert holder.current().store.revision == b_rev


def test_a_corrupted_upload_a_rollback_a_restart_and_files_mended_in_place(s3, revisions, tmp_path, capsys,
                                                                         monkeypatch):
    """Damage that opens fine (bytes changed in the middle) is caught by the sha256 CURRENT records; a refused
    publish after a rollback to an older folder never deletes the file being served; a replica restarted while
    CURRENT is bad answers from its cache; files mended in place under the same CURRENT are taken on the next try."""
    import core.serve.replica as replica_mod
    url = "s3://asof-test/corrupt"
    (a_db, a_rev, _), (b_db, b_rev, _) = revisions["a"], revisions["b"]
    fs, where = s3.filesystem(), ObjectLocation.parse(url)
    first = publish_to(url, a_db, s3)
    live = Live(url, None, cache_dir=tmp_path / "cache", objects=s3, poll_s=0)
    for db in (b_db, a_db, b_db):  # a few revisions downloaded, then a rollback to the first (the oldest folder)
        publish_to(url, db, s3)
        live.store()
    _put(fs, where.key(POINTER), first.model_dump_json().encode())
    serving = live.store()
    assert serving.revision == a_rev and live.replica.current().pointer == first

    bad = publish_to(url, b_db, s3)  # a whole publish whose upload is then damaged in the middle
    damaged = bytearray(b_db.read_bytes())
    at = len(damaged) // 5
    damaged[at: at + 4096] = bytes(b ^ 0xFF for b in damaged[at: at + 4096])  # same size, other bytes
    _put(fs, where.revision_key(bad.folder, DB_NAME), bytes(damaged))
    assert live.store() is serving and "its sha256 differs" in live.replica.problem
    assert serving.path.is_file(), "the file being served is kept"
    assert serving.con.execute("SELECT count(*) FROM evidence").fetchall()[0][0] > 0

    # A restart while CURRENT is still bad: the newest cached revision that passes the check answers.
    restarted = Live(url, None, cache_dir=tmp_path / "cache", objects=s3, poll_s=0)
    assert restarted.store().revision in (a_rev, b_rev) and "sha256 differs" in restarted.replica.problem

    # The upload mended in place, CURRENT untouched: taken once the refusal's retry time has passed.
    _put(fs, where.revision_key(bad.folder, DB_NAME), b_db.read_bytes())
    assert live.store() is serving  # within RETRY_S: not downloaded again
    monkeypatch.setattr(replica_mod, "RETRY_S", 0.0)
    assert live.store().revision == b_rev and live.replica.problem is None
    capsys.readouterr()



def _reading_host_file(db, secret_file, tmp_path):
    """A copy of revision `db` (index folder too) whose evidence table is a view reading `secret_file` on the
    host that opens it, every other table as published: the attack a revision carrying a program makes."""
    evil = tmp_path / "evil" / "catalog.duckdb"
    evil.parent.mkdir()
    shutil.copy(db, evil)
    shutil.copytree(index_path(db), index_path(evil))
    con = duckdb.connect(str(evil))
    con.execute("DROP INDEX evidence_entity")
    con.execute("ALTER TABLE evidence RENAME TO evidence_rows")
    literal = str(secret_file).replace("'", "''")
    con.execute(f"""CREATE VIEW evidence AS SELECT e.* REPLACE (f.content AS text, f.content AS title)
                    FROM evidence_rows e, read_text('{literal}') f""")
    con.close()
    return evil


def test_a_signed_revision_that_reads_the_replicas_files_is_refused(s3, revisions, tmp_path, embedder):
    """A revision signed by the publisher's own key whose evidence table is a view calling read_text() on a file of
    the replica's host: refused for holding a view (the last good revision keeps answering), and a replica with no
    good revision refuses to start on it. The file's content never appears in any answer."""
    url = "s3://asof-test/program"
    secret = tmp_path / "replica-host-secret.txt"
    secret.write_text("HOST-SECRET-7c1e do not show")
    (a_db, a_rev, _), b_db = revisions["a"], revisions["b"][0]
    publish_to(url, a_db, s3)
    live = Live(url, embedder, cache_dir=tmp_path / "cache", objects=s3, poll_s=0)
    good = live.store()
    assert good.revision == a_rev
    evil = publish_to(url, _reading_host_file(b_db, secret, tmp_path), s3)  # signed: the check must refuse it
    assert evil.signature and live.store() is good
    assert re.search(r"catalog\.duckdb is refused: .*holds what an AsOf catalog never does: view main\.evidence, "
                     r"table main\.evidence_rows", live.replica.problem), live.replica.problem
    shown = [answer(good, live.searcher(good), *q) for q in QS[:8]]
    assert shown and not any("HOST-SECRET" in text for text in shown)
    with pytest.raises(ObjectStoreError, match=r"view main\.evidence"):
        Live(url, None, cache_dir=tmp_path / "fresh", objects=s3, poll_s=0).store()
    assert not (tmp_path / "fresh" / evil.folder / DB_NAME).exists(), "a refused download is not kept"


def test_keys_rotate_replicas_trust_what_they_are_given(s3, revisions, tmp_path, capsys):
    """`asof keys new`, then rotation: replicas trusting old and new follow a revision signed with the new key;
    a replica trusting only the new key refuses one signed with the old."""
    url = "s3://asof-test/rotate"
    (a_db, a_rev, _), (b_db, b_rev, _) = revisions["a"], revisions["b"]
    assert main(["keys", "new", "--out", str(tmp_path / "keys")]) == 0
    printed = capsys.readouterr().out
    new_secret = next((tmp_path / "keys").glob("asof-*.key"))
    new_public = new_secret.with_suffix(".pub")
    assert str(new_secret) in printed and str(new_public) in printed and new_secret.stat().st_mode & 0o077 == 0
    publish_to(url, a_db, s3)  # the old key
    both = Live(url, None, cache_dir=tmp_path / "both", poll_s=0,
                objects=s3.model_copy(update={"trusted_keys": (*s3.trusted_keys, str(new_public))}))
    assert both.store().revision == a_rev
    only_new = Live(url, None, cache_dir=tmp_path / "new", poll_s=0,
                    objects=s3.model_copy(update={"trusted_keys": (str(new_public),)}))
    with pytest.raises(ObjectStoreError, match="which this replica does not trust"):
        only_new.store()
    publish_to(url, b_db, s3.model_copy(update={"signing_key": str(new_secret)}))
    assert both.store().revision == b_rev and only_new.store().revision == b_rev
    nobody = Live(url, None, cache_dir=tmp_path / "none", poll_s=0, objects=s3.model_copy(update={"trusted_keys": ()}))
    with pytest.raises(ObjectStoreError, match="trusts no publisher key: set ASOF_TRUSTED_KEYS"):
        nobody.store()
    with pytest.raises(ObjectStoreError, match="needs the publisher's signing key: set ASOF_SIGNING_KEY"):
        publish_to(url, a_db, s3.model_copy(update={"signing_key": None}))


def test_an_mcp_replicas_audit_trail_outlives_revision_switches_and_prunes(s3, revisions, tmp_path, monkeypatch):
    """One audit log per deployment, at a path no switch or prune touches: answers and refusals in one chain,
    every record kept across more revisions than the replica keeps on disk, and `verify` passes."""
    import anyio
    from mcp import Client

    from core.serve.audit import read_all, verify
    from core.serve.mcp_server import CatalogHolder, Principal, build_server
    from core.serve.replica import KEEP_REVISIONS
    from core.settings.config import Settings
    url = "s3://asof-test/audit-trail"
    for key, value in {**env_for(s3), "ASOF_DB": url, "ASOF_REPLICA_DIR": str(tmp_path / "replica"),
                       "ASOF_POLL_SECONDS": "0"}.items():
        monkeypatch.setenv(key, value)
    settings = Settings.from_env()
    publish_to(url, revisions["a"][0], s3)
    holder = CatalogHolder(url, settings)
    holder.ready.set()  # no embedding needed for these tools
    assert holder.current().db_path == holder.db_path  # the explanation cache is kept there too (cache_for)
    server = build_server(holder, Principal(name="alice"))
    served = []

    async def calls():
        async with Client(server) as c:
            for step in range(KEEP_REVISIONS + 1):
                if step:
                    publish_to(url, revisions["ab"[step % 2]][0], s3)
                assert not (await c.call_tool("list_metrics", {"topic": "revenue"})).is_error
                assert (await c.call_tool("export_everything", {})).is_error  # refused by the SDK
                served.append(holder.current().store.path.parent.name)

    anyio.run(calls)
    assert len(set(served)) == KEEP_REVISIONS + 1
    kept = [p.name for p in settings.revisions_dir.iterdir() if p.is_dir()]
    assert len(kept) <= KEEP_REVISIONS, "old revisions were pruned"
    records = read_all(holder.db_path)
    assert [r.behavior == "refused" for r in records] == [False, True] * (KEEP_REVISIONS + 1), records
    assert len({r.catalog_revision for r in records if r.behavior != "refused"}) == 2  # answered from both
    check = verify(holder.db_path)
    assert check.intact and check.chained == len(records), check.broken
    assert not list(settings.revisions_dir.rglob("*.audit.jsonl")), "nothing is logged inside a revision folder"
