"""`python -m core ingest|ask|roles`: a thin shell over the same functions the app and tests call."""
from __future__ import annotations

import argparse
import json
import sys
from contextlib import nullcontext
from dataclasses import replace
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

from core.answer.ask import Question, UnknownRole
from core.answer.conversation import Turn, follow
from core.answer.dbt_values import MetricNotVisible, NotRecordedThen, restatement
from core.answer.steward import ask_as_steward, grants, scope_today
from core.catalog import history
from core.catalog.bulk import collector_paused
from core.catalog.envelope import Envelope
from core.catalog.store import DatabaseError, Store, check_db_path
from core.compute.choose import dbt_project, value_engine
from core.compute.metricflow_engine import shared_grain
from core.explain.headline import with_headline
from core.explain.render import render_text
from core.explain.safe_text import json_safe, plain
from core.ingest.load import CatalogError, read_text
from core.ingest.metricflow import DbtTools, MetricFlowError
from core.read.dates.day_range import check_day, check_time
from core.read.dates.written import parse_period
from core.retrieve.embed import Embedder
from core.retrieve.index import check_index_path, index_path
from core.retrieve.search import open_searcher
from core.serve import audit, mcp_cli, review_cli
from core.settings import budget
from core.settings.auth import cli_role, cli_roles
from core.settings.config import Settings
from core.settings.objects import ObjectLocation, ObjectStoreError
from core.settings.signing import SIGNING_KEY_ENV, TRUSTED_KEYS_ENV, SigningError, new_key_pair


def _recorded_at(value: str) -> datetime:
    from core.read.dates.recorded import end_of
    try:
        return check_time(end_of(value), "recorded-at time")
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"{value!r}: {exc}") from None


def _iso_datetime(value: str) -> datetime:
    """An evaluation time: ISO 8601, UTC unless it names a zone, inside the days AsOf answers for."""
    try:
        ts = datetime.fromisoformat(value.replace("Z", "+00:00"))
        return check_time(ts if ts.tzinfo else ts.replace(tzinfo=timezone.utc))
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"{value!r}: {exc}") from None


