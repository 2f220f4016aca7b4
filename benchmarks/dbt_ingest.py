"""Ingest every dbt fixture the way a user does (the CLI, in a fresh process) and report, per project: objects,
chunks, first-ingest wall and CPU seconds and peak RSS, a re-ingest of the same project read from another folder
with three edits, and cold (fresh CLI process) and warm (loaded app) `ask` latency p50/p95; beside them, the raw
encoder's throughput measured in the same run. Results are written by this script to
benchmarks/results/dbt_ingest.{json,md}; never edit those by hand.

    .venv/bin/python benchmarks/dbt_ingest.py [--projects acme-analytics jaffle-shop ...] [--cold N] [--warm N]

`acme-analytics-long` is the generated project with descriptions as long as real projects' ones (500-1,200
characters, eight described columns per model: scripts/gen_dbt_project.py's long-text mode applied to its parsed
manifest), written to a temporary folder by this script. `acme-analytics-run` is the generated project as a team
that has run it: tags, meta, materializations, contracts, disabled models, two tests per model and a
run_results.json with failures (gen_dbt_project.decorate_manifest).

The machine may be shared: CPU seconds are reported beside wall seconds because wall time then says more about
the neighbours than about AsOf.
"""
from __future__ import annotations

import argparse
import gzip
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
ENV = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "LANCEDB_LOG": "error",
       "HF_HUB_DISABLE_PROGRESS_BARS": "1", "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
for key, value in ENV.items():
    os.environ.setdefault(key, value)

from core.answer.ask import Question, ask  # noqa: E402
from core.catalog.access import visible  # noqa: E402
from core.catalog.store import Store  # noqa: E402
from core.retrieve.embed import BACKENDS, Embedder  # noqa: E402
from core.retrieve.index import chunks_of, embedded_text  # noqa: E402
from core.retrieve.search import open_searcher  # noqa: E402

REAL = ROOT / "tests" / "fixtures" / "realworld"
PROJECTS = {
    "acme-analytics": (ROOT / "tests" / "fixtures" / "generated" / "acme-analytics",
                       ROOT / "data" / "dbt" / "acme-analytics.overlay.yml"),
    "jaffle-shop": (REAL / "jaffle-shop", ROOT / "data" / "dbt" / "jaffle-shop.overlay.yml"),
    "jaffle-sl-template": (REAL / "jaffle-sl-template", ROOT / "data" / "dbt" / "jaffle-sl-template.overlay.yml"),
    "dbt-project-evaluator-versions": (REAL / "dbt-project-evaluator-versions",
                                       ROOT / "data" / "dbt" / "dbt-project-evaluator-versions.overlay.yml"),
}
# Written at run time from another project's artifacts: name -> (base project, how its manifest is changed).
LONG_TEXT = {"acme-analytics-long": "acme-analytics", "acme-analytics-run": "acme-analytics"}
PYTHON = sys.executable


def long_text_project(name: str, workdir: Path) -> tuple[Path, Path]:
    """The base project's artifacts with long-text descriptions, in `workdir`; (target, overlay)."""
    sys.path.insert(0, str(ROOT / "scripts"))
    from gen_dbt_project import decorate_manifest, lengthen_manifest
    base, overlay = PROJECTS[LONG_TEXT[name]]
    target = workdir / f"{name}-target"
    target.mkdir(parents=True, exist_ok=True)
    for f in base.iterdir():
        if f.is_file() and not f.name.startswith("manifest.json"):
            shutil.copy(f, target / f.name)
    manifest = next(p for p in (base / "manifest.json", base / "manifest.json.gz") if p.exists())
    if name == "acme-analytics-run":
        decorated, results = decorate_manifest(_load(manifest))
        (target / "manifest.json").write_text(json.dumps(decorated))
        (target / "run_results.json").write_text(json.dumps(results))
    else:
        (target / "manifest.json").write_text(json.dumps(lengthen_manifest(_load(manifest))))
    return target, overlay


