"""Coverage-guided fuzzing of the readers with atheris (optional; `pip install atheris==3.0.0`).

The Hypothesis fuzzer (tests/serve/test_fuzz.py) runs in CI; this one runs for as long as you let it and
follows coverage into corners random mutation misses. Each input's bytes are read as a catalog file
(JSON or YAML), an overlay, a dbt manifest and an OpenLineage file; anything but a normal result or a
CatalogError is a crash, which atheris reports with the input that caused it.

    .venv/bin/python benchmarks/fuzz_atheris.py -max_total_time=60 -rss_limit_mb=4096
"""
from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import atheris  # noqa: E402

with atheris.instrument_imports():
    from core.ingest.ingest import read_inputs
    from core.ingest.load import CatalogError, load_catalog
    from core.read.dates.written import find_dates
    from core.read.intents.intent import parse_intent

WORK = Path(tempfile.mkdtemp(prefix="asof-atheris-"))
TARGET = WORK / "target"
TARGET.mkdir()
SEEDS = WORK / "seeds"


def one(data: bytes) -> None:
    fdp = atheris.FuzzedDataProvider(data)
    which = fdp.ConsumeIntInRange(0, 4)
    body = fdp.ConsumeBytes(fdp.remaining_bytes())
    try:
        if which == 0:
            (WORK / "c.json").write_bytes(body)
            load_catalog(WORK / "c.json")
        elif which == 1:
            (WORK / "c.yaml").write_bytes(body)
            load_catalog(WORK / "c.yaml")
        elif which == 2:
            (TARGET / "manifest.json").write_bytes(body)
            read_inputs(WORK / "none.duckdb", dbt=TARGET)
        elif which == 3:
            (WORK / "ol.json").write_bytes(body)
            read_inputs(WORK / "none.duckdb", openlineage=WORK / "ol.json")
        else:
            text = body.decode("utf-8", "replace")
            parse_intent(text)
            find_dates(text)
    except CatalogError:
        pass


def main() -> None:
    # Seed corpus: the demo catalog and a real manifest, so mutations start from valid structure.
    SEEDS.mkdir(exist_ok=True)
    (SEEDS / "demo").write_bytes(b"\x00" + (ROOT / "data/demo/10_metrics.yaml").read_bytes()[:20000])
    manifest = json.loads((ROOT / "tests/fixtures/realworld/jaffle-shop/manifest.json").read_text())
    small = {"metadata": manifest["metadata"], "nodes": dict(list(manifest["nodes"].items())[:3]),
             "sources": dict(list(manifest["sources"].items())[:2]), "parent_map": {}}
    (SEEDS / "dbt").write_bytes(b"\x02" + json.dumps(small).encode())
    argv = sys.argv + ([str(SEEDS)] if not any(not a.startswith("-") for a in sys.argv[1:]) else [])
    atheris.Setup(argv, one)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