def _day(value: str) -> date:
    """A reporting date; the calendar's last day has no next day for the half-open [day, day+1)."""
    try:
        day = date.fromisoformat(value)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"{value!r} is not a date YYYY-MM-DD ({exc})") from exc
    try:
        return check_day(day)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def build_parser() -> argparse.ArgumentParser:
    # `asof ...` (the console script) or `python -m core ...`: the usage line names the command that was typed.
    prog = "python -m core" if sys.argv[0].endswith("__main__.py") else Path(sys.argv[0]).name or "asof"
    p = argparse.ArgumentParser(prog=prog, description="AsOf: point-in-time metric answers.")
    sub = p.add_subparsers(dest="cmd", required=True)

    ing = sub.add_parser("ingest", help="validate catalog inputs and write them to DuckDB (all or nothing)")
    ing.add_argument("catalog", nargs="?", help="a .json/.yaml catalog file or a folder of them")
    ing.add_argument("--db", required=True, help="DuckDB file to create or replace")
    ing.add_argument("--dbt", metavar="TARGET", help="a dbt target/ folder (manifest.json, semantic_manifest.json, "
                                                     "catalog.json, run_results.json, sources.json)")
    ing.add_argument("--openlineage", metavar="PATH", help="an OpenLineage event file, JSON array, or folder")
    ing.add_argument("--overlay", metavar="FILE", help="governance overlay YAML (intervals, authority, ACLs, aliases)")
    ing.add_argument("--docs", metavar="FOLDER", help="Markdown pages with front matter to attach")
    ing.add_argument("--allow-empty", action="store_true",
                     help="allow an ingest that removes every object of the current catalog")
    ing.add_argument("--ray", metavar="ADDRESS", help="chunk and embed on a Ray cluster (ray://HOST:10001, HOST:6379, "
                     "or auto: the cluster `ray start` joined this machine to); needs `pip install '.[ray]'`")
    ing.add_argument("--ray-workers", type=int, metavar="N", help="encoder actors on the cluster (default: one "
                     "per CPU the cluster has)")
    ing.add_argument("--publish", metavar="s3://BUCKET/PREFIX",
                     help="then publish the new revision to object storage for replicas (as `publish` does)")
    pub = sub.add_parser("publish", help="copy the catalog revision at --db (database and index) to object storage "
                                         "and point CURRENT at it; replicas started with ASOF_DB=URL follow it")
    pub.add_argument("url", metavar="s3://BUCKET/PREFIX")
    pub.add_argument("--db", required=True, help="the ingested DuckDB file to publish")
    keys = sub.add_parser("keys", help="`keys new --out FOLDER`: a new Ed25519 key pair for signing published "
                                       "revisions (the publisher's ASOF_SIGNING_KEY; replicas' ASOF_TRUSTED_KEYS)")
    keys.add_argument("action", choices=["new"])
    keys.add_argument("--out", required=True, metavar="FOLDER", help="where to write asof-ID.key and asof-ID.pub")

    a = sub.add_parser("ask", help="answer one question (or a --batch file) as a role")
    a.add_argument("--db", required=True)
    a.add_argument("--role", help="requester role (required unless every --batch line has one, or --principal "
                                  "gives it)")
    a.add_argument("--principal", help="who is asking (a catalog principal): --role must be one of its roles, "
                                       "default its first; required when ASOF_AUTH is header or oidc")
    when = a.add_mutually_exclusive_group()
    when.add_argument("--date", type=_day, help="reporting date YYYY-MM-DD")
    when.add_argument("--period", help="reporting period START..END (inclusive end)")
    a.add_argument("--at", type=_iso_datetime, help="evaluation time for freshness (ISO 8601; default: the catalog's settings.evaluation_time, else now)")
    a.add_argument("--recorded-at", type=_recorded_at, metavar="T",
                   help="answer from the catalog as recorded at T (ISO time, or a date = end of that day)")
    a.add_argument("--json", action="store_true", help="print the envelope as JSON")
    a.add_argument("--explain", action="store_true",
                   help="add a cited explanation (ASOF_LLM_MODEL if set, else written without an LLM)")
    a.add_argument("--batch", help="JSONL file of {question, role, date, period, at, follows_on}; one envelope per "
                   "line; a line with \"follows_on\": true continues from the line before (\"and for last year?\")")
    a.add_argument("--warehouse", metavar="FILE",
                   help="DuckDB warehouse metric values are computed on (default: ASOF_WAREHOUSE, else "
                        "data/build/warehouse.duckdb when it exists)")
    a.add_argument("--restate-from", type=_recorded_at, metavar="T",
                   help="for a dbt metric's values: also compute them under the definition recorded at T (the "
                        "semantic manifest kept by the ingest in force then) and give the difference with today's")
    a.add_argument("question", nargs="?")

    e = sub.add_parser("eval", help="scorecards, produced by running the code on gold suites")
    which = e.add_mutually_exclusive_group(required=True)
    which.add_argument("--retrieval", nargs="+", metavar="SUITE", help="suite_a, suite_b, paraphrase, or all")
    which.add_argument("--questions", nargs="?", const="tests/questions", metavar="FOLDER",
                       help="the question bank (default tests/questions): per-family table, tuning and check halves")
    e.add_argument("--failures", action="store_true", help="with --questions: list every failed question")
    e.add_argument("--json", action="store_true", help="print rows and per-case details as JSON")

    au = sub.add_parser("audit", help="the audit log beside the database: list, show ID, replay ID, verify "
                                      "(the hash chain; exit 1 at the first broken link)")
    au.add_argument("action", choices=["list", "show", "replay", "verify"])
    au.add_argument("id", nargs="?", help="audit record id (or a unique prefix) for show/replay")
    au.add_argument("--db", required=True)
    au.add_argument("--role")
    au.add_argument("--principal")
    au.add_argument("--behavior")
    au.add_argument("--source", choices=list(audit.SOURCES))
    au.add_argument("--contains", help="question text contains (case-insensitive)")
    au.add_argument("--limit", type=int, default=50)
    au.add_argument("--json", action="store_true")

    h = sub.add_parser("history", help="the catalog's ingests (transaction time) and what each changed")
    h.add_argument("--db", required=True)

    r = sub.add_parser("roles", help="list the catalog's roles")
    r.add_argument("--db", required=True)
    mcp_cli.add_parsers(sub)
    review_cli.add_parser(sub)
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    # One question, then the process ends: what it builds (one role's indexes, tens of thousands of small tuples at
    # 1,000 models) lives until then, so cyclic collection frees nothing; its passes were 0.05-0.1 s of a cold `ask`
    # (docs/scale.md). A batch, which may run for long, and every other command collect as usual.
    with collector_paused() if args.cmd == "ask" and not args.batch else nullcontext():
        return _run(args)