def project_paths(name: str, workdir: Path) -> tuple[Path, Path]:
    return long_text_project(name, workdir) if name in LONG_TEXT else PROJECTS[name]


def run_measured(args: list[str]) -> dict:
    # Popen + wait4 on our own: communicate() would reap the process and lose its rusage.
    t = time.perf_counter()
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen([PYTHON, "-m", "core", *args], cwd=ROOT, stdout=out, stderr=err,
                                env={**os.environ, **ENV, "PYTHONPATH": str(ROOT)}, text=True)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        wall = time.perf_counter() - t
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(args)} failed ({proc.returncode}):\n{stderr[-2000:]}")
    return {"wall_s": round(wall, 2), "cpu_s": round(usage.ru_utime + usage.ru_stime, 2),
            "peak_rss_mb": round(usage.ru_maxrss / 1024, 1), "stdout": stdout, "stderr": stderr}


def _load(path: Path) -> dict:
    raw = path.read_bytes()
    return json.loads(gzip.decompress(raw) if path.suffix == ".gz" else raw)


def edited_copy(target: Path, dest: Path) -> list[str]:
    """The same artifacts in another folder, with three edits a team makes between two runs."""
    dest.mkdir(parents=True)
    for f in target.iterdir():
        if f.name.startswith(("manifest.json",)):
            continue
        if f.is_file():
            shutil.copy(f, dest / f.name)
    manifest_path = next(p for p in (target / "manifest.json", target / "manifest.json.gz") if p.exists())
    m = _load(manifest_path)
    models = sorted(k for k, n in m["nodes"].items() if n.get("resource_type") == "model")
    sources = sorted(m.get("sources") or {})
    edited = []
    for uid in (models[0], models[len(models) // 2]):
        m["nodes"][uid]["description"] = (m["nodes"][uid].get("description") or "") + " Edited for the benchmark."
        edited.append(uid)
    if sources:
        m["sources"][sources[0]]["description"] = "Edited for the benchmark."
        edited.append(sources[0])
    else:
        uid = models[-1]
        m["nodes"][uid]["description"] = "Edited for the benchmark."
        edited.append(uid)
    (dest / "manifest.json").write_text(json.dumps(m))
    return edited


def _summary(stdout: str) -> dict:
    """Counts from the ingest line ("... 2740 chunks, 2740 embedded ...; objects: 3 added, 2 changed, ...")."""
    pairs = re.findall(r"(\d+) (added|changed|with new permissions|removed|unchanged|embedded|reused|chunks)", stdout)
    nums: dict = {k: int(v) for v, k in pairs}
    objects = re.search(r"ingested (\d+) evidence objects", stdout)
    nums["objects"] = int(objects.group(1)) if objects else None
    return nums


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    if not values:
        return float("nan")
    k = (len(values) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(values) - 1)
    return round((values[lo] + (values[hi] - values[lo]) * (k - lo)) * 1000, 1)


def questions(db: Path) -> list[tuple[str, str]]:
    """Questions a user asks of this project: metrics, models, sources, exposures, by name."""
    store = Store(db)
    objs = visible(store, "analyst").all()
    store.close()
    out = []
    for kind, template in (("dbt_metric", "What does {} mean and which models back it?"),
                           ("dbt_model", "Which raw sources feed {}?"), ("dbt_source", "Is {} fresh?"),
                           ("dbt_exposure", "Who owns the {}?")):
        names = sorted(e.title for e in objs if e.authority_class == kind)
        out += [("analyst", template.format(n)) for n in names[:: max(1, len(names) // 4)][:4]]
    return out


def project_row(name: str, target: Path, overlay: Path, workdir: Path, embedder: Embedder, n_cold: int,
                n_warm: int) -> dict:
    db = workdir / name / f"{name}.duckdb"
    first = run_measured(["ingest", "--dbt", str(target), "--overlay", str(overlay), "--db", str(db)])
    s1 = _summary(first["stdout"])
    moved = workdir / name / "elsewhere" / "target"
    edited = edited_copy(target, moved)
    overlay_copy = workdir / name / "elsewhere" / overlay.name
    shutil.copy(overlay, overlay_copy)
    if (overlay.parent / "docs").is_dir():
        shutil.copytree(overlay.parent / "docs", overlay_copy.parent / "docs")
    again = run_measured(["ingest", "--dbt", str(moved), "--overlay", str(overlay_copy), "--db", str(db)])
    s2 = _summary(again["stdout"])
    qs = questions(db)
    cold = []
    for role, q in (qs * 3)[:n_cold]:
        r = run_measured(["ask", "--db", str(db), "--role", role, q])
        cold.append((r["wall_s"], r["cpu_s"]))
    store = Store(db)
    searcher = open_searcher(store)
    searcher.embedder = embedder  # the loaded model: warm means the app's state after its first answer
    ask(store, Question(role="analyst", text=qs[0][1]), searcher=searcher)
    warm = []
    for role, q in (qs * 10)[:n_warm]:
        t = time.perf_counter()
        ask(store, Question(role=role, text=q), searcher=searcher)
        warm.append(time.perf_counter() - t)
    store.close()
    return {"project": name, "objects": s1["objects"], "chunks": s1.get("chunks"),
            "ingest_wall_s": first["wall_s"], "ingest_cpu_s": first["cpu_s"], "peak_rss_mb": first["peak_rss_mb"],
            "edits": len(edited), "reingest_changed": s2.get("changed"), "reingest_added": s2.get("added"),
            "reingest_removed": s2.get("removed"), "reingest_embedded": s2.get("embedded"),
            "reingest_wall_s": again["wall_s"], "reingest_cpu_s": again["cpu_s"],
            "cold_ask_p50_ms": pct([w for w, _ in cold], 0.5), "cold_ask_p95_ms": pct([w for w, _ in cold], 0.95),
            "cold_ask_cpu_p50_s": round(statistics.median([c for _, c in cold]), 2) if cold else None,
            "warm_ask_p50_ms": pct(warm, 0.5), "warm_ask_p95_ms": pct(warm, 0.95), "questions": len(qs)}


def encoder_texts(target: Path, overlay: Path, workdir: Path, sample: int) -> list[str]:
    """A spread sample of the texts an ingest of this project embeds."""
    from core.ingest.ingest import read_inputs
    catalog, _ = read_inputs(workdir / "throughput.duckdb", dbt=target, overlay=overlay)
    texts = [embedded_text(t, ev.kind, part) for ev in catalog.evidence for _, part, t in chunks_of(ev)]
    return texts[:: max(1, len(texts) // sample)][:sample]


def encoder_throughput(backend: str, texts: list[str]) -> tuple[dict, object]:
    """One backend's raw encoder on the sample, outside AsOf's pipeline: load, throughput, vectors."""
    embedder = Embedder(backend=backend)
    t = time.perf_counter()
    embedder.encode(["warm up"])
    load_s = time.perf_counter() - t
    t, c = time.perf_counter(), time.process_time()
    vectors = embedder.encode(texts)
    wall, cpu = time.perf_counter() - t, time.process_time() - c
    return {"backend": backend, "texts": len(texts), "load_s": round(load_s, 2), "wall_s": round(wall, 2),
            "cpu_s": round(cpu, 2), "texts_per_s": round(len(texts) / wall, 1),
            "texts_per_cpu_s": round(len(texts) / cpu, 1)}, vectors


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--projects", nargs="+", default=[*PROJECTS, *LONG_TEXT], choices=[*PROJECTS, *LONG_TEXT])
    p.add_argument("--cold", type=int, default=5, help="fresh CLI processes per project")
    p.add_argument("--warm", type=int, default=20, help="in-process asks per project")
    p.add_argument("--sample", type=int, default=512, help="chunk texts for the raw encoder measurement")
    p.add_argument("--out-name", default="dbt_ingest", help="results file name under benchmarks/results (.json, .md)")
    p.add_argument("--backends", nargs="+", default=list(BACKENDS), choices=BACKENDS,
                   help="embedding backends whose raw encoder is measured (the CLI uses ASOF_EMBED_BACKEND)")
    args = p.parse_args()
    embedder = Embedder()  # the backend the CLI uses (ASOF_EMBED_BACKEND or the default)
    with tempfile.TemporaryDirectory(prefix="asof-dbt-bench-") as tmp:
        work = Path(tmp)
        big = args.projects[0]
        texts = encoder_texts(*project_paths(big, work), work, args.sample)
        encs, vectors = [], {}
        for backend in dict.fromkeys([embedder.backend, *args.backends]):
            enc, vectors[backend] = encoder_throughput(backend, texts)
            encs.append(enc)
        for enc in encs:  # agreement with the sentence-transformers vectors, row by row
            if "torch" in vectors:
                cos = (vectors[enc["backend"]] * vectors["torch"]).sum(1)
                enc["cosine_vs_torch_min"], enc["cosine_vs_torch_mean"] = round(float(cos.min()), 6), round(float(cos.mean()), 6)
        embedder.encode(["warm up"])
        rows = []
        for n in args.projects:  # written after each project: a slow shared machine still leaves results
            rows.append(project_row(n, *project_paths(n, work), work, embedder, args.cold, args.warm))
            write(rows, encs, big, embedder.backend, args.out_name)


def write(rows: list[dict], encs: list[dict], big: str, backend: str, name: str = "dbt") -> None:
    out = ROOT / "benchmarks" / "results"
    out.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now().isoformat(timespec="seconds")
    load = os.getloadavg()
    (out / f"{name}.json").write_text(json.dumps({"generated": stamp, "cores": os.cpu_count(), "loadavg": load,
                                              "backend": backend, "encoders": encs, "projects": rows}, indent=2))
    cols = ["project", "objects", "chunks", "ingest_wall_s", "ingest_cpu_s", "peak_rss_mb", "edits",
            "reingest_changed", "reingest_embedded", "reingest_wall_s", "reingest_cpu_s", "cold_ask_p50_ms",
            "cold_ask_p95_ms", "cold_ask_cpu_p50_s", "warm_ask_p50_ms", "warm_ask_p95_ms"]
    lines = [f"Generated by benchmarks/dbt_ingest.py at {stamp} on {os.cpu_count()} cores, load average "
             f"{load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} (1/5/15 min; a shared machine inflates wall times, "
             f"CPU seconds less). Do not edit by hand.", "",
             "| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    lines += ["| " + " | ".join(str(r[c]) for c in cols) + " |" for r in rows]
    lines += ["", "Ingest and re-ingest are `python -m core ingest --dbt ... --overlay ...` in a fresh process (wall, "
              "user+system CPU, peak RSS of that process). The re-ingest reads the same project copied to another "
              "folder with `edits` edited descriptions. Cold ask: a fresh `python -m core ask` process (imports, "
              "catalog, search index and embedding model load); warm ask: the same questions in one process with "
              "the model loaded.", "",
              f"Embedding backend used by the CLI above: {backend} (ASOF_EMBED_BACKEND). Raw encoder "
              f"(all-MiniLM-L6-v2, CPU, {os.environ.get('ASOF_EMBED_THREADS') or os.cpu_count()} threads) on "
              f"{encs[0]['texts']} chunk texts of {big}:", "",
              "| backend | load_s | wall_s | cpu_s | texts_per_s | texts_per_cpu_s | cosine_vs_torch_min | "
              "cosine_vs_torch_mean |", "|" + "---|" * 8]
    lines += ["| " + " | ".join(str(e.get(c, "")) for c in ("backend", "load_s", "wall_s", "cpu_s", "texts_per_s",
                                                             "texts_per_cpu_s", "cosine_vs_torch_min",
                                                             "cosine_vs_torch_mean")) + " |" for e in encs]
    (out / f"{name}.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
