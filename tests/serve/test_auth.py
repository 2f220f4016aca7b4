"""Identity from the deployment: who may use which role (core/auth), and the CLI's --principal."""
import json
import os
import stat

import pytest
from conftest import DEMO, cli

from core.catalog.store import Store, write_catalog
from core.ingest.load import load_catalog
from core.settings.auth import (
    AuthMode,
    AuthSettings,
    cli_role,
    cli_roles,
    header_config_problem,
    header_identity,
    is_trusted,
    match_principal,
    oidc_identity,
    startup_notice,
)
from core.settings.config import Settings

PRINCIPALS = {"alice": ["analyst"], "farah": ["finance"], "ruth": ["governance"], "dana": ["finance", "analyst"]}
ROLES = ["analyst", "finance", "governance", "marketing"]
HEADER = AuthSettings(mode="header", trusted_proxies=["10.0.0.5", "127.0.0.1", "::1"])


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> str:
    path = tmp_path_factory.mktemp("auth") / "demo.duckdb"
    write_catalog(load_catalog(DEMO), path)  # catalog only: the CLI answers without the index
    return str(path)


def test_store_lists_principals_with_their_roles_in_catalog_order(db):
    principals = Store(db).principals()
    assert principals["dana"] == ["finance", "analyst"] and principals["alice"] == ["analyst"]


# --- header mode ---------------------------------------------------------------------------------------------

def test_header_from_a_trusted_proxy_gives_the_principals_roles_only():
    ident = header_identity(["dana"], "10.0.0.5", HEADER, PRINCIPALS, ROLES)
    assert ident.principal == "dana" and ident.roles == ["finance", "analyst"] and not ident.demo


def test_header_from_any_other_address_is_ignored():
    for peer in ("10.0.0.6", "192.168.1.10", None, "", "not-an-ip"):
        ident = header_identity(["ruth"], peer, HEADER, PRINCIPALS, ROLES)
        assert ident.roles == [] and ident.principal is None
        assert "header is ignored" in ident.problem


def test_header_missing_or_ambiguous_gives_no_role():
    assert header_identity([], "10.0.0.5", HEADER, PRINCIPALS, ROLES).roles == []
    assert header_identity(["  "], "10.0.0.5", HEADER, PRINCIPALS, ROLES).roles == []
    # Two different values (a client's forged one passed through next to the proxy's): refuse, do not pick.
    assert header_identity(["ruth", "alice"], "10.0.0.5", HEADER, PRINCIPALS, ROLES).roles == []


def test_unknown_user_gets_no_role_and_is_told_so():
    ident = header_identity(["eve@example.com"], "127.0.0.1", HEADER, PRINCIPALS, ROLES)
    assert ident.roles == [] and "not a principal" in ident.problem


def test_header_mode_by_default_trusts_no_address_not_even_this_host(monkeypatch):
    # A process on the same host (a loopback peer) sending the header must not be signed in as anyone.
    default = AuthSettings(mode="header")
    assert default.trusted_proxies == []
    for peer in ("127.0.0.1", "::1", "10.0.0.5", None):
        ident = header_identity(["dana"], peer, default, PRINCIPALS, ROLES)
        assert ident.roles == [] and ident.principal is None
        assert "no trusted proxy is configured" in ident.problem and "ASOF_TRUSTED_PROXIES" in ident.problem
    # The same from the environment: ASOF_AUTH=header alone does not trust loopback.
    monkeypatch.setenv("ASOF_AUTH", "header")
    monkeypatch.delenv("ASOF_TRUSTED_PROXIES", raising=False)
    monkeypatch.delenv("FORWARDED_ALLOW_IPS", raising=False)
    cfg = Settings.from_env().auth
    assert cfg.trusted_proxies == [] and header_identity(["dana"], "127.0.0.1", cfg, PRINCIPALS, ROLES).roles == []