def _run(args) -> int:
    try:
        if args.cmd == "ingest":
            return _ingest(args)
        if args.cmd == "eval":
            return _eval(args)
        if args.cmd == "publish":
            return _publish(args.db, args.url)
        if args.cmd == "keys":
            secret, public = new_key_pair(args.out)
            print(f"private key (the publisher's {SIGNING_KEY_ENV}; keep it secret): {secret}\n"
                  f"public key (add it to every replica's {TRUSTED_KEYS_ENV}): {public}")
            return 0
        if args.cmd in ("mcp", "mcp-token"):
            return mcp_cli.run(args)
        if args.cmd == "audit":
            from core.serve.audit_cli import run_audit
            return run_audit(args)
        if args.cmd == "history":
            from core.serve.audit_cli import run_history
            return run_history(args)
        if args.cmd == "review":
            return review_cli.run(args)
        if args.cmd == "roles":
            store = Store(args.db)
            for role in store.roles():
                print(plain(role.name, oneline=True))
            return 0
        return _ask(args)
    except (UnknownRole, ValueError, DatabaseError, CatalogError, OSError, ObjectStoreError, SigningError) as exc:
        # OSError: a path that is a folder, unreadable, on a full or read-only disk; all named in the message.
        # Messages can quote catalog text and user input: no terminal escapes reach the terminal.
        print(f"error: {plain(exc)}", file=sys.stderr)
        return 2


# Ingest, publish and --explain import what they need when run: a cold `ask` imports none of it (docs/scale.md).
def _publish(db, url: str) -> int:
    from core.ingest.upload import publish_to
    pointer = publish_to(url, db)
    print(f"published revision {pointer.revision} of {db} to {url.rstrip('/')}/revisions/{pointer.folder}/; "
          f"CURRENT now points at it")
    return 0


def _ingest(args) -> int:
    from core.ingest.ingest import read_inputs, refuse_wholesale_removal
    from core.ingest.publish import publish
    from core.retrieve.writer import stderr_progress
    try:
        if args.publish:
            ObjectLocation.parse(args.publish)  # a bad URL is refused before any work
        check_db_path(args.db)
        check_index_path(args.db)
        catalog, changes = read_inputs(args.db, args.catalog, args.dbt, args.openlineage, args.overlay, args.docs)
        refuse_wholesale_removal(changes, args.db, args.allow_empty)
    except CatalogError as exc:
        print(f"error: catalog not ingested; {len(exc.problems)} problem(s), database left unchanged:", file=sys.stderr)
        for problem in exc.problems[:200]:
            print(f"  {plain(problem, oneline=True)}", file=sys.stderr)
        if len(exc.problems) > 200:
            print(f"  ... and {len(exc.problems) - 200} more", file=sys.stderr)
        return 2
    for warning in catalog.warnings:
        print(f"warning: {plain(warning, oneline=True)}", file=sys.stderr)
    for line in changes.read:
        print(plain(line, oneline=True))
    if changes.removed:
        shown = ", ".join(changes.removed[:10]) + (" ..." if len(changes.removed) > 10 else "")
        print(f"removing {len(changes.removed)} object(s) no longer in the inputs: {plain(shown, oneline=True)}",
              file=sys.stderr)
    done = publish(catalog, args.db, Embedder(Settings.from_env().embed_model), source=str(args.catalog),
                   dbt_target=args.dbt, progress=stderr_progress(), chunker=_ray_chunker(args))
    revision, report = done.revision, done.index
    print(f"ingested {len(catalog.evidence)} evidence objects, {len(catalog.roles)} roles into {args.db} "
          f"(revision {revision}); index {index_path(args.db)}: {report.chunks} chunks, "
          f"{report.embedded} embedded, {report.reused} reused, {report.deleted} deleted; objects: {changes.summary()}"
          f"; {_ingest_label(args.db)}")
    if done.semantic:
        print(f"kept the dbt semantic manifest (sha256 {done.semantic.sha256[:12]}) for metric values as recorded "
              f"at ingest {done.semantic.ingest}")
    return _publish(args.db, args.publish) if args.publish else 0


def _ray_chunker(args):
    """The Ray chunker for --ray, or None; Ray is an optional extra, imported only when asked for."""
    if not args.ray:
        return None
    try:
        import ray  # noqa: F401

        from core.retrieve.ray_embed import ray_chunker
    except ImportError as exc:
        raise DatabaseError(f"--ray needs Ray: pip install 'asof[ray]' ({exc})") from exc
    return ray_chunker(args.ray, args.ray_workers)


