"""How long a steward decision takes to become a catalog revision, against a full ingest of the same catalog.

A decision is applied to the catalog as its database holds it (core/ingest/decision_apply.py) and written as a new
ingest, embedding only the objects it changed; an ingest reads the source files and writes the same database and
index. For the demo catalog and synthetic catalogs (benchmarks/bench.py's generator, plus a steward role), this
measures the first ingest (every chunk embedded), a re-ingest of unchanged files, and three decisions: retiring a
superseded page, retiring an untrusted note, closing nothing but an owner change. Bounded sizes; run it niced:

    nice -n 15 .venv/bin/python benchmarks/decision_apply.py --sizes 1000 3000

Results (with the load average beside them) are appended to benchmarks/results/decision_apply.json and .md.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from bench import synth_catalog  # noqa: E402

from core.answer.decide import Decider, Request, decide, read_queue  # noqa: E402
from core.catalog.store import Store  # noqa: E402
from core.retrieve.embed import Embedder  # noqa: E402
from core.serve.cli import main as cli  # noqa: E402
from core.settings.config import Settings  # noqa: E402

DEMO = HERE.parent / "data" / "demo"


def _ingest(source: Path, db: Path) -> float:
    t = time.perf_counter()
    code = cli(["ingest", str(source), "--db", str(db)])
    assert code == 0
    return time.perf_counter() - t


def run(name: str, source: Path, folder: Path, embedder: Embedder) -> dict:
    db = folder / f"{name}.duckdb"
    first = _ingest(source, db)
    again = _ingest(source, db)
    store = Store(db)
    objects = int(store.meta()["object_count"])
    steward = next(r.name for r in store.roles() if r.steward)
    q = read_queue(store)
    store.close()
    plan = [("superseded_surfaced", "retire", {}), ("untrusted_instructions", "retire", {}),
            ("draft_conflict", "set_owner", {"owner": "Benchmark Owner"})]
    decisions = []
    for category, action, kw in plan:
        item = next((i for i in q.open if i.item.category == category and action in i.actions), None)
        if item is None:
            continue
        t = time.perf_counter()
        decide(db, Decider(role=steward, identity="demo picker"),
               Request(item=item.id, action=action, reason="benchmark", **kw), embedder)
        decisions.append({"action": f"{action} ({category})", "seconds": round(time.perf_counter() - t, 2)})
    return {"catalog": name, "objects": objects, "first_ingest_s": round(first, 2),
            "reingest_unchanged_s": round(again, 2), "decisions": decisions,
            "load_average": [round(x, 2) for x in os.getloadavg()]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", nargs="*", type=int, default=[1000])
    args = ap.parse_args()
    embedder = Embedder(Settings.from_env().embed_model)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        rows.append(run("demo", DEMO, folder, embedder))
        for n in args.sizes:
            raw = synth_catalog(n)
            raw["roles"] = [*raw["roles"], {"name": "steward", "steward": True}]
            path = folder / f"synthetic_{n}.json"
            path.write_text(json.dumps(raw))
            rows.append(run(f"synthetic {n}", path, folder, embedder))
    out = HERE / "results" / "decision_apply.json"
    history = json.loads(out.read_text()) if out.exists() else []
    history.append({"at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "rows": rows})
    out.write_text(json.dumps(history, indent=2) + "\n")
    lines = ["| catalog | objects | first ingest (s) | re-ingest, unchanged (s) | decisions (s each) | load average |",
             "|---|---|---|---|---|---|"]
    for r in rows:
        each = "; ".join(f"{d['action']} {d['seconds']}" for d in r["decisions"])
        lines.append(f"| {r['catalog']} | {r['objects']} | {r['first_ingest_s']} | {r['reingest_unchanged_s']} | "
                     f"{each} | {' '.join(map(str, r['load_average']))} |")
    (HERE / "results" / "decision_apply.md").write_text(
        "# Steward decision to catalog revision (benchmarks/decision_apply.py)\n\n" + "\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