def test_start_up_says_whom_header_mode_trusts_or_why_nobody_can_sign_in():
    assert startup_notice(AuthSettings()) is None                                     # demo: nothing to say
    refused = startup_notice(AuthSettings(mode="header"))
    assert "no trusted proxy is configured" in refused and "nobody can sign in" in refused
    assert "Set ASOF_TRUSTED_PROXIES" in refused
    ok = startup_notice(AuthSettings(mode="header", trusted_proxies=["10.0.0.5"], forwarded_allow_ips=""))
    assert "trusted only from 10.0.0.5" in ok and "X-Forwarded-Email" in ok
    wide = startup_notice(AuthSettings(mode="header", trusted_proxies=["10.0.0.5"], forwarded_allow_ips="*"))
    assert "FORWARDED_ALLOW_IPS=*" in wide


def test_the_database_and_audit_log_are_owner_only(tmp_path):
    old = os.umask(0o022)  # a usual umask would leave them world-readable
    try:
        db = tmp_path / "demo.duckdb"
        write_catalog(load_catalog(DEMO), db)
        write_catalog(load_catalog(DEMO), db)  # a re-ingest replaces the file: still owner only
        r = cli("ask", "--db", str(db), "--role", "analyst", "What is net revenue?")
        assert r.returncode == 0, r.stderr
        for path in (db, tmp_path / "demo.duckdb.audit.jsonl"):
            assert stat.S_IMODE(path.stat().st_mode) == 0o600, (path, oct(path.stat().st_mode))
    finally:
        os.umask(old)


def test_trusted_proxies_accept_networks_and_mapped_addresses():
    assert is_trusted("10.1.2.3", ["10.0.0.0/8"]) and not is_trusted("11.0.0.1", ["10.0.0.0/8"])
    assert is_trusted("::ffff:127.0.0.1", ["127.0.0.1"])
    assert not is_trusted("127.0.0.2", ["127.0.0.1"])


def test_header_mode_refuses_a_server_that_lets_clients_choose_their_address():
    # Uvicorn rewrites the peer from X-Forwarded-For for peers in FORWARDED_ALLOW_IPS: each must be trusted.
    wide = HEADER.model_copy(update={"forwarded_allow_ips": "*"})
    assert header_config_problem(wide) and header_identity(["dana"], "10.0.0.5", wide, PRINCIPALS, ROLES).roles == []
    lan = HEADER.model_copy(update={"forwarded_allow_ips": "192.168.0.0/16"})
    assert "192.168.0.0/16" in header_config_problem(lan)
    assert header_config_problem(HEADER.model_copy(update={"forwarded_allow_ips": ""})) is None
    assert header_config_problem(HEADER.model_copy(update={"forwarded_allow_ips": "127.0.0.1,::1"})) is None


# --- mapping -------------------------------------------------------------------------------------------------

def test_principal_matching_is_exact_up_to_ascii_case():
    assert match_principal("Dana", PRINCIPALS, None) == "dana"
    assert match_principal("dana@lumen.example", PRINCIPALS, None) is None       # no domain configured
    assert match_principal("dana@lumen.example", PRINCIPALS, "lumen.example") == "dana"
    assert match_principal("DANA@Lumen.Example", PRINCIPALS, "lumen.example") == "dana"
    assert match_principal("dana@evil.example", PRINCIPALS, "lumen.example") is None
    assert match_principal("dana@evil.example@lumen.example", PRINCIPALS, "lumen.example") is None
    # Unicode look-alikes never land on someone else's principal (Kelvin sign, fullwidth, dotless i).
    for forged in ("\u212alice", "\uff41lice", "al\u0131ce", "alice\u200b", "ali ce", "ALİCE"):
        assert match_principal(forged, {"alice": ["analyst"], "kalice": ["finance"]}, None) is None, forged


