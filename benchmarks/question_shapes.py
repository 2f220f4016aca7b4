"""How long each kind of question takes on a large catalog: a definition, a misspelt name, a made-up one, an owner,
what reads a model, listings, whole-catalog freshness, a column, changes, access, a comparison, a period, a draft,
a document, words that name several things. The benchmark's own questions (`bench.py`) are all of one shape; a step
that reads every object hides in the shapes they never ask.

    .venv/bin/python benchmarks/question_shapes.py DIR/bench-1000000 --objects 1000000 [--role exec] [--name NAME]

DIR is a catalog kept by `benchmarks/bench.py --keep DIR` (hash vectors are enough: the shapes measure the reading,
resolving and listing, not the embedding). One role's view is built first (as the warm-up builds it), then each
question is asked once with the answer budget lifted, so the real cost shows: its wall and CPU milliseconds, and
whether that CPU time is over the budget an answer gets (core/settings/budget.py ANSWER_BUDGET_S). The names are
taken from the synthetic catalog, visible to the role. Results (and the load average) are written by this script to
benchmarks/results/NAME.{json,md}; never edit those by hand.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
for key, value in {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "LANCEDB_LOG": "error"}.items():
    os.environ.setdefault(key, value)


def _names(objects: int, role: str) -> dict:
    """A visible metric with its model, a visible source and a visible wiki page of the synthetic catalog."""
    from bench import synth_catalog
    seen = [e for e in synth_catalog(objects)["evidence"] if role in e["acl"]]
    metric = next(e for e in seen if e["kind"] == "metric_definition")
    model = metric["links"]["implemented_by"][0].rsplit(".", 1)[0].split(".", 1)[1]
    source = next(e for e in seen if e["kind"] == "source")["title"]
    wiki = next(e for e in seen if e["evidence_id"].startswith("wiki."))["title"].removesuffix(" wiki page")
    name = metric["title"].rsplit(" v", 1)[0].lower()
    words = name.split()
    alias = next(iter(metric.get("aliases") or []), name)
    # One letter dropped from the first word, and one doubled in the last word but the number.
    misspelt = " ".join([words[0][:2] + words[0][3:], *words[1:]])
    doubled = " ".join([*words[:-2], words[-2] + words[-2][-1], words[-1]])
    return {"name": name, "model": model, "source": source, "wiki": wiki, "alias": alias, "misspelt": misspelt,
            "doubled": doubled, "two_words": " ".join(words[1:3])}


SHAPES = [
    ("definition", "What does {name} mean?"),
    ("misspelt name", "what does {misspelt} mean?"),
    ("misspelt name, last word", "what is {doubled}?"),
    ("made-up name", "what does quantum flux ratio mean?"),
    ("owner", "who owns {name}?"),
    ("what reads a model", "what uses {model}?"),
    ("dashboards reading a metric", "which dashboards use {name}?"),
    ("listing", "what metrics can I see?"),
    ("count", "how many metrics are there?"),
    ("whole-catalog freshness", "which sources are stale?"),
    ("drafts not approved", "list every draft that has not been approved yet"),
    ("a table's tests", "which tests run on {model}?"),
    ("a table's columns", "what columns does {model} have?"),
    ("a column, no table", "is customs tested?"),
    ("a source's freshness", "is {source} fresh?"),
    ("changes in a year", "which metrics changed in 2025?"),
    ("changes coming", "what changes are coming?"),
    ("access list", "who can see {name}?"),
    ("two dates", "compare {name} on 2024-01-01 and 2025-06-01"),
    ("models from a source", "which models are built from {source}?"),
    ("a page against the definition", "does the wiki page for {wiki} disagree with the definition?"),
    ("alias and a quarter", "what is the {alias} for Q2 2025?"),
    ("a draft asked", "is there a draft for {name}?"),
    ("documents about", "show me the documentation about {wiki}"),
    ("two words of many names", "what does {two_words} mean?"),
    ("one common word", "what is revenue?"),
    ("lineage and freshness", "what feeds {name} and is it fresh?"),
]


def measure(folder: Path, objects: int, role: str) -> dict:
    import bench

    import core.settings.budget as budget
    from core.answer.ask import Question, ask
    from core.catalog.access import visible
    from core.catalog.store import Store
    from core.retrieve.search import Searcher

    limit = budget.ANSWER_BUDGET_S
    budget.ANSWER_BUDGET_S = 3600.0  # the real cost, not where the budget would stop it
    names = _names(objects, role)
    store = Store(folder / "bench.duckdb")
    searcher = Searcher(store, bench.HashEmbedder())
    t0 = time.perf_counter()
    visible(store, role).build()
    built = time.perf_counter() - t0
    ask(store, Question(role=role, text=SHAPES[0][1].format(**names)), searcher=searcher)
    rows = []
    for shape, template in SHAPES:
        text = template.format(**names)
        wall, cpu = time.perf_counter(), time.thread_time()
        env = ask(store, Question(role=role, text=text), searcher=searcher)
        cpu, wall = time.thread_time() - cpu, time.perf_counter() - wall
        rows.append({"shape": shape, "question": text, "wall_ms": round(1000 * wall, 1), "cpu_ms": round(1000 * cpu, 1),
                     "over_budget": cpu > limit, "behavior": env.behavior.value, "intent": env.intent,
                     "verdict": env.verdict[:90]})
        print(f"{rows[-1]['wall_ms']:9.1f} {rows[-1]['cpu_ms']:9.1f} {shape}", flush=True)
    store.close()
    return {"objects": objects, "role": role, "view_build_s": round(built, 1), "budget_s": limit, "rows": rows}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path, help="a catalog kept by bench.py --keep (DIR/bench-N)")
    parser.add_argument("--objects", type=int, required=True, help="the size the catalog was generated at")
    parser.add_argument("--role", default="exec")
    parser.add_argument("--name", default="question_shapes")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results")
    args = parser.parse_args()
    result = measure(args.folder, args.objects, args.role)
    load = " / ".join(f"{x:.1f}" for x in os.getloadavg())
    result["load_average"] = load
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / f"{args.name}.json").write_text(json.dumps(result, indent=2))
    lines = [f"Generated by benchmarks/question_shapes.py at {datetime.now().isoformat(timespec='seconds')} on "
             f"{os.cpu_count()} cores, load average {load} (1/5/15 min) at the end. Do not edit by hand.", "",
             f"{result['objects']:,} objects, role {result['role']}: its view built in {result['view_build_s']} s "
             f"before the first question. Each question asked once with the budget lifted; over budget: its CPU time "
             f"is over the {result['budget_s']:g} s an answer gets.", "",
             "| shape | question | wall ms | CPU ms | over budget | behavior | intent |", "|---|---|---|---|---|---|---|"]
    lines += [f"| {r['shape']} | {r['question']} | {r['wall_ms']} | {r['cpu_ms']} | {'yes' if r['over_budget'] else ''} "
              f"| {r['behavior']} | {r['intent'] or ''} |" for r in result["rows"]]
    (args.out / f"{args.name}.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
