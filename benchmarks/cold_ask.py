"""Cold `asof ask`: one fresh process, one question, as a user types it in a terminal. For the demo catalog and for
the generated 1,000-model dbt project (acme-analytics), each ingested once into a temporary folder, N runs per
catalog: wall and user+system CPU seconds of each process, the load average beside each run, and the heaviest
imports of one run (`python -X importtime`). Results are written by this script to
benchmarks/results/cold_ask.{json,md}; never edit those by hand.

    .venv/bin/python benchmarks/cold_ask.py [--runs 10] [--catalogs demo acme-analytics] [--compare DIR]

Python's compiled bytecode is kept in a temporary cache (PYTHONPYCACHEPREFIX), as an installed package keeps it;
one unmeasured run per catalog writes it and warms the file cache. scripts/env.sh sets PYTHONDONTWRITEBYTECODE
for development and tests, where every process compiles AsOf's modules again: `--no-bytecode N` adds N runs that
way, reported apart. `--compare DIR` measures another checkout of AsOf (e.g. `git archive` of main unpacked in DIR)
run for run beside this one, on the same catalogs, so both see the same neighbours.

The machine may be shared: each run's load average is kept, and CPU seconds say more than wall seconds then.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PYTHON = sys.executable
CATALOGS = {
    "demo": ["ingest", str(ROOT / "data" / "demo")],
    "acme-analytics": ["ingest", "--dbt", str(ROOT / "tests" / "fixtures" / "generated" / "acme-analytics"),
                       "--overlay", str(ROOT / "data" / "dbt" / "acme-analytics.overlay.yml")],
}
# Questions a user asks first, by catalog: (role, date or None, question).
QUESTIONS = {
    "demo": [("analyst", "2024-06-30", "What does net revenue mean?"),
             ("analyst", None, "What is net revenue?"),
             ("finance", None, "who owns contribution margin?"),
             ("analyst", None, "what depends on fct_orders?")],
    "acme-analytics": [("analyst", None, "What does net revenue mean and which models back it?"),
                       ("analyst", None, "Which raw sources feed dim_customers?"),
                       ("analyst", None, "What is the churn rate?"),
                       ("analyst", None, "Is accounts payable fresh?")],
}
HEAVY = ("pandas", "scipy", "lancedb", "torch", "sentence_transformers", "litellm")


def run(code: Path, args: list[str], env: dict, prefix: list[str] = ()) -> dict:
    """One fresh `python -m core ARGS` process: wall, CPU (its rusage, through wait4) and the load average before."""
    load = os.getloadavg()[0]
    t = time.perf_counter()
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen([*prefix, PYTHON, "-m", "core", *args], cwd=code, stdout=out, stderr=err, text=True,
                                env={**env, "PYTHONPATH": str(code)})
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"{' '.join(args)} failed:\n{stderr[-2000:]}")
    return {"wall_s": round(wall, 3), "cpu_s": round(usage.ru_utime + usage.ru_stime, 3), "load_1min": load,
            "stdout": stdout, "stderr": stderr}


def ask_args(db: Path, role: str, day: str | None, question: str) -> list[str]:
    return ["ask", "--db", str(db), "--role", role, *(["--date", day] if day else []), question]


def heaviest_imports(code: Path, args: list[str], env: dict, top: int = 12) -> tuple[list[dict], list[str]]:
    """The top-level imports of one run by cumulative time (`-X importtime`), and which of HEAVY a run imports."""
    proc = subprocess.run([PYTHON, "-X", "importtime", "-m", "core", *args], cwd=code, capture_output=True,
                          text=True, env={**env, "PYTHONPATH": str(code)})
    rows = []
    for line in proc.stderr.splitlines():
        m = re.match(r"import time:\s+\d+ \|\s+(\d+) \| (\S+)$", line)  # one space: imported at the top level
        if m:
            rows.append({"module": m.group(2), "cumulative_ms": round(int(m.group(1)) / 1000, 1)})
    rows.sort(key=lambda r: -r["cumulative_ms"])
    probe = ("import sys; from core.serve.cli import main; rc = main(sys.argv[1:]); "
             f"print('HEAVY', ','.join(m for m in {HEAVY!r} if m in sys.modules))")
    out = subprocess.run([PYTHON, "-c", probe, *args], cwd=code, capture_output=True, text=True,
                         env={**env, "PYTHONPATH": str(code)}).stdout
    heavy = out.rsplit("HEAVY ", 1)[-1].strip() if "HEAVY " in out else "?"
    return rows[:top], [h for h in heavy.split(",") if h]


def summary(runs: list[dict]) -> dict:
    walls = sorted(r["wall_s"] for r in runs)
    cpus = sorted(r["cpu_s"] for r in runs)

    def pct(values, q):
        k = (len(values) - 1) * q
        lo, hi = int(k), min(int(k) + 1, len(values) - 1)
        return round(values[lo] + (values[hi] - values[lo]) * (k - lo), 3)
    return {"runs": len(runs), "wall_min_s": walls[0], "wall_p50_s": pct(walls, 0.5), "wall_p95_s": pct(walls, 0.95),
            "wall_max_s": walls[-1], "cpu_p50_s": round(statistics.median(cpus), 3),
            "under_1s": sum(w < 1.0 for w in walls),
            "load_1min_min": min(r["load_1min"] for r in runs), "load_1min_max": max(r["load_1min"] for r in runs)}


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--runs", type=int, default=10, help="measured cold runs per catalog (and per checkout)")
    p.add_argument("--catalogs", nargs="+", default=list(CATALOGS), choices=list(CATALOGS))
    p.add_argument("--no-bytecode", type=int, default=3, metavar="N",
                   help="runs per catalog with PYTHONDONTWRITEBYTECODE=1 and no cached bytecode (as scripts/env.sh)")
    p.add_argument("--compare", metavar="DIR", help="another checkout of AsOf to measure run for run beside this one")
    p.add_argument("--compare-label", default="before", help="its name in the results")
    p.add_argument("--out-name", default="cold_ask")
    args = p.parse_args()
    base = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPATH")}
    base.update({"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "LANCEDB_LOG": "error",
                 "LITELLM_LOCAL_MODEL_COST_MAP": "True"})
    base = {k: v for k, v in base.items() if k not in ("ASOF_LLM_MODEL", "ASOF_EMBED_BACKEND")}
    codes = {"this": ROOT, **({args.compare_label: Path(args.compare).resolve()} if args.compare else {})}
    results: dict = {"generated": datetime.now().isoformat(timespec="seconds"), "cores": os.cpu_count(),
                     "python": sys.version.split()[0], "code": {k: str(v) for k, v in codes.items()}, "catalogs": {}}
    with tempfile.TemporaryDirectory(prefix="asof-cold-ask-") as tmp:
        work = Path(tmp)
        for name in args.catalogs:
            db = work / name / f"{name}.duckdb"
            db.parent.mkdir(parents=True)
            ingest_env = {**base, "PYTHONDONTWRITEBYTECODE": "1"}
            run(ROOT, [*CATALOGS[name], "--db", str(db)], ingest_env, prefix=["nice", "-n", "10"])
            per: dict = {}
            for label, code in codes.items():
                env = {**base, "PYTHONPYCACHEPREFIX": str(work / f"pyc-{label}")}
                run(code, ask_args(db, *QUESTIONS[name][0]), env)  # writes the bytecode cache, warms the files
                per[label] = {"env": env, "runs": [], "no_bytecode": []}
            for i in range(args.runs):  # run for run, so both checkouts see the same neighbours
                for label, code in codes.items():
                    q = QUESTIONS[name][i % len(QUESTIONS[name])]
                    r = run(code, ask_args(db, *q), per[label]["env"])
                    per[label]["runs"].append({"question": q[2], "role": q[0], **{k: r[k] for k in
                                                                                   ("wall_s", "cpu_s", "load_1min")}})
            for i in range(args.no_bytecode):
                for label, code in codes.items():
                    q = QUESTIONS[name][i % len(QUESTIONS[name])]
                    r = run(code, ask_args(db, *q), {**base, "PYTHONDONTWRITEBYTECODE": "1"})
                    per[label]["no_bytecode"].append({k: r[k] for k in ("wall_s", "cpu_s", "load_1min")})
            out = {}
            for label, code in codes.items():
                imports, heavy = heaviest_imports(code, ask_args(db, *QUESTIONS[name][0]), per[label]["env"])
                out[label] = {"cached_bytecode": summary(per[label]["runs"]),
                              "no_bytecode": summary(per[label]["no_bytecode"]) if per[label]["no_bytecode"] else None,
                              "heaviest_imports": imports, "heavy_modules_imported": heavy,
                              "runs": per[label]["runs"]}
            results["catalogs"][name] = out
            write(results, args.out_name)


def write(results: dict, name: str) -> None:
    out = ROOT / "benchmarks" / "results"
    out.mkdir(parents=True, exist_ok=True)
    load = os.getloadavg()
    results["loadavg_at_end"] = load
    (out / f"{name}.json").write_text(json.dumps(results, indent=2))
    lines = [f"Generated by benchmarks/cold_ask.py at {results['generated']} on {results['cores']} cores (Python "
             f"{results['python']}); load average at the end {load[0]:.2f} / {load[1]:.2f} / {load[2]:.2f} "
             "(1/5/15 min). Do not edit by hand.", "",
             "Each run is a fresh `python -m core ask --db DB --role ROLE QUESTION` process: interpreter start, "
             "imports, catalog, search index and embedding model load, the answer, printed. `load` is the 1-minute "
             "load average read just before each run (a shared machine inflates wall time, CPU time less).", "",
             "| catalog | code | bytecode | runs | wall min s | wall p50 s | wall p95 s | wall max s | CPU p50 s | "
             "runs under 1 s | load (1 min) |", "|" + "---|" * 11]
    for cat, per in results["catalogs"].items():
        for label, r in per.items():
            for mode, s in (("cached", r["cached_bytecode"]), ("none (PYTHONDONTWRITEBYTECODE)", r["no_bytecode"])):
                if s:
                    lines.append(f"| {cat} | {label} | {mode} | {s['runs']} | {s['wall_min_s']} | {s['wall_p50_s']} | "
                                 f"{s['wall_p95_s']} | {s['wall_max_s']} | {s['cpu_p50_s']} | {s['under_1s']} | "
                                 f"{s['load_1min_min']:.2f}-{s['load_1min_max']:.2f} |")
    for cat, per in results["catalogs"].items():
        for label, r in per.items():
            lines += ["", f"{cat}, {label}: heavy modules imported: {', '.join(r['heavy_modules_imported']) or 'none'} "
                      f"(of {', '.join(HEAVY)}). Heaviest top-level imports of one run (`-X importtime`, cumulative; "
                      "importtime itself slows imports):", "",
                      "| module | ms |", "|---|---|"]
            lines += [f"| {i['module']} | {i['cumulative_ms']} |" for i in r["heaviest_imports"]]
    (out / f"{name}.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
