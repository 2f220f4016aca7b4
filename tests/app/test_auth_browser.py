"""Identity from the deployment, end to end in a real browser (Playwright + Debian's Chromium).

Header mode: a small reverse proxy written here (the "SSO gateway") listens on 127.0.0.1 and connects
to the app from 127.0.0.2, the only trusted proxy address; the browser reaching the app directly comes
from 127.0.0.1, so a header it forges is ignored. OIDC mode: a minimal OpenID Connect provider written
here (discovery, authorize with a sign-in form, token with PKCE, JWKS, RS256 ID tokens) on 127.0.0.1,
and Streamlit's own st.login flow. Loopback only, no network.
"""
import base64
import hashlib
import json
import re
import secrets
import select
import socket
import subprocess
import threading
import time
import urllib.parse
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from conftest import DEMO
from streamlit_server import chromium, free_port, launch, needs_chromium, stop, wait_healthy

from core.catalog.store import write_catalog
from core.ingest.load import load_catalog

PROXY_SOURCE = "127.0.0.2"  # Linux routes all of 127.0.0.0/8 to loopback

pytestmark = needs_chromium


def _launch(db: Path, env: dict, extra: list[str] = (), port: int = None) -> tuple[subprocess.Popen, str]:
    # Catalog only: no index, so the app answers from the catalog and no test waits on embeddings.
    # FORWARDED_ALLOW_IPS empty: uvicorn must not rewrite the peer address the trusted-proxy check reads.
    return launch(db, {"FORWARDED_ALLOW_IPS": "", **env}, extra, port)


@pytest.fixture(scope="module")
def demo_db(tmp_path_factory) -> Path:
    db = tmp_path_factory.mktemp("auth") / "demo.duckdb"
    write_catalog(load_catalog(DEMO), db)
    return db


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


def _role_options(page) -> list[str]:
    page.get_by_role("combobox", name="Role").click()
    options = page.get_by_role("option")
    options.first.wait_for(timeout=15000)
    names = [t.strip() for t in options.all_inner_texts()]
    page.keyboard.press("Escape")
    return names


# ---------------------------------------------------------------- header mode: the sign-in proxy


class SignInProxy:
    """A reverse proxy standing in for an SSO gateway: it replaces any identity header the client sent
    with the identity it authenticated (`self.user`) and connects to the app from PROXY_SOURCE."""

    def __init__(self, upstream_port: int, header: str = "X-Forwarded-Email"):
        self.upstream_port, self.header, self.user = upstream_port, header, None
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                client, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._handle, args=(client,), daemon=True).start()

    def _handle(self, client: socket.socket) -> None:
        try:
            head = b""
            while b"\r\n\r\n" not in head:
                chunk = client.recv(65536)
                if not chunk:
                    return
                head += chunk
            head, rest = head.split(b"\r\n\r\n", 1)
            lines = head.decode("latin1").split("\r\n")
            name = self.header.lower()
            kept = [ln for ln in lines[1:] if ln.split(":", 1)[0].strip().lower() not in (name, "connection")]
            upgrade = any(ln.lower().startswith("upgrade:") for ln in lines[1:])
            kept.append("Connection: Upgrade" if upgrade else "Connection: close")  # one request per connection
            if self.user:
                kept.append(f"{self.header}: {self.user}")
            upstream = socket.create_connection(("127.0.0.1", self.upstream_port), source_address=(PROXY_SOURCE, 0))
            upstream.sendall(("\r\n".join([lines[0], *kept]) + "\r\n\r\n").encode("latin1") + rest)
            self._pipe(client, upstream)
        finally:
            client.close()

    @staticmethod
    def _pipe(a: socket.socket, b: socket.socket) -> None:
        try:
            while True:
                ready, _, _ = select.select([a, b], [], [], 30)
                if not ready:
                    return
                for src in ready:
                    data = src.recv(65536)
                    if not data:
                        return
                    (b if src is a else a).sendall(data)
        except OSError:
            return
        finally:
            b.close()

    def close(self) -> None:
        self.sock.close()


