"""Three app replicas behind nginx, reading one catalog from object storage, while a new revision is
published: mixed principals, signed in through the gateway's cookie (header mode), each asking through a
shared link, as real browsers (Playwright + Debian's Chromium) and, many more at once, as websocket sessions
speaking Streamlit's own protocol (tests/streamlit_ws.py). Every answer must be whole (its sidebar revision,
object count and formula from one revision), its principal's own (only that principal's roles on offer,
nothing its role may not see, tables and the lineage graph included), and error-free; sessions stick to one
replica. Harness: tests/replicas.py (nginx, replicas, the judging), tests/objectstore.py (SeaweedFS)."""
import random
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timezone

import pytest
from conftest import DEMO
from objectstore import seaweedfs
from replicas import (
    QUESTIONS,
    Session,
    close_session,
    cluster,
    expectations,
    judge,
    open_session,
    read_answer,
    restated,
    sso_token,
)
from streamlit_server import chromium, needs_chromium
from streamlit_ws import ask as ws_ask

from core.catalog.store import Store
from core.ingest.load import load_catalog
from core.ingest.publish import publish
from core.ingest.upload import publish_to
from core.settings.objects import DB_NAME, POINTER, ObjectLocation, Pointer

pytestmark = needs_chromium

URL = "s3://asof-test/replicas"
CATALOG = load_catalog(DEMO)
CATALOGS = {"A": CATALOG, "B": restated(CATALOG)}
PRINCIPALS = {p.name: list(p.roles) for p in CATALOG.principals}
# Each phase: 2 browser sessions and 14 websocket sessions, 7 at a time, all asking while the browsers load.
PHASES, BROWSERS, SOCKETS, AT_ONCE = ("before", "during", "after"), 2, 14, 7


def _session(rng: random.Random) -> Session:
    """A principal, one of its roles and a question, with a sticky key of its own (a new browser session)."""
    principal = rng.choice(sorted(PRINCIPALS))
    question, day = rng.choice(QUESTIONS)
    return Session(principal, rng.choice(PRINCIPALS[principal]), question, day, lb_cookie=uuid.uuid4().hex)


def _ask_over_websocket(lb_url: str, s: Session) -> dict:
    return ws_ask(lb_url, {"q": s.question, "role": s.role, "date": s.day},
                  {"asof_sso": sso_token(s.principal), "asof_lb": s.lb_cookie})


@pytest.fixture(scope="module")
def published(tmp_path_factory, embedder):
    """SeaweedFS with revision A published; B written locally, ready to publish."""
    root = tmp_path_factory.mktemp("replicas")
    with seaweedfs(root / "s3") as s3:
        dbs = {}
        for name, cat in CATALOGS.items():
            dbs[name] = root / name / "catalog.duckdb"
            dbs[name].parent.mkdir()
            publish(cat, dbs[name], embedder, quiet=True)
        publish_to(URL, dbs["A"], s3)
        yield s3, dbs, root


def test_replicas_behind_nginx_answer_whole_revisions_for_the_right_principal(published):
    s3, dbs, root = published
    views, foreign = expectations(CATALOGS, dbs)
    rng = random.Random(22)
    results, publisher = [], None
    with cluster(root / "cluster", s3, URL, list(PRINCIPALS), replicas=3, poll_s=0.5) as lb, chromium() as browser:
        for phase in PHASES:
            if phase == "during":  # the new revision is published while this wave's sessions load and answer
                publisher = threading.Thread(target=publish_to, args=(URL, dbs["B"], s3))
                publisher.start()
            if phase == "after":
                publisher.join()
                time.sleep(1.5)  # three poll intervals: every replica has read the new CURRENT
            pages = [open_session(browser, lb.url, _session(rng)) for _ in range(BROWSERS)]
            sockets = [_session(rng) for _ in range(SOCKETS)]
            with ThreadPoolExecutor(max_workers=AT_ONCE) as pool:
                answers = list(pool.map(lambda s: _ask_over_websocket(lb.url, s), sockets))
            results += [(phase, s, read_answer(s)) for s in pages] + [(phase, s, got) for s, got in zip(sockets, answers)]
            for s in pages:
                close_session(s)
        routes = lb.routes()

    assert len(results) == len(PHASES) * (BROWSERS + SOCKETS)
    verdict = judge(results, views, foreign, PRINCIPALS)
    assert verdict["errors"] == [], verdict["errors"]
    assert verdict["cross"] == [], verdict["cross"]
    assert verdict["mixed"] == [], verdict["mixed"]
    assert verdict["seen"]["A"] and verdict["seen"]["B"], verdict["seen"]
    # Sticky: each session reached one replica only, and the sessions were spread over the replicas
    # (random session keys on a consistent-hash ring: all three get some almost always, two at the least).
    keys = {s.lb_cookie for _, s, _ in results}
    assert all(len(routes.get(k, ())) == 1 for k in keys), {k: routes.get(k) for k in keys}
    assert len({next(iter(routes[k])) for k in keys}) >= 2


def test_app_replicas_keep_the_last_good_revision_when_current_names_a_bad_one(published):
    """CURRENT pointed at a truncated upload (a publish script that died half-way and moved CURRENT anyway): both
    replicas keep answering from revision A, whole and error-free, and move to B once it is published properly."""
    s3, dbs, root = published
    url = "s3://asof-test/replicas-bad"
    publish_to(url, dbs["A"], s3)
    views, foreign = expectations(CATALOGS, dbs)
    rng = random.Random(40)
    fs, where = s3.filesystem(), ObjectLocation.parse(url)
    results = []
    with cluster(root / "cluster-bad", s3, url, list(PRINCIPALS), replicas=2, poll_s=0.5) as lb:
        # Every replica answers once from A first: a replica that has never read a good revision has none to keep.
        for _ in range(24):
            s = _session(rng)
            results.append(("before", s, _ask_over_websocket(lb.url, s)))
            if len({u for seen in lb.routes().values() for u in seen}) == 2:
                break
        assert len({u for seen in lb.routes().values() for u in seen}) == 2, lb.routes()
        whole = dbs["B"].read_bytes()
        with fs.open_output_stream(where.revision_key("half-upload", DB_NAME)) as f:
            f.write(whole[: len(whole) // 3])
        with fs.open_output_stream(where.key(POINTER)) as f:
            f.write(Pointer(folder="half-upload", revision=Store(dbs["B"]).revision,
                            published_at=datetime.now(timezone.utc)).model_dump_json().encode())
        for phase in ("before", "after"):  # "before": B's publish is broken, so every answer must be A's
            if phase == "after":
                publish_to(url, dbs["B"], s3)
            time.sleep(1.5)  # three poll intervals: every replica has read (and judged) the new CURRENT
            sockets = [_session(rng) for _ in range(6)]
            with ThreadPoolExecutor(max_workers=3) as pool:
                answers = list(pool.map(lambda s: _ask_over_websocket(lb.url, s), sockets))
            results += [(phase, s, got) for s, got in zip(sockets, answers)]
    verdict = judge(results, views, foreign, PRINCIPALS)
    assert verdict["errors"] == [], verdict["errors"]
    assert verdict["cross"] == [] and verdict["mixed"] == [], verdict
    assert verdict["seen"]["A"] and verdict["seen"]["B"], verdict["seen"]
