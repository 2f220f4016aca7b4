"""Who is asking: the deployment's identity mapped to a catalog principal and the roles it may use.

Pure decisions, no Streamlit: the app and the CLI hand in what they observed (a header's values and the
peer address, or the OpenID Connect claims) and get back an `Identity` listing the roles on offer.

Three modes (`ASOF_AUTH`, read in core/settings/config.py):
  demo   - the bundled demo: any role may be chosen, and the app says so on every page.
  header - a reverse proxy or SSO gateway authenticates people and sets a header (default
           X-Forwarded-Email). The header counts only on requests whose peer address is a configured
           trusted proxy (ASOF_TRUSTED_PROXIES); from anywhere else it is ignored, since any client can
           send any header. No trusted proxy is configured by default, and without one the header is
           refused from every address (a process on the same host must not sign in as anyone).
  oidc   - Streamlit's st.login with an OpenID Connect provider from .streamlit/secrets.toml; the
           claim (default `email`) names the user.
The user maps to a principal by exact name (ASCII case-insensitive), or, with an email domain
configured, `name@domain` maps to principal `name`. An unknown user gets no role and sees nothing.
"""
from __future__ import annotations

import ipaddress
import re
from collections.abc import Mapping
from enum import Enum

from pydantic import BaseModel, Field, field_validator

# Uvicorn (Streamlit's server) trusts X-Forwarded-For from these peers unless FORWARDED_ALLOW_IPS says
# otherwise, and then reports the forwarded address as the peer.
UVICORN_DEFAULT_FORWARDED = "127.0.0.1,::1"
_HEADER_NAME = re.compile(r"^[A-Za-z0-9!#$%&'*+.^_`|~-]+$")  # an HTTP token (RFC 9110)
# Identities are e-mail addresses or user names: printable, no spaces, bounded.
_IDENTITY = re.compile(r"^[^\s\x00-\x1f\x7f]{1,320}$")
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


class AuthError(ValueError):
    """A CLI identity that may not be used (unknown principal, role not held): exit 2."""


class AuthMode(str, Enum):
    demo = "demo"
    header = "header"
    oidc = "oidc"


class AuthSettings(BaseModel):
    mode: AuthMode = AuthMode.demo
    header: str = "X-Forwarded-Email"
    # Addresses or networks of the proxies allowed to assert identity (the TCP peer Streamlit sees). None by
    # default: header identity is refused until the deployment names its proxy (loopback is not trusted by
    # default, since any process on the host is a loopback peer).
    trusted_proxies: list[str] = Field(default_factory=list)
    # `name@email_domain` maps to principal `name`; None = the identity must equal the principal's name.
    email_domain: str | None = None
    # The OpenID Connect claim that names the user.
    oidc_claim: str = "email"
    # Uvicorn's FORWARDED_ALLOW_IPS as the server process sees it (see header_config_problem).
    forwarded_allow_ips: str = UVICORN_DEFAULT_FORWARDED

    @field_validator("header")
    @classmethod
    def _header(cls, v: str) -> str:
        if not _HEADER_NAME.match(v):
            raise ValueError(f"not an HTTP header name: {v!r}")
        return v

    @field_validator("trusted_proxies")
    @classmethod
    def _proxies(cls, v: list[str]) -> list[str]:
        for item in v:
            try:
                ipaddress.ip_network(item, strict=False)
            except ValueError:
                raise ValueError(f"not an IP address or network: {item!r}") from None
        return v

    @field_validator("email_domain")
    @classmethod
    def _domain(cls, v: str | None) -> str | None:
        if v is not None and not re.match(r"^[A-Za-z0-9.-]+$", v.lstrip("@")):
            raise ValueError(f"not a domain name: {v!r}")
        return v.lstrip("@") if v else None


class Identity(BaseModel):
    """The decision for one session: who, which principal, and which roles are on offer."""
    mode: AuthMode
    user: str | None = None         # what the deployment asserted (header value, claim)
    principal: str | None = None
    roles: list[str] = Field(default_factory=list)
    problem: str | None = None      # why no role is offered; shown to the person
    needs_login: bool = False       # oidc: nobody signed in yet (offer the login button)

    @property
    def demo(self) -> bool:
        return self.mode is AuthMode.demo


