"""Time to the first answer in a real browser: `streamlit run` start-up, then a question on the demo catalog.
The answer time runs from pressing Enter in the question box to the answer's headline on the page.

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


QUESTIONS = [  # (question, the headline that marks its answer on the page)
    ("What does net revenue mean on 2025-03-31, which model backs it, and is the data fresh?",
     "Net revenue v2 applies on 31 Mar 2025"),
    ("What was net revenue on June 30th 2024?", "Net revenue v1 applies on 30 Jun 2024"),
    ("How was churn defined in calendar year 2025?", "Churn rate changed definition"),
    ("Is raw_web.sessions fresh?", "raw_web.sessions is"),
    ("The old wiki says revenue includes shipping and tax. Is that right for 2025-03-31?", "No: Revenue Handbook"),
]


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
            times = []
            for question, headline in QUESTIONS:
                box = page.get_by_label("Question", exact=True)
                box.fill(question)
                a0 = time.perf_counter()
                box.press("Enter")
                page.locator(".st-key-headline h3", has_text=headline).wait_for(timeout=60000)
                times.append(time.perf_counter() - a0)
                if len(times) == 1:
                    total = time.perf_counter() - t0
            browser.close()
    finally:
        proc.terminate()
        proc.wait(timeout=20)
    later = sorted(times[1:])
    print(json.dumps({"server_healthy_s": round(healthy, 2), "page_loaded_s": round(loaded, 2),
                      "enter_to_first_answer_s": round(times[0], 2),
                      "enter_to_answer_median_s": round(later[len(later) // 2], 2) if later else None,
                      "start_to_first_answer_s": round(total, 2)}))


if __name__ == "__main__":
    main()
