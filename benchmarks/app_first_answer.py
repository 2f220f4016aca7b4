"""Time to the first answer in a real browser: `streamlit run` start-up, then a question on the demo catalog.

    .venv/bin/python benchmarks/app_first_answer.py     # needs /usr/bin/chromium (scripts/setup.sh installs it)
"""
from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync"]


def main() -> None:
    from playwright.sync_api import sync_playwright
    db = ROOT / "data" / "build" / "demo.duckdb"
    if not db.exists():
        subprocess.run([sys.executable, "-m", "core", "ingest", "data/demo", "--db", str(db)], cwd=ROOT, check=True)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
                             "--server.address", "127.0.0.1", "--server.port", str(port)],
                            cwd=ROOT, env={**os.environ, "ASOF_DB": str(db)},
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        while True:
            try:
                if urllib.request.urlopen(f"{url}/_stcore/health", timeout=1).read() == b"ok":
                    break
            except OSError:
                time.sleep(0.1)
        healthy = time.perf_counter() - t0
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", headless=True, args=FLAGS)
            page = browser.new_page()
            page.goto(url)
            page.get_by_text("Which definition of a metric applied").wait_for(timeout=60000)
            loaded = time.perf_counter() - t0
            box = page.get_by_label("Question", exact=True)
            box.fill("What does net revenue mean, which model backs it, and is the data fresh?")
            box.press("Enter")
            a0 = time.perf_counter()
            page.get_by_role("button", name="Ask").click()
            page.get_by_text("v2 of Net revenue applies on 2025-03-31").first.wait_for(timeout=60000)
            first_answer = time.perf_counter() - a0
            total = time.perf_counter() - t0
            browser.close()
    finally:
        proc.terminate()
        proc.wait(timeout=20)
    print(json.dumps({"server_healthy_s": round(healthy, 2), "page_loaded_s": round(loaded, 2),
                      "first_answer_after_ask_s": round(first_answer, 2), "start_to_first_answer_s": round(total, 2)}))


if __name__ == "__main__":
    main()