def _key(name: str) -> str:
    # ASCII-only case folding: str.lower()/casefold() map look-alikes (the Kelvin sign to "k", "ß" to
    # "ss"), which would let a crafted identity land on someone else's principal.
    return name.strip().translate(_ASCII_LOWER)


def match_principal(user: str, principals: Mapping[str, list[str]], email_domain: str | None) -> str | None:
    """The principal this identity is, or None (unknown, malformed, or ambiguous)."""
    if not user or not _IDENTITY.match(user.strip()):
        return None
    by_key: dict[str, list[str]] = {}
    for name in principals:
        by_key.setdefault(_key(name), []).append(name)
    key = _key(user)
    found = by_key.get(key)
    suffix = "@" + _key(email_domain) if email_domain else None
    if not found and suffix and key.endswith(suffix):
        found = by_key.get(key[: -len(suffix)])
    return found[0] if found and len(found) == 1 else None


def _for_user(mode: AuthMode, user: str, principals: Mapping[str, list[str]], roles: list[str],
              email_domain: str | None) -> Identity:
    principal = match_principal(user, principals, email_domain)
    if principal is None:
        shown = user if len(user) <= 120 else user[:120] + "…"  # a header can be kilobytes long
        return Identity(mode=mode, user=user, problem=f"{shown} is not a principal in this catalog, so no role "
                                                      "is available. Ask a catalog steward to add you.")
    held = [r for r in principals[principal] if r in roles]
    if not held:
        return Identity(mode=mode, user=user, principal=principal,
                        problem=f"Principal {principal} holds no role of this catalog.")
    return Identity(mode=mode, user=user, principal=principal, roles=held)


def demo_identity(roles: list[str]) -> Identity:
    return Identity(mode=AuthMode.demo, roles=list(roles))


def is_trusted(peer: str | None, trusted_proxies: list[str]) -> bool:
    """Whether the peer address is one of the trusted proxies (unknown peers never are)."""
    if not peer:
        return False
    try:
        ip = ipaddress.ip_address(peer.split("%", 1)[0])
    except ValueError:
        return False
    if ip.version == 6 and ip.ipv4_mapped:
        ip = ip.ipv4_mapped
    return any(ip in ipaddress.ip_network(n, strict=False) for n in trusted_proxies)


NO_TRUSTED_PROXY = ("ASOF_AUTH=header, but no trusted proxy is configured, so the identity header is refused from "
                    "every address and nobody can sign in. Set ASOF_TRUSTED_PROXIES to the address of the "
                    "sign-in proxy (for a proxy on this host: 127.0.0.1,::1, and make sure nothing else on the "
                    "host can reach the app's port).")


def startup_notice(cfg: AuthSettings) -> str | None:
    """What the server says about identity when it starts (scripts/run.sh, the app's first page), or None."""
    if cfg.mode is not AuthMode.header:
        return None
    problem = header_config_problem(cfg)
    if problem:
        return f"AsOf: {problem}"
    return (f"AsOf: ASOF_AUTH=header: the {cfg.header} header is trusted only from "
            f"{', '.join(cfg.trusted_proxies)}; from every other address it is ignored.")


