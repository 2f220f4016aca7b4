"""The app served by `streamlit run` on 127.0.0.1 for browser tests, and Debian's Chromium to drive it."""
import os
import socket
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path

import pytest
from conftest import ROOT

CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync"]
needs_chromium = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Debian chromium is not installed")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def launch(db: Path, env: dict | None = None, extra: list[str] = (), port: int | None = None
           ) -> tuple[subprocess.Popen, str]:
    port = port or free_port()
    proc = subprocess.Popen([sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py"), "--server.headless",
                             "true", "--server.address", "127.0.0.1", "--server.port", str(port),
                             "--browser.gatherUsageStats", "false", *extra], cwd=ROOT,
                            env={**os.environ, "ASOF_DB": str(db), **(env or {})},
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return proc, f"http://127.0.0.1:{port}"


def wait_healthy(proc: subprocess.Popen, url: str, timeout: float = 90) -> None:
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            if urllib.request.urlopen(f"{url}/_stcore/health", timeout=2).read() == b"ok":
                return
        except OSError:
            time.sleep(0.3)
    proc.kill()
    pytest.fail(f"streamlit did not become healthy within {timeout:.0f} s")


def stop(*procs: subprocess.Popen) -> None:
    for proc in procs:
        proc.terminate()
    deadline = time.time() + 5
    for proc in procs:
        try:
            proc.wait(timeout=max(0.1, deadline - time.time()))
        except subprocess.TimeoutExpired:  # open browser sessions can hold up a graceful stop
            proc.kill()
            proc.wait()


@contextmanager
def served(db: Path, env: dict | None = None):
    """The app on `db`, healthy, stopped on exit; yields its URL."""
    proc, url = launch(db, env)
    try:
        wait_healthy(proc, url)
        yield url
    finally:
        stop(proc)


@contextmanager
def chromium():
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        try:
            yield b
        finally:
            b.close()
