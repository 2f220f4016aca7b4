"""`asof mcp --transport http` as a test starts it: on a free local port, waited for, stopped afterwards."""
from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from conftest import ROOT


@contextmanager
def mcp_over_http(db: Path, tokens: Path, env: dict[str, str]) -> Iterator[str]:
    """The server's URL while it runs with `env` added to this process's environment."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "core", "mcp", "--db", str(db), "--transport", "http",
                             "--port", str(port), "--tokens", str(tokens)],
                            cwd=ROOT, env={**os.environ, **env}, stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while True:
        assert proc.poll() is None, proc.stderr.read().decode()
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            assert time.monotonic() < deadline, "HTTP MCP server did not start"
            time.sleep(0.2)
    try:
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        proc.wait(timeout=20)
