"""Who this browser session is, from the deployment (core/auth decides; this only observes and shows).

`allowed_roles` is called by the sidebar on every page before anything else is drawn: it returns the
roles this session may choose, or stops the page with a message when there are none.
"""
from __future__ import annotations

import streamlit as st

from core.catalog.store import Store
from core.explain.safe_text import md_escape
from core.settings.auth import AuthMode, AuthSettings, Identity, demo_identity, header_identity, oidc_identity


def _peer() -> str | None:
    """The TCP peer of this session's WebSocket, as the server saw it.

    st.context.ip_address reports loopback peers as None (indistinguishable from "unknown"), and a
    local reverse proxy is exactly a loopback peer; so read the session's client context. Any failure
    means "unknown", which is never trusted.
    """
    try:
        from streamlit.runtime import exists, get_instance
        from streamlit.runtime.scriptrunner import get_script_run_ctx
        ctx = get_script_run_ctx()
        if ctx is None or not exists():
            return None
        client = get_instance().get_client(ctx.session_id)
        ip = getattr(getattr(client, "client_context", None), "remote_ip", None)
        return ip if isinstance(ip, str) else None
    except (AttributeError, RuntimeError):
        return None


def _oidc_claims() -> dict | None:
    try:
        return dict(st.user.to_dict()) if hasattr(st.user, "to_dict") else dict(st.user)
    except (AttributeError, KeyError, TypeError):
        return None


def _oidc_configured() -> bool:
    try:
        return "auth" in st.secrets
    except (FileNotFoundError, KeyError, ValueError):  # no secrets file, or an unreadable one
        return False


def current(s: Store, cfg: AuthSettings) -> Identity:
    roles = [r.name for r in s.roles()]
    if cfg.mode is AuthMode.demo:
        return demo_identity(roles)
    if cfg.mode is AuthMode.header:
        return header_identity(st.context.headers.get_all(cfg.header), _peer(), cfg, s.principals(), roles)
    if not _oidc_configured():
        return Identity(mode=cfg.mode, problem="ASOF_AUTH=oidc, but .streamlit/secrets.toml has no [auth] section "
                                               "(redirect_uri, cookie_secret, client_id, client_secret, "
                                               "server_metadata_url): nobody can sign in.")
    return oidc_identity(_oidc_claims(), cfg, s.principals(), roles)


def allowed_roles(s: Store, cfg: AuthSettings) -> Identity:
    """Who this session is and the roles it may use; draws the identity line (or the demo badge) in the sidebar."""
    ident = current(s, cfg)
    if ident.demo:
        st.sidebar.badge("demo mode: role chosen freely", color="orange", icon=":material/warning:")
        return ident
    if not ident.roles:
        st.title("AsOf")
        st.error(md_escape(ident.problem or "Not signed in.", oneline=False))
        st.markdown("Nothing in the catalog is shown without a role. Sign in through your organisation's "
                    "sign-in page, or ask a catalog steward to add you as a principal.")
        if cfg.mode is AuthMode.oidc:
            if ident.needs_login and st.button("Log in", type="primary"):
                st.login()
            if not ident.needs_login and _oidc_configured() and st.button("Log out"):  # signed in, no role
                st.logout()
        st.stop()
    st.sidebar.caption(f"Signed in as {md_escape(ident.user)} · principal {md_escape(ident.principal)}")
    if cfg.mode is AuthMode.oidc and st.sidebar.button("Log out"):
        st.logout()
    return ident
