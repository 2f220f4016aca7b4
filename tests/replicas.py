"""Several app replicas behind a real load balancer, for tests/app/test_replicas.py and benchmarks/replicas.py.

The replicas are `streamlit run` processes on loopback ports, each with ASOF_DB=s3://... (a catalog
published to the SeaweedFS of tests/objectstore.py) and its own ASOF_REPLICA_DIR. In front of them,
Debian's nginx plays the SSO gateway and load balancer of a real deployment:
  - identity: it maps a session cookie (what an SSO login would have set) to X-Forwarded-Email and sets that
    header on every request, replacing anything a client sent; it connects to the replicas from 127.0.0.2,
    the only address the replicas trust for the header (ASOF_TRUSTED_PROXIES);
  - stickiness: `hash $cookie_asof_lb consistent`, so a browser session's page, static files and
    websocket (proxied with its Upgrade headers) all reach the same replica.
Everything listens on 127.0.0.1; no traffic leaves the machine.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import time
import urllib.request
import uuid
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from objectstore import env_for
from streamlit_server import free_port, launch, stop, wait_healthy

from core.settings.objects import ObjectStoreSettings

NGINX = "/usr/sbin/nginx"
PROXY_SOURCE = "127.0.0.2"
DOMAIN = "lumen.example"


def require_nginx() -> str:
    found = NGINX if Path(NGINX).exists() else shutil.which("nginx")
    if found:
        return found
    message = "nginx is not installed (scripts/setup.sh installs Debian's nginx-light as root)"
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        pytest.fail(message)
    pytest.skip(f"SKIPPED LOUDLY: {message}; the replica test needs a real load balancer")


def sso_token(principal: str) -> str:
    return f"sso-{principal}-7f3a"  # what the gateway's login would have issued; the test's browsers carry it


def nginx_conf(folder: Path, port: int, upstreams: list[int], principals: list[str]) -> str:
    users = "\n".join(f'    "{sso_token(p)}" "{p}@{DOMAIN}";' for p in principals)
    servers = "\n".join(f"    server 127.0.0.1:{u} max_fails=0;" for u in upstreams)
    temp = folder / "tmp"
    return f"""