def test_header_mode_trusts_the_proxy_and_ignores_forged_headers(apps, browser):
    url, proxy = apps["header"], apps["proxy"]
    # Through the sign-in proxy: dana holds finance and analyst, and only those are offered.
    proxy.user = "dana"
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000},
                              extra_http_headers={"X-Forwarded-Email": "ruth"})  # overwritten by the proxy
    page = ctx.new_page()
    page.goto(proxy.url)
    page.get_by_text("Signed in as dana").wait_for(timeout=30000)
    assert _role_options(page) == ["finance", "analyst"]
    assert page.get_by_text("demo mode: role chosen freely").count() == 0
    ctx.close()

    # A user the proxy vouches for but the catalog does not know gets no role and sees nothing; and
    # whatever the proxy passes along is shown as text: no image fetched, no badge drawn.
    fetched = []
    proxy.user = ":green-badge[AUTHORITATIVE]![x](http://127.0.0.1:9/p.png)<img src=http://127.0.0.1:9/q.png>"
    page = browser.new_page()
    page.on("request", lambda req: fetched.append(req.url) if ":9/" in req.url else None)
    page.goto(proxy.url)
    page.get_by_text("is not a principal in this catalog").wait_for(timeout=30000)
    assert page.get_by_role("combobox", name="Role").count() == 0
    assert page.get_by_label("Question", exact=True).count() == 0
    error = page.locator('[data-testid="stAlertContentError"]')
    # Shown as typed; the invisible word joiner after "http:" is what keeps the URL from becoming a link.
    assert ":green-badge[AUTHORITATIVE]![x](http://127.0.0.1:9/p.png)<img" in error.inner_text().replace("\u2060", "")
    assert error.locator("img").count() == 0 and fetched == []
    page.close()

    # Straight to the app, forging the identity (and the forwarded address): the header is ignored.
    ctx = browser.new_context(extra_http_headers={"X-Forwarded-Email": "ruth", "X-Forwarded-For": PROXY_SOURCE})
    page = ctx.new_page()
    page.goto(url)
    page.get_by_text("did not come through the sign-in proxy").wait_for(timeout=30000)
    page.get_by_text("header is ignored").wait_for(timeout=5000)  # the forged header did arrive
    assert page.get_by_role("combobox", name="Role").count() == 0
    assert page.get_by_text("Signed in as").count() == 0
    ctx.close()


# ---------------------------------------------------------------- OIDC mode: a local OpenID provider


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class OpenIDProvider:
    """Just enough of an OpenID Connect provider for the authorization code flow with PKCE."""

    def __init__(self, client_id: str, client_secret: str, redirect_uri: str):
        from joserfc.jwk import RSAKey
        self.client_id, self.client_secret, self.redirect_uri = client_id, client_secret, redirect_uri
        self.key = RSAKey.generate_key(2048, parameters={"kid": "asof-test", "use": "sig", "alg": "RS256"})
        self.pending: dict[str, dict] = {}   # sign-in form transaction -> authorize parameters
        self.codes: dict[str, dict] = {}     # authorization code -> grant
        provider = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                provider.get(self)

            def do_POST(self):
                provider.post(self)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.issuer = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @staticmethod
    def _send(h, status: int, body: str | dict, ctype: str = "application/json", headers: dict = None) -> None:
        data = (json.dumps(body) if isinstance(body, dict) else body).encode()
        h.send_response(status)
        h.send_header("Content-Type", ctype)
        h.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            h.send_header(k, v)
        h.end_headers()
        h.wfile.write(data)

    def get(self, h) -> None:
        url = urllib.parse.urlsplit(h.path)
        q = dict(urllib.parse.parse_qsl(url.query))
        if url.path == "/.well-known/openid-configuration":
            self._send(h, 200, {
                "issuer": self.issuer, "authorization_endpoint": f"{self.issuer}/authorize",
                "token_endpoint": f"{self.issuer}/token", "jwks_uri": f"{self.issuer}/jwks",
                "response_types_supported": ["code"], "subject_types_supported": ["public"],
                "id_token_signing_alg_values_supported": ["RS256"], "code_challenge_methods_supported": ["S256"],
                "scopes_supported": ["openid", "email", "profile"],
                "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post"]})
        elif url.path == "/jwks":
            self._send(h, 200, {"keys": [self.key.as_dict(private=False)]})
        elif url.path == "/authorize":
            if q.get("client_id") != self.client_id or q.get("redirect_uri") != self.redirect_uri:
                return self._send(h, 400, {"error": "invalid_client"})
            tx = secrets.token_urlsafe(16)
            self.pending[tx] = q
            self._send(h, 200, f"""<html><body><h1>Test identity provider</h1>
                <form method="post" action="/approve"><input type="hidden" name="tx" value="{tx}">
                <label>E-mail <input name="email" aria-label="E-mail"></label>
                <button type="submit">Sign in</button></form></body></html>""", "text/html")
        else:
            self._send(h, 404, {"error": "not_found"})

    def post(self, h) -> None:
        form = dict(urllib.parse.parse_qsl(h.rfile.read(int(h.headers.get("Content-Length", 0))).decode()))
        if h.path == "/approve":
            q = self.pending.pop(form.get("tx", ""), None)
            if q is None:
                return self._send(h, 400, {"error": "invalid_request"})
            code = secrets.token_urlsafe(16)
            self.codes[code] = {**q, "email": form["email"]}
            target = f"{q['redirect_uri']}?" + urllib.parse.urlencode({"code": code, "state": q.get("state", "")})
            return self._send(h, 302, "", "text/plain", {"Location": target})
        if h.path != "/token":
            return self._send(h, 404, {"error": "not_found"})
        client_id, client_secret = form.get("client_id"), form.get("client_secret")
        auth = h.headers.get("Authorization", "")
        if auth.startswith("Basic "):
            client_id, client_secret = (urllib.parse.unquote(x) for x in
                                        base64.b64decode(auth[6:]).decode().split(":", 1))
        grant = self.codes.pop(form.get("code", ""), None)
        if (client_id, client_secret) != (self.client_id, self.client_secret) or grant is None:
            return self._send(h, 400, {"error": "invalid_grant"})
        if form.get("redirect_uri") != grant["redirect_uri"]:
            return self._send(h, 400, {"error": "invalid_grant"})
        if grant.get("code_challenge"):  # PKCE S256
            verifier = form.get("code_verifier", "")
            if _b64url(hashlib.sha256(verifier.encode()).digest()) != grant["code_challenge"]:
                return self._send(h, 400, {"error": "invalid_grant"})
        from joserfc import jwt
        now = int(time.time())
        claims = {"iss": self.issuer, "sub": hashlib.sha256(grant["email"].encode()).hexdigest()[:16],
                  "aud": self.client_id, "iat": now, "exp": now + 600, "email": grant["email"],
                  "email_verified": True}
        if grant.get("nonce"):
            claims["nonce"] = grant["nonce"]
        id_token = jwt.encode({"alg": "RS256", "kid": "asof-test"}, claims, self.key)
        self._send(h, 200, {"access_token": secrets.token_urlsafe(16), "token_type": "Bearer", "expires_in": 600,
                            "id_token": id_token, "scope": "openid email profile"},
                   headers={"Cache-Control": "no-store"})

    def close(self) -> None:
        self.server.shutdown()