def test_control_characters_in_an_identity_match_nothing():
    assert match_principal("alice\x1b[2J", PRINCIPALS, None) is None
    assert match_principal("a" * 400, {"a" * 400: ["analyst"]}, None) is None


# --- OIDC ----------------------------------------------------------------------------------------------------

OIDC = AuthSettings(mode="oidc", email_domain="lumen.example")


def test_oidc_signed_in_user_maps_to_the_principal():
    ident = oidc_identity({"is_logged_in": True, "email": "dana@lumen.example", "email_verified": True},
                          OIDC, PRINCIPALS, ROLES)
    assert ident.roles == ["finance", "analyst"] and ident.user == "dana@lumen.example"


def test_oidc_not_signed_in_unverified_or_unknown_gives_no_role():
    assert oidc_identity({"is_logged_in": False}, OIDC, PRINCIPALS, ROLES).needs_login
    assert oidc_identity(None, OIDC, PRINCIPALS, ROLES).needs_login
    unverified = oidc_identity({"is_logged_in": True, "email": "ruth@lumen.example", "email_verified": False},
                               OIDC, PRINCIPALS, ROLES)
    assert unverified.roles == [] and "not verified" in unverified.problem
    assert oidc_identity({"is_logged_in": True, "email": "eve@lumen.example"}, OIDC, PRINCIPALS, ROLES).roles == []
    assert oidc_identity({"is_logged_in": True}, OIDC, PRINCIPALS, ROLES).roles == []


def test_settings_read_identity_from_the_environment(monkeypatch):
    monkeypatch.setenv("ASOF_AUTH", "header")
    monkeypatch.setenv("ASOF_AUTH_HEADER", "X-Auth-Request-Email")
    monkeypatch.setenv("ASOF_TRUSTED_PROXIES", "10.0.0.5, 172.16.0.0/12")
    monkeypatch.setenv("FORWARDED_ALLOW_IPS", "")
    auth = Settings.from_env().auth
    assert auth.mode is AuthMode.header and auth.header == "X-Auth-Request-Email"
    assert auth.trusted_proxies == ["10.0.0.5", "172.16.0.0/12"] and auth.forwarded_allow_ips == ""
    monkeypatch.setenv("ASOF_TRUSTED_PROXIES", "proxy.internal")
    with pytest.raises(ValueError, match="ASOF_TRUSTED_PROXIES"):
        Settings.from_env()
    monkeypatch.delenv("ASOF_TRUSTED_PROXIES")
    monkeypatch.setenv("ASOF_AUTH", "sso")
    with pytest.raises(ValueError, match="ASOF_AUTH"):
        Settings.from_env()


# --- CLI -----------------------------------------------------------------------------------------------------

def test_cli_role_rules():
    assert cli_roles(AuthMode.demo, None, PRINCIPALS, ROLES, None) is None
    assert cli_role("marketing", None, None) == "marketing"              # demo: any role, as before
    allowed = cli_roles(AuthMode.header, "dana", PRINCIPALS, ROLES, None)
    assert cli_role(None, allowed, "dana") == "finance" and cli_role("analyst", allowed, "dana") == "analyst"
    with pytest.raises(ValueError, match="may not use role 'governance'"):
        cli_role("governance", allowed, "dana")
    with pytest.raises(ValueError, match="needs --principal"):
        cli_roles(AuthMode.oidc, None, PRINCIPALS, ROLES, None)
    with pytest.raises(ValueError, match="unknown principal"):
        cli_roles(AuthMode.header, "mallory", PRINCIPALS, ROLES, None)


