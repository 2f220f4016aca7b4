"""Signatures on CURRENT: a replica switches only to a revision its publisher signed.

Ed25519 through `cryptography` rather than HMAC with a shared secret: a replica holds only the public key, so a
replica's host (or anyone who reads its settings) can check revisions but never sign one; only the machine that
runs `asof publish` holds the private key. A key is named by its id (the first 16 hex digits of the sha256 of its
raw public bytes), recorded in CURRENT beside the signature, so a replica trusting several keys (during a rotation)
knows which one to check with, and a refusal names the key that signed.

  ASOF_SIGNING_KEY    the publisher's private key (PEM, PKCS#8), written by `asof keys new`
  ASOF_TRUSTED_KEYS   the public keys a replica accepts (PEM files, separated by ':')
"""
from __future__ import annotations

import base64
import hashlib
import json
import os
from pathlib import Path

SIGNING_KEY_ENV = "ASOF_SIGNING_KEY"
TRUSTED_KEYS_ENV = "ASOF_TRUSTED_KEYS"


class SigningError(Exception):
    """A key that cannot be read, or a signature that does not verify; the message names the file or key."""


def key_id(public_key) -> str:
    from cryptography.hazmat.primitives import serialization
    raw = public_key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return hashlib.sha256(raw).hexdigest()[:16]


def new_key_pair(folder: str | Path) -> tuple[Path, Path]:
    """Write a new Ed25519 key pair into `folder`: `asof-<id>.key` (private, owner-only) and `asof-<id>.pub`."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    private = Ed25519PrivateKey.generate()
    kid = key_id(private.public_key())
    secret, public = folder / f"asof-{kid}.key", folder / f"asof-{kid}.pub"
    pem = private.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption())
    # Created owner-only from the start (O_EXCL: never over an existing key), not chmod-ed after being written.
    fd = os.open(secret, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as fh:
        fh.write(pem)
    public.write_bytes(private.public_key().public_bytes(serialization.Encoding.PEM,
                                                         serialization.PublicFormat.SubjectPublicKeyInfo))
    return secret, public


def load_signing_key(path: str | Path):
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    try:
        key = serialization.load_pem_private_key(Path(path).read_bytes(), password=None)
    except (OSError, ValueError, TypeError) as exc:
        raise SigningError(f"{SIGNING_KEY_ENV}={path}: not a readable private key ({type(exc).__name__}: "
                           f"{str(exc)[:200]}); make one with `asof keys new`") from None
    if not isinstance(key, Ed25519PrivateKey):
        raise SigningError(f"{SIGNING_KEY_ENV}={path}: not an Ed25519 key; make one with `asof keys new`")
    return key


def load_trusted_keys(paths: tuple[str, ...]) -> dict[str, object]:
    """Key id -> public key, for every file named."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
    out = {}
    for path in paths:
        try:
            key = serialization.load_pem_public_key(Path(path).read_bytes())
        except (OSError, ValueError, TypeError) as exc:
            raise SigningError(f"{TRUSTED_KEYS_ENV}: {path} is not a readable public key ({type(exc).__name__}: "
                               f"{str(exc)[:200]})") from None
        if not isinstance(key, Ed25519PublicKey):
            raise SigningError(f"{TRUSTED_KEYS_ENV}: {path} is not an Ed25519 public key")
        out[key_id(key)] = key
    return out


def signed_bytes(fields: dict) -> bytes:
    """What is signed: every field of CURRENT but the signature, as canonical JSON (sorted keys, no spaces)."""
    return json.dumps({k: v for k, v in fields.items() if k != "signature"}, sort_keys=True,
                      separators=(",", ":")).encode()


def sign(private_key, fields: dict) -> str:
    return base64.b64encode(private_key.sign(signed_bytes(fields))).decode()


def verify(trusted: dict[str, object], fields: dict) -> None:
    """Raise SigningError naming why unless `fields` carry a signature by one of the `trusted` keys."""
    from cryptography.exceptions import InvalidSignature
    kid, signature = fields.get("key_id"), fields.get("signature")
    if not signature or not kid:
        raise SigningError("it is not signed (publish with ASOF_SIGNING_KEY set)")
    key = trusted.get(kid)
    if key is None:
        raise SigningError(f"it is signed by key {kid}, which this replica does not trust "
                           f"({TRUSTED_KEYS_ENV} holds {', '.join(sorted(trusted)) or 'no key'})")
    try:
        key.verify(base64.b64decode(signature, validate=True), signed_bytes(fields))
    except (InvalidSignature, ValueError):
        raise SigningError(f"its signature does not verify with key {kid} (CURRENT was changed after signing, or "
                           "signed with another key)") from None
