"""`python -m core ingest|ask|roles`: a thin shell over the same functions the app and tests call."""
from __future__ import annotations

import argparse
import json
import sys
from datetime import date, datetime, timezone

from .access import Visible
from .ask import Question, UnknownRole, ask
from .config import Settings
from .dates import parse_period
from .embed import Embedder
from .explain import cache_for, explain
from .index import commit_index, index_path, prepare_index
from .ingest import read_inputs
from .load import CatalogError
from .render import render_text
from .search import open_searcher
from .store import Store, write_catalog


def _iso_datetime(value: str) -> datetime:
    ts = datetime.fromisoformat(value.replace("Z", "+00:00"))
    return ts if ts.tzinfo else ts.replace(tzinfo=timezone.utc)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m core", description="AsOf: point-in-time metric answers.")
    sub = p.add_subparsers(dest="cmd", required=True)

    ing = sub.add_parser("ingest", help="validate catalog inputs and write them to DuckDB (all or nothing)")
    ing.add_argument("catalog", nargs="?", help="a .json/.yaml catalog file or a folder of them")
    ing.add_argument("--db", required=True, help="DuckDB file to create or replace")
    ing.add_argument("--dbt", metavar="TARGET", help="a dbt target/ folder (manifest.json, semantic_manifest.json, "
                                                     "catalog.json, run_results.json, sources.json)")
    ing.add_argument("--openlineage", metavar="PATH", help="an OpenLineage event file, JSON array, or folder")
    ing.add_argument("--overlay", metavar="FILE", help="governance overlay YAML (intervals, authority, ACLs, aliases)")
    ing.add_argument("--docs", metavar="FOLDER", help="Markdown pages with front matter to attach")

    a = sub.add_parser("ask", help="answer one question (or a --batch file) as a role")
    a.add_argument("--db", required=True)
    a.add_argument("--role", help="requester role (required unless every --batch line has one)")
    when = a.add_mutually_exclusive_group()
    when.add_argument("--date", type=date.fromisoformat, help="reporting date YYYY-MM-DD")
    when.add_argument("--period", help="reporting period START..END (inclusive end)")
    a.add_argument("--at", type=_iso_datetime, help="evaluation time for freshness (ISO 8601; default now)")
    a.add_argument("--json", action="store_true", help="print the envelope as JSON")
    a.add_argument("--explain", action="store_true",
                   help="add a cited explanation (ASOF_LLM_MODEL if set, else written without an LLM)")
    a.add_argument("--batch", help="JSONL file of {question, role, date, period, at}; one envelope per line")
    a.add_argument("question", nargs="?")

    e = sub.add_parser("eval", help="scorecards, produced by running the code on gold suites")
    which = e.add_mutually_exclusive_group(required=True)
    which.add_argument("--retrieval", nargs="+", metavar="SUITE", help="suite_a, suite_b, paraphrase, or all")
    which.add_argument("--questions", nargs="?", const="tests/questions", metavar="FOLDER",
                       help="the question bank (default tests/questions): per-family table, tuning and check halves")
    e.add_argument("--failures", action="store_true", help="with --questions: list every failed question")
    e.add_argument("--json", action="store_true", help="print rows and per-case details as JSON")

    r = sub.add_parser("roles", help="list the catalog's roles")
    r.add_argument("--db", required=True)
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        if args.cmd == "ingest":
            return _ingest(args)
        if args.cmd == "eval":
            return _eval(args)
        if args.cmd == "roles":
            store = Store(args.db)
            for role in store.roles():
                print(role.name)
            return 0
        return _ask(args)
    except (UnknownRole, ValueError, FileNotFoundError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


def _ingest(args) -> int:
    try:
        catalog, changes = read_inputs(args.db, args.catalog, args.dbt, args.openlineage, args.overlay, args.docs)
    except CatalogError as exc:
        print(f"error: catalog not ingested; {len(exc.problems)} problem(s), database left unchanged:", file=sys.stderr)
        for problem in exc.problems:
            print(f"  {problem}", file=sys.stderr)
        return 2
    for warning in catalog.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    # Embed first: if that fails, neither the database nor the index has been touched.
    prepared = prepare_index(catalog, args.db, Embedder(Settings.from_env().embed_model))
    revision = write_catalog(catalog, args.db, source=str(args.catalog))
    report = commit_index(prepared)
    print(f"ingested {len(catalog.evidence)} evidence objects, {len(catalog.roles)} roles into {args.db} "
          f"(revision {revision}); index {index_path(args.db)}: {report.chunks} chunks, "
          f"{report.embedded} embedded, {report.reused} reused, {report.deleted} deleted; objects: {changes.summary()}")
    return 0


def _question(role, text, day, period, at) -> Question:
    return Question(role=role, text=text, day=day, period=parse_period(period) if period else None, at=at)


def _answer(store, q: Question, searcher, args):
    settings = Settings.from_env()
    env = ask(store, q, searcher=searcher,
              llm=(settings.llm_model, settings.llm_timeout_s) if settings.llm_model else None)
    if args.explain:
        settings = Settings.from_env()
        env.explanation = explain(env, q.text, Visible(store, q.role).visible_ids, settings.llm_model,
                                  settings.llm_timeout_s, cache_for(args.db))
    return env


def _ask(args) -> int:
    store = Store(args.db)
    searcher = open_searcher(store, Settings.from_env().embed_model)
    if args.batch:
        if args.question:
            raise ValueError("give either a question or --batch, not both")
        with open(args.batch, encoding="utf-8") as fh:
            lines = [(n, line) for n, line in enumerate(fh, 1) if line.strip()]
        out = []
        for n, line in lines:
            try:
                item = json.loads(line)
                role = item.get("role") or args.role
                if not role or not item.get("question"):
                    raise ValueError("needs 'question' and 'role' (or --role)")
                q = _question(role, item["question"],
                              date.fromisoformat(item["date"]) if item.get("date") else args.date,
                              item.get("period") or (None if item.get("date") else args.period),
                              _iso_datetime(item["at"]) if item.get("at") else args.at)
            except (ValueError, TypeError) as exc:
                raise ValueError(f"{args.batch} line {n}: {exc}") from exc
            out.append(_answer(store, q, searcher, args))
        for env in out:
            print(env.model_dump_json())
        return 0
    if not args.question or not args.role:
        raise ValueError("ask needs --role and a QUESTION (or --batch FILE)")
    env = _answer(store, _question(args.role, args.question, args.date, args.period, args.at), searcher, args)
    print(env.model_dump_json(indent=2) if args.json else render_text(env))
    return 0


def _eval(args) -> int:
    if args.questions:
        from pathlib import Path

        from .questions import evaluate_bank, family_table
        outcomes = evaluate_bank(Embedder(Settings.from_env().embed_model), Path(args.questions))
        if args.json:
            print(json.dumps([{"id": o.gold.id, "family": o.gold.fam, "split": o.gold.split, "ok": o.ok,
                               "behavior": o.behavior, "entity": o.entity, "why": o.why} for o in outcomes], indent=2))
            return 0
        print(family_table(outcomes))
        if args.failures:
            for o in outcomes:
                if not o.ok:
                    print(f"FAIL {o.gold.id} [{o.gold.fam}/{o.gold.split}] {o.gold.q!r} ({o.gold.role}): {o.why}")
        return 0
    from .evaluate import format_table, scorecard
    results = scorecard(args.retrieval, Embedder(Settings.from_env().embed_model))
    if args.json:
        print(json.dumps({name: [{**r.as_dict(), "details": r.details} for r in rows]
                          for name, rows in results.items()}, indent=2, default=str))
    else:
        print(format_table(results))
    return 0