def _ingest_label(db) -> str:
    """The ingest's number and time, and the revision id each role's answers will name: an answer names the catalog
    as its role sees it (an edit to what the role may not see leaves it as it was), so the whole catalog's id above
    is no role's, and without these the two could not be matched."""
    from core.catalog.access import visible
    store = Store(db)
    try:
        last = history.ingests(store)[-1]
        roles = [r.name for r in store.roles()]
        per_role = ", ".join(f"{r} {visible(store, r).revision}" for r in roles[:12])
        more = f" and {len(roles) - 12} more roles" if len(roles) > 12 else ""
        return (f"recorded as ingest {last.number} at {last.ingested_at.isoformat()}"
                + (f"; answers name it per role as: {per_role}{more}" if roles else ""))
    finally:
        store.close()


def _question(role, text, day, period, at, recorded_at=None) -> Question:
    budget.check_question(text)  # before anything reads it: the same cap and message on every surface
    return Question(role=role, text=text, day=day, period=parse_period(period) if period else None, at=at,
                    recorded_at=recorded_at)


def _answer(store, q: Question, searcher, args, last: Turn | None = None) -> tuple[Envelope, Turn | None]:
    """The answer to `q` (a follow-up of `last`, when a batch line says it follows on), audited, and the turn it
    leaves for the next line."""
    settings = Settings.from_env()
    # A steward role answers as the app does: its own objects plus its review queue, on the catalog's day
    # (core/answer/steward.py).
    scope = scope_today(store, q.role)
    q = replace(q, grants=grants(scope))
    llm = (settings.llm_model, settings.llm_timeout_s) if settings.llm_model else None
    q, env, turn = follow(q, last, args.principal, lambda question: ask_as_steward(
        store, question, scope, searcher=searcher, llm=llm, engine=_engine(args, settings, store))[0])
    if args.explain:
        from core.explain.explain import cache_for, explain
        settings = Settings.from_env()
        # Citations are checked against the state that answered (a past state for --recorded-at).
        env.explanation = explain(env, q.text, history.view_for(store, env).visible_ids, settings.llm_model,
                                  settings.llm_timeout_s, cache_for(args.db))
    inputs = audit.inputs_of(q)  # the steward's own role, and its queue (`grants`) so the record replays
    audit.record(args.db, envelope=env, role=env.role, principal=args.principal, source="cli", inputs=inputs)
    return with_headline(env), turn


def _engine(args, settings: Settings, store):
    """The value engine for this run (core/compute/choose.py): MetricFlow for a catalog ingested from a dbt project
    with a semantic manifest, and the DuckDB warehouse (--warehouse, which must exist, else the configured one if
    built) for the catalog's own SQL metrics."""
    if getattr(args, "warehouse", None):
        if not Path(args.warehouse).is_file():
            raise ValueError(f"--warehouse {args.warehouse}: no such file (scripts/build_warehouse.py builds one)")
        settings = settings.model_copy(update={"warehouse_path": Path(args.warehouse)})
    if not hasattr(args, "_engine"):
        args._engine = value_engine(store, settings)
    return args._engine


def _ask(args) -> int:
    store = Store(args.db)  # no catalog, nothing to audit: the error says so
    audit.check_appendable(args.db)  # a keyed log without its key: refused before answering, not after
    try:
        return _ask_store(args, store)
    except ValueError as exc:  # refused before any answer: an unknown role or principal, a too-long question...
        inputs = {"question": args.question, "date": args.date, "period": args.period, "at": args.at,
                  "recorded_at": args.recorded_at, **({"batch": str(args.batch)} if args.batch else {})}
        audit.record_refusal(args.db, role=args.role, principal=args.principal, source="cli",
                             inputs={k: v for k, v in inputs.items() if v is not None}, message=plain(exc))
        raise


