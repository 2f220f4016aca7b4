"""Who an MCP call runs as: a catalog principal and one of its roles, never a role the caller names.

Over stdio the principal comes from the server's own configuration; over HTTP from a bearer token that a
tokens file maps to a principal. A catalog that declares no principals (every plain `ingest --dbt`) is served
as a role instead: over stdio the person who starts the server is the one asking, so `--role NAME` says which
role; over HTTP a token is issued for a role. Once a catalog declares principals, only principals are served. The file stores only sha256 digests of tokens, so a leaked file does not
leak credentials; a token is printed once, when it is made.
"""
from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import tempfile
from datetime import datetime, timezone
from pathlib import Path

from pydantic import BaseModel, Field, ValidationError, model_validator

from core.catalog.store import Store


class AccessDenied(ValueError):
    """Unknown principal or token, or a role the principal does not hold: nothing may be served."""


class Identity(BaseModel):
    principal: str | None  # None: a catalog without principals, served as a role
    role: str
    steward: bool = False
    # Why this role, when the principal holds several: agents and auditors see the server's choice.
    resolved: str
    # Whose conversations these are: the principal, or for a role the token (or the stdio process) asking.
    subject: str = ""

    @model_validator(mode="after")
    def _subject(self) -> Identity:
        # Unset, the conversations are the principal's (or the role's): two principals never continue each other's.
        if not self.subject:
            self.subject = self.principal or f"role {self.role}"
        return self

    @property
    def who(self) -> str:
        return f"principal {self.principal}" if self.principal else f"role {self.role}"


def resolve_identity(store: Store, principal: str | None, role: str | None = None,
                     subject: str | None = None) -> Identity:
    """The role a principal's calls run as. Several roles: the configured one if it is among them, else
    the first in sorted order (deterministic, and stated in `resolved`). Without a principal, on a catalog that
    declares none, the calls run as the configured role itself."""
    if not principal:
        return _as_role(store, role, subject)
    roles = store.principal_roles(principal)
    if not roles:
        raise AccessDenied(f"unknown principal {principal!r}: not in this catalog's principals")
    if role is not None and role not in roles:
        raise AccessDenied(f"principal {principal!r} does not hold role {role!r} (holds: {', '.join(roles)})")
    chosen = role or roles[0]
    if role:
        why = f"principal {principal} runs as role {chosen} (configured)"
    elif len(roles) == 1:
        why = f"principal {principal} runs as its only role, {chosen}"
    else:
        why = (f"principal {principal} holds roles {', '.join(roles)}; runs as {chosen}, the first in sorted "
               "order (configure a role to choose another)")
    steward = any(r.steward for r in store.roles() if r.name == chosen)
    return Identity(principal=principal, role=chosen, steward=steward, resolved=why, subject=subject or principal)


def _as_role(store: Store, role: str | None, subject: str | None) -> Identity:
    """A catalog without principals: whoever started the server (stdio) or holds the token (HTTP) asks as a role.
    A catalog with principals never takes a bare role: the principal decides the roles."""
    if store.principals():
        raise AccessDenied("no principal configured: give --principal NAME or set ASOF_MCP_PRINCIPAL (this "
                           "catalog declares principals, so a role alone is not accepted)")
    if not role:
        raise AccessDenied("no role configured: this catalog declares no principals, so give --role NAME (or set "
                           "ASOF_MCP_ROLE) for the role every call runs as")
    roles = store.roles()
    match = next((r for r in roles if r.name == role), None)
    if match is None:
        raise AccessDenied(f"unknown role {role!r}: this catalog's roles are {', '.join(r.name for r in roles)}")
    why = (f"runs as role {role}: this catalog declares no principals, so the role the server was given is the "
           "one asking")
    return Identity(principal=None, role=role, steward=match.steward, resolved=why, subject=subject or f"role {role}")


def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


class TokenEntry(BaseModel):
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    # A principal's token; or, for a catalog without principals, a token for a role alone (principal None).
    principal: str | None = Field(default=None, min_length=1)
    role: str | None = None
    label: str = ""
    created_at: str = ""

    @model_validator(mode="after")
    def _someone(self) -> "TokenEntry":
        if not self.principal and not self.role:
            raise ValueError("a token needs a principal or a role")
        return self

    @property
    def subject(self) -> str:
        """Whose conversations a call with this token continues: its principal, else this token alone."""
        return self.principal or f"token {self.sha256[:12]}"


class TokenFile(BaseModel):
    tokens: list[TokenEntry] = Field(default_factory=list)


def load_tokens(path: str | Path) -> TokenFile:
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"no MCP tokens file at {path}; add a token with `python -m core mcp-token add`")
    try:
        return TokenFile.model_validate_json(path.read_text(encoding="utf-8"))
    except ValidationError as exc:
        err = exc.errors()[0]
        raise ValueError(f"{path}: field {'.'.join(str(p) for p in err['loc'])}: {err['msg']}") from None


def add_token(path: str | Path, principal: str | None, role: str | None = None, label: str = "") -> str:
    """Append a new token for `principal` (or, with none, for `role`) and return it: the only time it exists outside the caller."""
    path = Path(path)
    current = load_tokens(path) if path.exists() else TokenFile()
    token = "asof_" + secrets.token_urlsafe(32)
    current.tokens.append(TokenEntry(sha256=token_digest(token), principal=principal, role=role, label=label,
                                     created_at=datetime.now(timezone.utc).isoformat(timespec="seconds")))
    path.parent.mkdir(parents=True, exist_ok=True)
    # Written whole, then renamed: a concurrent reader sees the old file or the new one, never half.
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(current.model_dump_json(indent=2))
    os.chmod(tmp, 0o600)
    os.replace(tmp, path)
    return token


def find_token(tokens: TokenFile, token: str) -> TokenEntry | None:
    digest = token_digest(token)
    found = None
    for entry in tokens.tokens:  # compare every entry in constant time; no early exit on a match
        if hmac.compare_digest(entry.sha256, digest):
            found = entry
    return found


def describe(entry: TokenEntry) -> dict:
    return {"principal": entry.principal, "role": entry.role, "label": entry.label,
            "created_at": entry.created_at, "sha256_prefix": entry.sha256[:12]}