@pytest.fixture(scope="module")
def apps(demo_db, tmp_path_factory):
    """Both apps start at once (each takes seconds to boot): header mode and OIDC mode."""
    # Header mode: only the proxy's address is trusted; the browser's own connections come from 127.0.0.1.
    header = _launch(demo_db, {"ASOF_AUTH": "header", "ASOF_TRUSTED_PROXIES": PROXY_SOURCE})
    port = free_port()
    redirect = f"http://127.0.0.1:{port}/oauth2callback"
    idp = OpenIDProvider("asof-test-client", secrets.token_urlsafe(24), redirect)
    secrets_file = tmp_path_factory.mktemp("oidc") / "secrets.toml"
    secrets_file.write_text(f"""[auth]
redirect_uri = "{redirect}"
cookie_secret = "{secrets.token_urlsafe(32)}"
client_id = "{idp.client_id}"
client_secret = "{idp.client_secret}"
server_metadata_url = "{idp.issuer}/.well-known/openid-configuration"
""")
    oidc = _launch(demo_db, {"ASOF_AUTH": "oidc", "ASOF_AUTH_EMAIL_DOMAIN": "lumen.example"},
                   ["--secrets.files", str(secrets_file)], port)
    proxy = SignInProxy(int(header[1].rsplit(":", 1)[1]))
    try:
        for proc, url in (header, oidc):
            wait_healthy(proc, url)
        yield {"header": header[1], "proxy": proxy, "oidc": oidc[1]}
    finally:
        proxy.close()
        idp.close()
        stop(header[0], oidc[0])


def _sign_in(page, url: str, email: str) -> None:
    page.goto(url)
    page.get_by_text("Not signed in.").wait_for(timeout=30000)
    assert page.get_by_role("combobox", name="Role").count() == 0
    page.get_by_role("button", name="Log in").click()
    page.get_by_label("E-mail").fill(email)   # the provider's own sign-in page
    page.get_by_role("button", name="Sign in").click()


def test_oidc_login_maps_to_the_principal(apps, browser):
    oidc_app = apps["oidc"]
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = ctx.new_page()
    _sign_in(page, oidc_app, "dana@lumen.example")
    # An address is shown with an invisible word joiner after "@", so it never becomes a mailto link.
    page.get_by_text(re.compile("Signed in as dana@\u2060?lumen\\.example")).wait_for(timeout=30000)
    assert _role_options(page) == ["finance", "analyst"]
    assert page.get_by_text("demo mode: role chosen freely").count() == 0
    ctx.close()

    # Someone the provider knows but the catalog does not: signed in, yet no role and nothing shown.
    ctx = browser.new_context()
    page = ctx.new_page()
    _sign_in(page, oidc_app, "farah@elsewhere.example")
    page.get_by_text("is not a principal in this catalog").wait_for(timeout=30000)
    assert page.get_by_role("combobox", name="Role").count() == 0
    assert page.get_by_label("Question", exact=True).count() == 0
    ctx.close()
