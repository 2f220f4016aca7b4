"""Catalog input that cannot hang (issue 23, item 5): how long `load_catalog` takes to refuse or read hostile files.

    python benchmarks/catalog_input.py [--timeout 60]

Each case runs in a fresh subprocess with a timeout, so a loader that hangs is reported as "> timeout" instead
of hanging the benchmark. Figures for NOTES-h-safety.md.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GOOD = {"evidence_id": "metric.a.v1", "entity_id": "metric.a", "kind": "metric_definition", "title": "A v1",
        "authority": "authoritative", "lifecycle": "current", "acl": ["analyst"], "valid_from": "2025-01-01",
        "metric": {"formula": "SUM(x)"}}


def alias_bomb() -> str:
    """About 1 KB of YAML whose aliases expand to 9^9 (387 million) strings."""
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for prev, name in zip("abcdefgh", "bcdefghi"):
        lines.append(f"{name}: &{name} [" + ",".join([f"*{prev}"] * 9) + "]")
    return "roles: [analyst]\n" + "\n".join(lines) + "\nevidence: []\n"


def cases(folder: Path) -> dict[str, Path]:
    out = {}
    p = folder / "bomb.yaml"
    p.write_text(alias_bomb())
    out[f"YAML alias bomb ({p.stat().st_size:,} bytes)"] = p
    big = "x" * (50 * 1024 * 1024)
    p = folder / "big.json"
    p.write_text(json.dumps({"roles": ["analyst"], "evidence": [{**GOOD, "text": big}]}))
    out["JSON, one 50 MB text field"] = p
    p = folder / "big.yaml"
    p.write_text("roles: [analyst]\nevidence:\n  - " + json.dumps({**GOOD, "text": big}) + "\n")
    out["YAML, one 50 MB text field"] = p
    p = folder / "dup.json"
    p.write_text('{"roles": ["analyst"], "evidence": [' + json.dumps(GOOD) + '], "evidence": []}')
    out["JSON with a duplicate key"] = p
    p = folder / "zw.json"
    p.write_text(json.dumps({"roles": ["analyst"], "evidence": [{**GOOD, "evidence_id": "metric.a\u200b.v1"}]}))
    out["id with a zero-width space"] = p
    p = folder / "longid.json"
    p.write_text(json.dumps({"roles": ["analyst"], "evidence": [{**GOOD, "evidence_id": "m" * 1_000_000}]}))
    out["id of 1,000,000 characters"] = p
    return out


PROBE = """
import sys, time
from core.ingest.load import CatalogError, load_catalog
t = time.perf_counter()
try:
    cat = load_catalog(sys.argv[1])
    out = f"accepted ({len(cat.evidence)} objects)"
except CatalogError as exc:
    out = "refused: " + str(exc.problems[0])[:150]
print(f"{time.perf_counter() - t:.2f}s\\t{out}")
"""


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--timeout", type=float, default=60)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for label, path in cases(Path(tmp)).items():
            start = time.perf_counter()
            try:
                r = subprocess.run([sys.executable, "-c", PROBE, str(path)], cwd=ROOT, capture_output=True,
                                   text=True, timeout=args.timeout)
                line = r.stdout.strip() or r.stderr.strip().splitlines()[-1]
            except subprocess.TimeoutExpired:
                line = f"> {args.timeout:g}s\tstill running (killed)"
            print(f"{label:36s} {line.replace(str(path), path.name)}  [wall {time.perf_counter() - start:.1f}s]",
                  flush=True)


if __name__ == "__main__":
    main()