worker_processes 1;
daemon off;
pid {folder}/nginx.pid;
error_log {folder}/error.log warn;
events {{ worker_connections 2048; }}
http {{
  client_body_temp_path {temp}/body; proxy_temp_path {temp}/proxy; fastcgi_temp_path {temp}/fastcgi;
  uwsgi_temp_path {temp}/uwsgi; scgi_temp_path {temp}/scgi;
  log_format lb '$cookie_asof_lb $upstream_addr $status "$request_uri"';
  access_log {folder}/access.log lb;
  map $http_upgrade $connection_upgrade {{ default upgrade; '' close; }}
  # The gateway's sessions: an unknown or missing cookie maps to no identity (the header is then not sent).
  map $cookie_asof_sso $sso_user {{
    default "";
{users}
  }}
  upstream asof {{
    hash $cookie_asof_lb consistent;
{servers}
  }}
  server {{
    listen 127.0.0.1:{port};
    location / {{
      proxy_pass http://asof;
      proxy_bind {PROXY_SOURCE};
      proxy_http_version 1.1;
      proxy_set_header Upgrade $http_upgrade;
      proxy_set_header Connection $connection_upgrade;
      proxy_set_header Host $host;
      proxy_set_header X-Forwarded-Email $sso_user;
      proxy_read_timeout 3600s;
      proxy_buffering off;
    }}
  }}
}}
"""


@dataclass
class Cluster:
    url: str  # the load balancer
    replicas: list[str]
    folder: Path
    procs: list = field(default_factory=list)

    def routes(self) -> dict[str, set[str]]:
        """Which replica (upstream address) served each browser session's requests, from nginx's log."""
        out: dict[str, set[str]] = {}
        log = self.folder / "access.log"
        for line in log.read_text().splitlines() if log.exists() else []:
            lb, upstream = line.split(" ", 2)[:2]
            if lb != "-" and upstream != "-":
                out.setdefault(lb, set()).add(upstream)
        return out


@contextmanager
def cluster(folder: Path, s3: ObjectStoreSettings, catalog_url: str, principals: list[str], replicas: int = 3,
            poll_s: float = 0.5):
    nginx = require_nginx()
    folder.mkdir(parents=True, exist_ok=True)
    for sub in ("body", "proxy", "fastcgi", "uwsgi", "scgi"):
        (folder / "tmp" / sub).mkdir(parents=True, exist_ok=True)
    procs, urls = [], []
    try:
        for i in range(replicas):
            env = {**env_for(s3), "ASOF_AUTH": "header", "ASOF_AUTH_EMAIL_DOMAIN": DOMAIN,
                   "ASOF_TRUSTED_PROXIES": PROXY_SOURCE, "FORWARDED_ALLOW_IPS": "",
                   "ASOF_REPLICA_DIR": str(folder / f"replica-{i}"), "ASOF_POLL_SECONDS": str(poll_s)}
            proc, url = launch(catalog_url, env)
            procs.append(proc)
            urls.append(url)
        for proc, url in zip(procs, urls):
            wait_healthy(proc, url)
        port = free_port()
        conf = folder / "nginx.conf"
        conf.write_text(nginx_conf(folder, port, [int(u.rsplit(":", 1)[1]) for u in urls], principals))
        lb = subprocess.Popen([nginx, "-c", str(conf), "-p", str(folder)], stdout=subprocess.DEVNULL,
                              stderr=open(folder / "nginx.stderr", "wb"))
        procs.append(lb)
        deadline = time.time() + 20
        while True:
            try:
                if urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2).read() == b"ok":
                    break
            except OSError:
                if lb.poll() is not None or time.time() > deadline:
                    pytest.fail(f"nginx did not start: {(folder / 'nginx.stderr').read_text()[-1000:]} "
                                f"{(folder / 'error.log').read_text()[-1000:] if (folder / 'error.log').exists() else ''}")
                time.sleep(0.2)
        yield Cluster(url=f"http://127.0.0.1:{port}", replicas=urls, folder=folder, procs=procs)
    finally:
        stop(*procs)


# Set on each page before Streamlit loads: the moment (ms after navigation start) the answer's headline
# first appears, so latency is measured in the browser, end to end, for pages that load in parallel.
ANSWER_CLOCK = """
new MutationObserver((_, obs) => {
  if (!window.__answeredAt && document.querySelector('.st-key-headline h3')) {
    window.__answeredAt = performance.now(); obs.disconnect();
  }
}).observe(document, {childList: true, subtree: true});
"""


@dataclass
class Session:
    principal: str
    role: str
    question: str
    day: str
    page: object = None
    context: object = None
    lb_cookie: str = ""


def open_session(browser, lb_url: str, s: Session) -> Session:
    """A new browser session (its own cookies: the gateway's login, the balancer's sticky key) opening a
    shared link that asks `question` as `role` on `day`; returns at once, the answer arrives later."""
    from urllib.parse import urlencode
    s.lb_cookie = uuid.uuid4().hex
    s.context = browser.new_context(viewport={"width": 1200, "height": 900})
    s.context.set_default_timeout(120000)  # on a loaded machine a page's first paint can take a while
    s.context.add_cookies([{"name": "asof_sso", "value": sso_token(s.principal), "url": lb_url},
                           {"name": "asof_lb", "value": s.lb_cookie, "url": lb_url}])
    s.context.add_init_script(ANSWER_CLOCK)
    s.page = s.context.new_page()
    s.page.goto(f"{lb_url}/?{urlencode({'q': s.question, 'role': s.role, 'date': s.day})}", wait_until="commit")
    return s


def read_answer(s: Session, timeout_ms: float = 90000) -> dict:
    """What the session shows once answered: the whole page text, the role in the sidebar, the revision
    and object count the sidebar states, any exception box, and the browser-measured latency."""
    import re
    page = s.page
    page.wait_for_function("() => window.__answeredAt", timeout=timeout_ms)
    for _ in range(3):  # a run Streamlit restarts (the link rewriting the URL) redraws the page: read a whole one
        page.wait_for_selector('[data-testid="stStatusWidget"]', state="detached", timeout=timeout_ms)
        page.wait_for_function("""() => document.querySelector('.st-key-headline h3') &&
            (document.querySelector('[data-testid=stSidebar]') || {}).innerText?.includes('you can see')""",
                               timeout=timeout_ms)
        text = page.inner_text("body")
        if "you can see" in text and page.locator('[data-testid="stStatusWidget"]').count() == 0:
            break
    caption = re.search(r"Catalog revision\s+(\S+)\s+·\s+(\d+) objects? you can see", text)
    role = page.locator('[data-testid="stSidebar"] input[aria-label="Role"]').input_value()
    return {"text": text, "revision": caption.group(1).strip("`") if caption else None,
            "count": int(caption.group(2)) if caption else None, "role": role,
            "exceptions": page.locator('[data-testid="stException"]').count(),
            "ms": page.evaluate("() => window.__answeredAt")}


def close_session(s: Session) -> None:
    if s.context is not None:
        s.context.close()


# ---- what the sessions saw, judged (shared by the test and the benchmark) ----
A_FORMULA, B_FORMULA = "SUM(chargeback_amount_usd)", "SUM(goodwill_credit_usd)"
QUESTIONS = [("What is net revenue?", "2025-03-31"), ("net revenue", "2025-06-30"),
             ("What is the board memo about margin?", "2025-03-31"), ("contribution margin", "2025-06-30")]


def restated(catalog):
    """The catalog with net revenue v2's formula restated: any page showing it tells the revisions apart."""
    import copy
    other = copy.deepcopy(catalog)
    for ev in other.evidence:
        if ev.evidence_id == "metric.net_revenue.v2":
            ev.metric.formula = ev.metric.formula.replace(A_FORMULA, B_FORMULA)
            ev.content_hash = ev.compute_hash()
    return other


