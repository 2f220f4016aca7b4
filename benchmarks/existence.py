"""Timing must not tell a hidden object from a made-up one: per role, the median time of a warm `ask` for
questions naming objects the role may not see, against the same questions with each name replaced by a made-up
name of the same length and shape, asked interleaved in random order through the core.

    .venv/bin/python benchmarks/existence.py                       # the demo catalog, 15 rounds
    .venv/bin/python benchmarks/existence.py --project jaffle-shop --rounds 10

A second table isolates existence itself: the same question asked of the catalog and of that role's "world"
(the catalog without anything the role may not see; tests/serve/test_existence.py builds the same). Each row gives
the medians, their difference, and a two-sided Mann-Whitney U p-value and a permutation p-value for the
difference of medians. On a shared 2-core machine the spread is wide: read the p-values, not single figures.
A made-up name of the same shape can time differently from a hidden one because of its words (a real name is
read as a visible object and answered; a scramble is not found at once): the second table is the existence
check. Figures and how to read them: benchmarks/results/existence.md.
"""
from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]
for key, value in {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "LANCEDB_LOG": "error",
                   "HF_HUB_DISABLE_PROGRESS_BARS": "1", "LITELLM_LOCAL_MODEL_COST_MAP": "True"}.items():
    os.environ.setdefault(key, value)

from existence import AT, build, made_up, short  # noqa: E402

from core.answer.ask import Question, ask  # noqa: E402
from core.catalog.evidence import Catalog  # noqa: E402
from core.catalog.store import Store  # noqa: E402
from core.ingest.load import load_catalog  # noqa: E402
from core.ingest.publish import publish  # noqa: E402
from core.retrieve.embed import Embedder  # noqa: E402
from core.retrieve.index import index_path  # noqa: E402
from core.retrieve.search import Searcher  # noqa: E402


def demo_worlds(folder: Path, embedder: Embedder):
    """The demo published, and per role the demo without what that role may not see (index copied first)."""
    catalog = load_catalog(ROOT / "data" / "demo")
    full_db = folder / "demo.duckdb"
    publish(catalog, full_db, embedder, quiet=True)
    full = Store(full_db)
    worlds = {}
    for role in catalog.role_names:
        if all(role in e.acl for e in catalog.evidence):
            continue
        db = folder / f"world_{role}.duckdb"
        shutil.copytree(index_path(full_db), index_path(db))
        publish(Catalog(roles=catalog.roles, principals=catalog.principals,
                        evidence=[e for e in catalog.evidence if role in e.acl]), db, embedder, quiet=True)
        store = Store(db)
        worlds[role] = (store, Searcher(store, embedder))
    return catalog, (full, Searcher(full, embedder)), worlds


def pairs_for(catalog: Catalog, role: str) -> list[tuple[str, str]]:
    """(question naming a hidden object, the same question naming a made-up one of the same shape)."""
    out = []
    for ev in catalog.evidence:
        if role in ev.acl:
            continue
        name = short(ev).replace("_", " ")
        for template in ("What is {}?", "Which raw sources feed {}?", "Show me {}"):
            real = ev.evidence_id if template == "Show me {}" else name
            out.append((template.format(real), template.format(made_up(real))))
    return list(dict.fromkeys(out))


def timed(store, searcher, role: str, text: str) -> float:
    start = time.perf_counter()
    ask(store, Question(role=role, text=text, at=AT), searcher=searcher)
    return (time.perf_counter() - start) * 1000


def measure(rounds: int, jobs: list[tuple[str, object, object, str, str]], seed: int) -> dict[str, list[float]]:
    """`jobs`: (label, store, searcher, role, text). Two warm-up passes, then `rounds` passes in random order."""
    rng = random.Random(seed)
    for _ in range(2):
        for _, store, searcher, role, text in jobs:
            timed(store, searcher, role, text)
    times: dict[str, list[float]] = {}
    for _ in range(rounds):
        order = list(jobs)
        rng.shuffle(order)
        for label, store, searcher, role, text in order:
            times.setdefault(label, []).append(timed(store, searcher, role, text))
    return times


def permutation_p(a: list[float], b: list[float], n: int = 2000, seed: int = 1) -> float:
    """Two-sided p-value for |median(a) - median(b)| under random relabelling."""
    rng = random.Random(seed)
    observed = abs(statistics.median(a) - statistics.median(b))
    pooled, k, hits = a + b, len(a), 0
    for _ in range(n):
        rng.shuffle(pooled)
        if abs(statistics.median(pooled[:k]) - statistics.median(pooled[k:])) >= observed:
            hits += 1
    return (hits + 1) / (n + 1)


def mann_whitney_p(a: list[float], b: list[float]) -> float:
    from scipy.stats import mannwhitneyu
    return float(mannwhitneyu(a, b, alternative="two-sided").pvalue)


def table(title: str, left: str, right: str, rows: list[tuple[str, list[float], list[float]]]) -> str:
    lines = [f"\n{title}", f"| role | n | median {left} ms | median {right} ms | difference ms | Mann-Whitney p | "
             "permutation p |", "|---|---|---|---|---|---|---|"]
    for role, a, b in rows:
        ma, mb = statistics.median(a), statistics.median(b)
        lines.append(f"| {role} | {len(a)} | {ma:.2f} | {mb:.2f} | {ma - mb:+.2f} | {mann_whitney_p(a, b):.3f} | "
                     f"{permutation_p(a, b):.3f} |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--project", default="demo",
                        help="demo, or a dbt project of tests/existence.py (jaffle-shop, jaffle-sl-template, ...)")
    parser.add_argument("--rounds", type=int, default=15, help="timed passes over every question (default 15)")
    args = parser.parse_args()
    embedder = Embedder()
    with tempfile.TemporaryDirectory() as tmp:
        if args.project == "demo":
            catalog, (full, full_s), worlds = demo_worlds(Path(tmp), embedder)
        else:
            p = build(args.project, Path(tmp), embedder)
            catalog, full, full_s = p.catalog, p.full.store, p.full.searcher
            worlds = {r: (w.store, w.searcher) for r, w in p.worlds.items()}
        made, world_rows = [], []
        for role, (wstore, wsearch) in worlds.items():
            pairs = pairs_for(catalog, role)
            jobs = []
            for i, (real, fake) in enumerate(pairs):
                jobs += [(f"hidden{i}", full, full_s, role, real), (f"madeup{i}", full, full_s, role, fake),
                         (f"absent{i}", wstore, wsearch, role, real)]
            times = measure(args.rounds, jobs, seed=len(pairs))
            # One figure per question and round; questions are paired, so both samples hold the same mix.
            hidden = [t for i in range(len(pairs)) for t in times[f"hidden{i}"]]
            fake = [t for i in range(len(pairs)) for t in times[f"madeup{i}"]]
            absent = [t for i in range(len(pairs)) for t in times[f"absent{i}"]]
            made.append((role, hidden, fake))
            world_rows.append((role, hidden, absent))
            print(f"{role}: {len(pairs)} question pairs x {args.rounds} rounds", file=sys.stderr)
        print(f"project {args.project}; {args.rounds} rounds per question after 2 warm-up passes, interleaved in "
              f"random order; searcher {'on' if full_s else 'off'}")
        print(table("Hidden name vs made-up name of the same shape (same catalog)", "hidden", "made-up", made))
        print(table("Hidden (catalog) vs absent (the role's world without it), same question", "hidden",
                    "absent", world_rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
