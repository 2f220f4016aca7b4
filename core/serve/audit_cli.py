"""`python -m core audit list|show|replay` and `python -m core history`: terminal views of the audit log and
the catalog's transaction time."""
from __future__ import annotations

import json
import sys

from core.catalog import history
from core.catalog.store import Store
from core.compute.choose import value_engine
from core.retrieve.search import open_searcher
from core.serve.audit import audit_path, find, read_log, verify
from core.serve.decision_audit import DECISION, replay_decision
from core.serve.replay import format_report, replay
from core.settings.config import Settings


def filtered(db, role=None, principal=None, behavior=None, source=None, contains=None, limit=None):
    """Newest first. Lines that are not records (a torn line) are left out; `read_log(db).skipped` names them."""
    recs = [r for r in read_log(db).records
            if (not role or r.role == role) and (not principal or r.principal == principal)
            and (not behavior or r.behavior == behavior) and (not source or r.source == source)
            and (not contains or contains.lower() in r.question.lower())]
    recs.reverse()
    return recs[:limit] if limit else recs


NO_KEY = ("no audit key is set (ASOF_AUDIT_KEY or ASOF_AUDIT_KEY_FILE): the chain finds damage and plain edits, but "
          "whoever can write the log could edit a record and recompute every hash after it")


def format_verification(v) -> str:
    if v.lines == 0:
        return f"{v.path}: no audit records; nothing to verify" + ("" if v.key else f"\n  {NO_KEY}")
    counts = f"{v.lines} line(s): {v.chained} chained record(s)" + (
        f", {v.unchained} unchained (written before the log was chained)" if v.unchained else "")
    if v.key:
        counts += f", {v.keyed} keyed with the audit key" + (
            f", {v.chained - v.keyed} unkeyed (written before the key was set; not verified with it)"
            if v.chained > v.keyed else "")
    keyed = "" if v.key else f"\n  {NO_KEY}"
    if v.intact:
        return f"{v.path}: intact; {counts}; head {v.head}{keyed}"
    return (f"{v.path}: BROKEN at line {v.broken_line}" + (f" (record {v.broken_id})" if v.broken_id else "")
            + f": {v.broken}\n  {counts}; records from line {v.broken_line} on are not verified{keyed}")


def run_audit(args) -> int:
    if args.action == "verify":
        v = verify(args.db)
        if args.json:
            print(json.dumps({"path": str(v.path), "intact": v.intact, "lines": v.lines, "chained": v.chained,
                              "unchained": v.unchained, "keyed": v.keyed, "key": v.key,
                              "broken_line": v.broken_line, "broken_id": v.broken_id,
                              "broken": v.broken, "head": v.head}, indent=2))
        else:
            print(format_verification(v))
        return 0 if v.intact else 1
    if args.action == "list":
        recs = filtered(args.db, args.role, args.principal, args.behavior, args.source, args.contains, args.limit)
        for problem in read_log(args.db).skipped:
            print(f"warning: {audit_path(args.db)} {problem}", file=sys.stderr)
        if args.json:
            for r in recs:
                print(r.model_dump_json())
            return 0
        if not recs:
            print(f"no audit records in {audit_path(args.db)}" + (" match" if any(
                (args.role, args.principal, args.behavior, args.source, args.contains)) else ""))
        for r in recs:
            print(f"{r.id}  {r.at:%Y-%m-%d %H:%M:%S}  {r.source:<3}  {r.role:<10} {r.principal or '-':<8} "
                  f"{r.behavior:<28} ingest {r.ingest or '-'} rev {r.catalog_revision or '-'}"
                  + (f" (as recorded {r.recorded_at:%Y-%m-%d %H:%M})" if r.recorded_at else "")
                  + f"  {r.question[:70]}" + (f"  ({r.message[:80]})" if r.message else ""))
        return 0
    if not args.id:
        raise ValueError(f"audit {args.action} needs a record ID (see `audit list --db {args.db}`)")
    if args.action == "show":
        print(find(args.db, args.id).model_dump_json(indent=2))
        return 0
    rec = find(args.db, args.id)
    if rec.behavior == DECISION:  # a steward decision replays against the catalog's history
        decided = replay_decision(args.db, rec.id)
        print(decided.report())
        return 0 if decided.reproduced else 1
    store = Store(args.db)
    settings = Settings.from_env()
    searcher = open_searcher(store, settings.embed_model) if rec.searched else None
    # Values are computed again by the same engine (the configured warehouse, or MetricFlow for a dbt catalog):
    # the record's SQL and result hashes must match.
    engine = value_engine(store, settings) if rec.values else None
    result = replay(args.db, rec.id, searcher=searcher, store=store, engine=engine)
    if args.json:
        print(json.dumps({"id": rec.id, "reproduced": result.reproduced, "compared": result.compared,
                          "how": result.how, "reasons": result.reasons, "problem": result.problem,
                          "today_behavior": result.today.behavior.value,
                          "verification": result.verification, "verified": result.verified}, indent=2))
    else:
        print(format_report(result))
    return 0 if result.reproduced and result.verified else 1


def run_history(args) -> int:
    store = Store(args.db)
    rows = store.con.execute(
        """SELECT i.ingest, i.ingested_at, i.catalog_revision, i.object_count,
                  count(*) FILTER (WHERE h.recorded_from = i.ingest),
                  (SELECT count(*) FROM evidence_history x WHERE x.recorded_to = i.ingest)
           FROM ingests i LEFT JOIN evidence_history h ON h.recorded_from = i.ingest
           GROUP BY ALL ORDER BY i.ingest""").fetchall()
    current = history.current_ingest(store)
    for n, at, rev, count, added, closed in rows:
        print(f"ingest {n}  {at.isoformat()}  revision {rev}  {count} objects  {added} revision(s) recorded, "
              f"{closed} replaced or removed" + ("  (current)" if n == current else ""))
    return 0
