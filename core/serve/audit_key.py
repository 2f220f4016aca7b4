"""The secret that keys the audit log's chain (core/serve/audit.py).

A plain sha256 chain finds accidental damage and a careless edit, but whoever can write the log can edit a record
and recompute every hash after it. With a key the chain is an HMAC-SHA256 that nobody without the key can
recompute, so such a rechained edit is found. The key comes from `ASOF_AUDIT_KEY` (the key itself) or
`ASOF_AUDIT_KEY_FILE` (a file holding it, readable and writable by its owner only: a key others can read keys
nothing). It is read on every append and verification, so a rotated file is used at once.
"""
from __future__ import annotations

import os
import stat
from pathlib import Path

KEY_VAR, KEY_FILE_VAR = "ASOF_AUDIT_KEY", "ASOF_AUDIT_KEY_FILE"
MIN_BYTES = 16  # shorter is guessable; 32 random bytes (`openssl rand -hex 32`) is the suggestion


class AuditKeyError(ValueError):
    """The configured key cannot be used; the message names the variable or file and what to do."""


def audit_key(env: dict | None = None) -> bytes | None:
    """The configured key, or None when neither variable is set."""
    env = os.environ if env is None else env
    text, path = env.get(KEY_VAR), env.get(KEY_FILE_VAR)
    if text and path:
        raise AuditKeyError(f"both {KEY_VAR} and {KEY_FILE_VAR} are set; set only one")
    if text:
        key, where = text.strip().encode("utf-8"), KEY_VAR
    elif path:
        key, where = _read_file(Path(path)), f"{KEY_FILE_VAR} {path}"
    else:
        return None
    if len(key) < MIN_BYTES:
        raise AuditKeyError(f"{where}: the audit key is {len(key)} bytes; use at least {MIN_BYTES} "
                            "(for example `openssl rand -hex 32`)")
    return key


def _read_file(path: Path) -> bytes:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError as exc:
        raise AuditKeyError(f"{KEY_FILE_VAR} {path}: cannot open the audit key file ({exc.strerror}; a symlink "
                            "is not followed)") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise AuditKeyError(f"{KEY_FILE_VAR} {path}: not a regular file")
        if st.st_mode & 0o077:
            raise AuditKeyError(f"{KEY_FILE_VAR} {path}: mode {stat.S_IMODE(st.st_mode):04o} lets other users "
                                f"read or change the audit key; run `chmod 600 {path}` (owner only)")
        return os.read(fd, 65536).strip()
    finally:
        os.close(fd)