def test_cli_principal_outside_demo_mode(db, monkeypatch):
    monkeypatch.setenv("ASOF_AUTH", "header")
    q = ["ask", "--db", db, "--date", "2025-03-31", "--json", "What does net revenue mean?"]
    r = cli(*q, "--principal", "dana")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["role"] == "finance"                    # the principal's first role
    assert json.loads(cli(*q, "--principal", "dana", "--role", "analyst").stdout)["role"] == "analyst"
    r = cli(*q, "--principal", "alice", "--role", "finance")            # a role alice does not hold
    assert r.returncode == 2 and "may not use role 'finance'" in r.stderr and r.stdout == ""
    r = cli(*q, "--principal", "mallory")
    assert r.returncode == 2 and "unknown principal 'mallory'" in r.stderr
    r = cli(*q, "--role", "finance")                                    # a role alone is not an identity
    assert r.returncode == 2 and "needs --principal" in r.stderr


def test_cli_batch_lines_are_held_to_the_principals_roles(db, monkeypatch, tmp_path):
    monkeypatch.setenv("ASOF_AUTH", "oidc")
    batch = tmp_path / "q.jsonl"
    batch.write_text(json.dumps({"question": "What is net revenue?", "role": "analyst"}) + "\n"
                     + json.dumps({"question": "What is net revenue?", "role": "governance"}) + "\n")
    r = cli("ask", "--db", db, "--principal", "dana", "--batch", str(batch))
    assert r.returncode == 2 and "line 2" in r.stderr and r.stdout == ""


def test_cli_demo_mode_keeps_role_as_before(db, monkeypatch):
    monkeypatch.delenv("ASOF_AUTH", raising=False)
    r = cli("ask", "--db", db, "--role", "marketing", "--json", "What is CAC?")
    assert r.returncode == 0 and json.loads(r.stdout)["role"] == "marketing"
    # --principal still holds in demo mode when given.
    assert cli("ask", "--db", db, "--principal", "alice", "--role", "marketing", "What is CAC?").returncode == 2


# --- the app: the sidebar follows the decision ---------------------------------------------------------------

@pytest.fixture
def app_db(db, monkeypatch):
    import streamlit as st
    monkeypatch.setenv("ASOF_DB", db)
    st.cache_resource.clear()  # Settings are cached per process: read this test's environment
    yield
    st.cache_resource.clear()


def _run_app():
    from conftest import ROOT
    from streamlit.testing.v1 import AppTest
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()
    assert not at.exception, at.exception
    return at


def test_demo_mode_shows_the_badge_and_every_role(app_db, monkeypatch):
    monkeypatch.delenv("ASOF_AUTH", raising=False)
    at = _run_app()
    assert any("demo mode: role chosen freely" in m.value for m in at.sidebar.markdown)
    assert at.selectbox(key="role").options == ["analyst", "finance", "governance", "marketing"]


def test_header_mode_without_a_proxy_shows_nothing(app_db, monkeypatch):
    monkeypatch.setenv("ASOF_AUTH", "header")
    monkeypatch.delenv("ASOF_TRUSTED_PROXIES", raising=False)
    at = _run_app()
    shown = at.error[0].value.replace("\\", "")  # the message is Markdown-escaped
    assert "no trusted proxy is configured" in shown and "ASOF_TRUSTED_PROXIES" in shown
    assert not [s for s in at.selectbox if s.key == "role"] and not at.text_input
    monkeypatch.setenv("ASOF_TRUSTED_PROXIES", "127.0.0.1,::1")
    monkeypatch.setenv("FORWARDED_ALLOW_IPS", "")
    import streamlit as st
    st.cache_resource.clear()
    at = _run_app()
    shown = at.error[0].value.replace("\\", "")
    assert "did not come through the sign-in proxy (it came from an unknown address)" in shown
    assert not [s for s in at.selectbox if s.key == "role"] and not at.text_input
    assert not any("demo mode" in m.value for m in at.sidebar.markdown)


def test_oidc_mode_without_provider_settings_says_so(app_db, monkeypatch):
    monkeypatch.setenv("ASOF_AUTH", "oidc")
    at = _run_app()
    assert "has no [auth] section" in at.error[0].value.replace("\\", "")
    assert not [s for s in at.selectbox if s.key == "role"] and not at.button
