"""Three app replicas behind nginx, reading one catalog from object storage, while a new revision is
published: real browsers (Playwright + Debian's Chromium) as mixed principals, signed in through the
gateway's cookie (header mode), each asking through a shared link. Every answer must be whole (its
sidebar revision, object count and formula from one revision), its principal's own (only that principal's
roles on offer, nothing its role may not see), and error-free; sessions stick to one replica.
Harness: tests/replicas.py (nginx, replicas), tests/objectstore.py (SeaweedFS)."""
import copy
import random
import threading
import time
from datetime import date

import pytest
from concurrency import foreign_ids
from conftest import DEMO
from objectstore import seaweedfs
from replicas import Session, close_session, cluster, open_session, read_answer
from streamlit_server import chromium, needs_chromium

from core.answer.review import steward_scope
from core.catalog.access import visible
from core.catalog.store import Store
from core.ingest.load import load_catalog
from core.ingest.publish import publish
from core.ingest.upload import publish_to

pytestmark = needs_chromium

URL = "s3://asof-test/replicas"
A_FORMULA, B_FORMULA = "SUM(chargeback_amount_usd)", "SUM(goodwill_credit_usd)"
CATALOG = load_catalog(DEMO)
PRINCIPALS = {p.name: list(p.roles) for p in CATALOG.principals}
QUESTIONS = [("What is net revenue?", "2025-03-31"), ("net revenue", "2025-06-30"),
             ("What is the board memo about margin?", "2025-03-31"), ("contribution margin", "2025-06-30")]
WAVES, PER_WAVE = 3, 6  # 18 browser sessions, 6 at a time


def _b(catalog):
    """The demo with net revenue v2's formula restated: any page showing it tells the revisions apart."""
    other = copy.deepcopy(catalog)
    for ev in other.evidence:
        if ev.evidence_id == "metric.net_revenue.v2":
            ev.metric.formula = ev.metric.formula.replace(A_FORMULA, B_FORMULA)
            ev.content_hash = ev.compute_hash()
    return other


@pytest.fixture(scope="module")
def published(tmp_path_factory, embedder):
    """SeaweedFS with revision A published; B written locally, ready to publish. Per revision and role:
    the revision and count the sidebar shows (a role's view of the catalog)."""
    root = tmp_path_factory.mktemp("replicas")
    with seaweedfs(root / "s3") as s3:
        views, dbs = {}, {}
        for name, cat in (("A", CATALOG), ("B", _b(CATALOG))):
            db = root / name / "catalog.duckdb"
            db.parent.mkdir()
            publish(cat, db, embedder, quiet=True)
            store = Store(db)
            views[name] = {role: (visible(store, role).revision, visible(store, role).count) for role in CATALOG.role_names}
            dbs[name] = db
        publish_to(URL, dbs["A"], s3)
        yield s3, dbs, views, root


def test_replicas_behind_nginx_answer_whole_revisions_for_the_right_principal(published):
    s3, dbs, views, root = published
    rng = random.Random(22)
    foreign = {role: foreign_ids(CATALOG, role) & foreign_ids(_b(CATALOG), role) for role in CATALOG.role_names}
    for name in ("A", "B"):  # a steward's view also holds its review queue (read-only): not a leak
        store = Store(dbs[name])
        for role in CATALOG.role_names:
            scope = steward_scope(store, role, date.today())
            foreign[role] -= scope.evidence_ids if scope else set()
    results, publisher = [], None
    with cluster(root / "cluster", s3, URL, list(PRINCIPALS), replicas=3, poll_s=0.5) as lb, chromium() as browser:
        started = time.time()
        for wave in range(WAVES):
            if wave == 1:  # the new revision is published while this wave's sessions load and answer
                publisher = threading.Thread(target=publish_to, args=(URL, dbs["B"], s3))
                publisher.start()
            if wave == 2:
                publisher.join()
                time.sleep(1.5)  # three poll intervals: every replica has read the new CURRENT
            sessions = []
            for _ in range(PER_WAVE):
                principal = rng.choice(sorted(PRINCIPALS))
                question, day = rng.choice(QUESTIONS)
                sessions.append(open_session(browser, lb.url, Session(principal, rng.choice(PRINCIPALS[principal]),
                                                                       question, day)))
            for s in sessions:
                results.append((wave, s, read_answer(s)))
            for s in sessions:
                close_session(s)
            print(f"wave {wave}: {time.time() - started:.1f} s", flush=True)
        routes = lb.routes()

    assert len(results) == WAVES * PER_WAVE
    mixed, cross, errors, seen = [], [], [], {"A": 0, "B": 0}
    for wave, s, got in results:
        if got["exceptions"] or got["revision"] is None:
            errors.append((s.principal, s.question, got["text"][:300]))
            continue
        # Cross-principal: the sidebar offers this principal's role, and nothing its role may not see shows.
        if got["role"] != s.role or got["role"] not in PRINCIPALS[s.principal]:
            cross.append((s.principal, s.role, got["role"]))
        leaked = sorted(i for i in foreign[s.role] if i in got["text"])
        if leaked:
            cross.append((s.principal, s.role, leaked))
        # One revision per answer: sidebar revision, count and the formula shown all agree.
        which = [name for name in ("A", "B") if views[name][s.role][0] == got["revision"]]
        if not which or views[which[0]][s.role][1] != got["count"]:
            mixed.append((s.role, got["revision"], got["count"]))
            continue
        if views["A"][s.role][0] != views["B"][s.role][0]:
            name = which[0]
            seen[name] += 1
            shows = {n for n, f in (("A", A_FORMULA), ("B", B_FORMULA)) if f in got["text"]}
            if shows and shows != {name}:
                mixed.append((s.role, s.question, name, shows))
            if wave == 0 and name != "A" or wave == 2 and name != "B":
                mixed.append((wave, s.role, name))
    assert errors == [], errors
    assert cross == [], cross
    assert mixed == [], mixed
    assert seen["A"] and seen["B"], seen
    # Sticky: each browser session reached one replica only, and the sessions were spread over them all.
    lbs = {s.lb_cookie for _, s, _ in results}
    assert all(len(routes.get(c, ())) == 1 for c in lbs), {c: routes.get(c) for c in lbs}
    assert len({next(iter(routes[c])) for c in lbs}) == 3