def _ask_store(args, store) -> int:
    settings = Settings.from_env()
    # The same principal -> roles mapping as the app; in demo mode without --principal any role goes.
    allowed = cli_roles(settings.auth.mode, args.principal, store.principals(), [r.name for r in store.roles()],
                        settings.auth.email_domain)
    searcher = open_searcher(store, settings.embed_model)
    if args.batch:
        if args.question:
            raise ValueError("give either a question or --batch, not both")
        lines = [(n, line) for n, line in enumerate(read_text(args.batch).splitlines(), 1) if line.strip()]
        out, failed, last = [], False, None
        for n, line in lines:
            try:
                item = json.loads(line)
                if not isinstance(item, dict):
                    raise ValueError("each line must be a JSON object")
                for key in ("question", "role", "date", "period", "at", "recorded_at"):
                    if item.get(key) is not None and not isinstance(item[key], str):
                        raise ValueError(f"field {key!r} must be a string, got {type(item[key]).__name__}")
                if not isinstance(item.get("follows_on", False), bool):
                    raise ValueError("field 'follows_on' must be true or false")
                role = cli_role(item.get("role") or args.role, allowed, args.principal)
                if not role or not item.get("question"):
                    raise ValueError("needs 'question' and 'role' (or --role)")
                q = _question(role, item["question"],
                              _day(item["date"]) if item.get("date") else args.date,
                              item.get("period") or (None if item.get("date") else args.period),
                              _iso_datetime(item["at"]) if item.get("at") else args.at,
                              _recorded_at(item["recorded_at"]) if item.get("recorded_at") else args.recorded_at)
            except (ValueError, TypeError, OverflowError, RecursionError, argparse.ArgumentTypeError) as exc:
                raise ValueError(f"{args.batch} line {n}: {exc}") from exc
            try:
                # A line that says it follows on continues from the line before (core/answer/conversation.py).
                env, last = _answer(store, q, searcher, args, last if item.get("follows_on") else None)
                out.append(json_safe(env.model_dump_json()))
            except ValueError:
                raise  # bad input (an unknown role, a bad date): the whole batch is refused, nothing printed
            except Exception as exc:  # noqa: BLE001 - one failing question must not cost the batch its other answers
                # Only the type: a message could quote catalog text the role may not see.
                out.append(json.dumps({"line": n, "error": f"internal error ({type(exc).__name__}); "
                                       "the other lines are answered"}))
                failed, last = True, None  # a line after a failed one has nothing to follow on from
        for line in out:
            print(line)
        return 1 if failed else 0
    role = cli_role(args.role, allowed, args.principal)
    if not args.question or not role:
        raise ValueError("ask needs --role and a QUESTION (or --batch FILE)")
    q = _question(role, args.question, args.date, args.period, args.at, args.recorded_at)
    env, _ = _answer(store, q, searcher, args)
    try:
        restated = _restate_from(store, env, q, args.restate_from, settings) if args.restate_from else None
    except _CannotRestate as exc:
        # The answer itself is audited already: this is not a refused question, so no refusal record.
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.json:
        body = json_safe(env.model_dump_json(indent=2))
        if restated is not None:  # beside the envelope, whose hash (audited, replayed) it is not part of
            body = json.dumps({**json.loads(body), "dbt_restatement": restated.model_dump(mode="json")}, indent=2)
        print(body)
    else:
        print(render_text(env))
        if restated is not None:
            print(_restatement_text(restated))
    return 0


class _CannotRestate(Exception):
    """--restate-from could not run (no dbt values in the answer, a metric not visible or not recorded then)."""


def _restate_from(store, env, q, at: datetime, settings: Settings):
    """A dbt metric's values under the definition recorded at `at` and today's (core/answer/dbt_values.py), for
    the metric and period the answer computed; refused, like the answer, with the same not-found."""
    values = env.values.values if env.values is not None and env.values.status == "computed" else []
    if not values or values[0].engine != "metricflow":
        raise _CannotRestate("--restate-from: the answer has no values of a dbt metric to restate (ask for a dbt "
                         "metric's value over a period)")
    metric = values[0].evidence_id.rsplit(".", 1)[-1]
    start, end = values[0].start, values[-1].end
    try:
        return restatement(store, q.role, dbt_project(store, settings), metric, start, end - timedelta(days=1),
                           recorded_at=at, grain=shared_grain([(v.start, v.end) for v in values]),
                           grants=q.grants, tools=DbtTools.from_settings(settings))
    except (MetricNotVisible, NotRecordedThen, history.NothingRecorded, MetricFlowError) as exc:
        raise _CannotRestate(f"--restate-from: {exc}") from None


def _restatement_text(r) -> str:
    head = (f"as recorded at ingest {r.then.manifest.ingest if r.then.manifest else '?'} vs now "
            f"(ingest {r.now.manifest.ingest if r.now.manifest else '?'}): {r.metric} "
            + ("definition changed" if r.definition_changed else "definition unchanged"))
    lines = [head]
    for p in r.periods:
        pct = f" ({p.percent:+.2f}%)" if p.percent is not None else ""
        diff = f"{p.difference:+,.2f}" if p.difference is not None else "n/a"
        lines.append(f"  {p.period_start or 'whole period'}: then {p.then} now {p.now} difference {diff}{pct}")
    return "\n".join(lines)


def _eval(args) -> int:
    if args.questions:
        from pathlib import Path

        from core.serve.questions import evaluate_bank, family_table
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
    from core.serve.evaluate import format_table, scorecard
    results = scorecard(args.retrieval, Embedder(Settings.from_env().embed_model))
    if args.json:
        print(json.dumps({name: [{**r.as_dict(), "details": r.details} for r in rows]
                          for name, rows in results.items()}, indent=2, default=str))
    else:
        print(format_table(results))
    return 0