def expectations(catalogs: dict, dbs: dict) -> tuple[dict, dict]:
    """Per revision name and role, the (revision, count) its sidebar states; per role, the ids that must
    never show (hidden in every revision, and not in a steward's read-only review queue)."""
    from datetime import date

    from concurrency import foreign_ids

    from core.answer.intents.review import steward_scope
    from core.answer.steward import steward_view
    from core.catalog.store import Store
    views, foreign = {}, {}
    for name, db in dbs.items():
        store = Store(db)
        views[name] = {}
        for role in catalogs[name].role_names:
            scope = steward_scope(store, role, date.today())
            # What the sidebar states: the revision of the view answers read (a steward's widened by its queue) and
            # the objects of the role's own ACL (access.seen_text counts the queue's apart).
            view = steward_view(store, role, scope)
            views[name][role] = (view.revision, view.count - view.queued_count)
            hidden = foreign_ids(catalogs[name], role)
            hidden -= scope.evidence_ids if scope else set()
            foreign[role] = foreign[role] & hidden if role in foreign else hidden
    return views, foreign


def judge(results: list, views: dict, foreign: dict, principals: dict) -> dict:
    """`results`: (phase, Session, read_answer()) with phase "before" / "during" / "after" the publish of
    revision B. Counts answers that mix revisions, show another principal's role or a hidden id, or fail."""
    out = {"mixed": [], "cross": [], "errors": [], "seen": {"A": 0, "B": 0}}
    for phase, s, got in results:
        if got["exceptions"] or got["revision"] is None:
            out["errors"].append((s.principal, s.question, got["text"][:300]))
            continue
        if got["role"] != s.role or got["role"] not in principals[s.principal]:
            out["cross"].append((s.principal, s.role, got["role"]))
        if not set(got.get("roles_offered") or ()) <= set(principals[s.principal]):  # read by websocket sessions
            out["cross"].append((s.principal, "offered", got["roles_offered"]))
        leaked = sorted(i for i in foreign[s.role] if i in got["text"])
        if leaked:
            out["cross"].append((s.principal, s.role, leaked))
        which = [name for name in ("A", "B") if views[name][s.role][0] == got["revision"]]
        if not which or views[which[0]][s.role][1] != got["count"]:
            out["mixed"].append((s.role, got["revision"], got["count"]))
            continue
        if views["A"][s.role][0] == views["B"][s.role][0]:
            continue  # this role's view is the same in both revisions
        name = which[0]
        out["seen"][name] += 1
        shows = {n for n, f in (("A", A_FORMULA), ("B", B_FORMULA)) if f in got["text"]}
        if shows and shows != {name}:
            out["mixed"].append((s.role, s.question, name, shows))
        if (phase, name) in (("before", "B"), ("after", "A")):
            out["mixed"].append((phase, s.role, name))
    return out