def header_config_problem(cfg: AuthSettings) -> str | None:
    """Why header mode cannot be trusted with this server configuration, or None.

    No trusted proxy configured: the header is refused everywhere (the default).

    Uvicorn rewrites the peer address from X-Forwarded-For when the TCP peer is in FORWARDED_ALLOW_IPS.
    If that list reaches beyond the trusted proxies, a client there could name a trusted proxy as its
    address and assert any identity; so every address uvicorn trusts must itself be a trusted proxy.
    """
    if not cfg.trusted_proxies:
        return NO_TRUSTED_PROXY
    for item in (x.strip() for x in cfg.forwarded_allow_ips.split(",")):
        if not item:
            continue
        if item == "*":
            return ("FORWARDED_ALLOW_IPS=* lets every client choose its own address, so the identity header "
                    "cannot be trusted. Set FORWARDED_ALLOW_IPS to '' (scripts/run.sh does) or to trusted proxies.")
        try:
            net = ipaddress.ip_network(item, strict=False)
        except ValueError:
            continue  # uvicorn compares non-addresses literally; a peer address never equals them
        if not any(net.version == t.version and net.subnet_of(t)
                   for t in (ipaddress.ip_network(x, strict=False) for x in cfg.trusted_proxies)):
            return (f"FORWARDED_ALLOW_IPS includes {item}, which is not in ASOF_TRUSTED_PROXIES: a client there "
                    "could pose as a trusted proxy. Set FORWARDED_ALLOW_IPS to '' or to trusted proxies only.")
    return None


def header_identity(values: list[str], peer: str | None, cfg: AuthSettings,
                    principals: Mapping[str, list[str]], roles: list[str]) -> Identity:
    """Header mode: the identity header counts only when the request comes from a trusted proxy."""
    mode = AuthMode.header
    problem = header_config_problem(cfg)
    if problem:
        return Identity(mode=mode, problem=problem)
    values = [v.strip() for v in values if v.strip()]
    if not is_trusted(peer, cfg.trusted_proxies):
        ignored = f", so its {cfg.header} header is ignored" if values else ""
        return Identity(mode=mode, problem=f"Not signed in: this request did not come through the sign-in proxy "
                                           f"(it came from {peer or 'an unknown address'}){ignored}.")
    if not values:
        return Identity(mode=mode, problem=f"Not signed in: the sign-in proxy sent no {cfg.header} header.")
    if len(set(values)) > 1:
        return Identity(mode=mode, problem=f"Not signed in: the request carries {len(values)} different "
                                           f"{cfg.header} values.")
    return _for_user(mode, values[0], principals, roles, cfg.email_domain)


def oidc_identity(user_info: Mapping | None, cfg: AuthSettings, principals: Mapping[str, list[str]],
                  roles: list[str]) -> Identity:
    """OIDC mode: st.user's claims (already verified by Streamlit/Authlib from the signed ID token)."""
    mode = AuthMode.oidc
    if not user_info or not user_info.get("is_logged_in"):
        return Identity(mode=mode, needs_login=True, problem="Not signed in.")
    value = user_info.get(cfg.oidc_claim)
    if not isinstance(value, str) or not value.strip():
        return Identity(mode=mode, problem=f"The identity provider sent no '{cfg.oidc_claim}' claim.")
    # A provider may let people set an unverified address; it must not name anyone's principal.
    if cfg.oidc_claim == "email" and user_info.get("email_verified") is False:
        return Identity(mode=mode, user=value, problem=f"The e-mail address {value} is not verified by the "
                                                       "identity provider.")
    return _for_user(mode, value.strip(), principals, roles, cfg.email_domain)


def cli_roles(mode: AuthMode, principal: str | None, principals: Mapping[str, list[str]],
              roles: list[str], email_domain: str | None) -> list[str] | None:
    """The roles a CLI run may use: None = any (demo mode without --principal).

    Raises AuthError when the principal is unknown or holds no role, or when a non-demo mode
    has no --principal.
    """
    if principal is None:
        if mode is AuthMode.demo:
            return None
        raise AuthError(f"ASOF_AUTH={mode.value}: ask needs --principal NAME (the roles follow from it)")
    ident = _for_user(mode, principal, principals, roles, email_domain)
    if not ident.roles:
        raise AuthError(f"unknown principal {principal!r}" if ident.principal is None
                        else f"principal {ident.principal!r} holds no role of this catalog")
    return ident.roles


def cli_role(role: str | None, allowed: list[str] | None, principal: str | None) -> str | None:
    """The role to ask as: the given one if allowed, else the principal's first role."""
    if allowed is None:
        return role
    if role is None:
        return allowed[0]
    if role not in allowed:
        raise AuthError(f"principal {principal!r} may not use role {role!r} (its roles: {', '.join(allowed)})")
    return role
