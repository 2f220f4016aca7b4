"""`asof review list|decide|export|replay`: the Governance review page's decisions on the command line, with the
same rules (core/answer/decide.py) and the same records (the decisions file and the audit chain)."""
from __future__ import annotations

import json
import sys
from datetime import date
from pathlib import Path

from core.answer.decide import Decider, Refused, Request, decide, read_queue, steward_role
from core.answer.decision_queue import ACTION_LABELS, CATEGORY_LABELS, QueueItem
from core.catalog.store import Store
from core.explain.safe_text import plain
from core.ingest.decision_export import export_patch
from core.retrieve.embed import Embedder
from core.serve.decision_audit import record_decision, record_refused, replay_decision
from core.settings.auth import match_principal
from core.settings.config import Settings


def _day(value: str) -> date:
    import argparse
    try:
        return date.fromisoformat(value)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"{value!r} is not a date YYYY-MM-DD ({exc})") from None


def add_parser(sub) -> None:
    rv = sub.add_parser("review", help="the governance review queue: list items (stable ids), decide on one as a "
                                       "steward, export decisions as a patch, replay a decision's audit record")
    rsub = rv.add_subparsers(dest="review_cmd", required=True)
    ls = rsub.add_parser("list", help="open items with their ids and actions, and closed items with who and why")
    ls.add_argument("--db", required=True)
    ls.add_argument("--principal", required=True, help="a catalog principal holding a steward role")
    ls.add_argument("--closed", action="store_true", help="only closed items (who decided, when, why)")
    ls.add_argument("--json", action="store_true")
    dc = rsub.add_parser("decide", help="decide on one item (only a steward; a reason is required)")
    dc.add_argument("--db", required=True)
    dc.add_argument("--principal", required=True)
    dc.add_argument("--item", required=True, help="the item id `review list` printed")
    dc.add_argument("--action", required=True, choices=sorted(ACTION_LABELS))
    dc.add_argument("--governs", metavar="EVIDENCE_ID", help="close_overlap: the version that governs from --from")
    dc.add_argument("--from", dest="from_day", type=_day, metavar="DATE",
                    help="the day a version governs from (close_overlap, approve) or an expiry (expire)")
    dc.add_argument("--roles", help="set_roles: comma-separated role names")
    dc.add_argument("--owner", help="set_owner: the owner")
    dc.add_argument("--object", metavar="EVIDENCE_ID", help="retire/set_owner on an item about several objects")
    dc.add_argument("--seen", metavar="REVISION", help="the catalog revision `review list` printed: refused as stale "
                                                       "when the catalog changed since")
    dc.add_argument("--reason", required=True)
    ex = rsub.add_parser("export", help="decisions since a date as a unified diff against the files the catalog was "
                                        "ingested from (printed, never written into them)")
    ex.add_argument("--db", required=True)
    ex.add_argument("--since", required=True, type=_day, metavar="DATE")
    ex.add_argument("--source", required=True, metavar="PATH",
                    help="the catalog folder or file, or the dbt overlay YAML, the catalog was ingested from")
    ex.add_argument("--out", metavar="FILE", help="write the patch here instead of printing it")
    rp = rsub.add_parser("replay", help="replay a steward decision's audit record against the catalog's history")
    rp.add_argument("id")
    rp.add_argument("--db", required=True)


def _line(q: QueueItem) -> str:
    i = q.item
    if q.decision is not None and q.status != "open":
        d = q.decision
        return (f"{q.id}  [{q.status}] {plain(i.title, oneline=True)}\n    {d.action} by {plain(d.by, oneline=True)} "
                f"({d.identity}) on {d.at:%Y-%m-%d %H:%M} UTC: {plain(d.summary, oneline=True)}; "
                f"reason: {plain(d.reason, oneline=True)}")
    return (f"{q.id}  {plain(i.title, oneline=True)}\n    {plain(i.detail, oneline=True)}\n"
            f"    evidence: {', '.join(i.evidence_ids)}; actions: {', '.join(q.actions) or 'none'}")


def _request(args) -> Request:
    return Request(item=args.item, action=args.action, reason=args.reason, governs=args.governs,
                   from_day=args.from_day, roles=[r.strip() for r in (args.roles or "").split(",") if r.strip()],
                   owner=args.owner, object=args.object, seen_revision=args.seen)


def run(args) -> int:
    if args.review_cmd == "replay":
        result = replay_decision(args.db, args.id)
        print(result.report())
        return 0 if result.reproduced else 1
    if args.review_cmd == "export":
        patch = export_patch(args.db, args.since, Path(args.source))
        if args.out:
            Path(args.out).write_text(patch, encoding="utf-8")
            print(f"wrote {args.out}: {patch.count('+++ ')} file(s) changed", file=sys.stderr)
        else:
            sys.stdout.write(patch)
        return 0
    store = Store(args.db)
    # The name given is matched to a catalog principal as `ask --principal` and the app's identity modes match it
    # (case, ASOF_EMAIL_DOMAIN): the record names the catalog's principal.
    args.principal = match_principal(args.principal, store.principals(), Settings.from_env().auth.email_domain) \
        or args.principal
    try:
        role = steward_role(store, args.principal)
    except Refused as exc:
        if args.review_cmd == "decide":  # an attempt to decide is in the audit chain, refused or not
            held = store.principal_roles(args.principal)
            record_refused(args.db, _request(args), Decider(principal=args.principal, role=held[0] if held else "",
                                                           identity="command line"), "cli", str(exc))
        store.close()
        print(f"refused: {plain(exc)}", file=sys.stderr)
        return 2
    decider = Decider(principal=args.principal, role=role, identity="command line")
    if args.review_cmd == "list":
        q = read_queue(store)
        store.close()
        shown = {"open": [] if args.closed else q.open, "closed": q.closed}
        if args.json:
            print(json.dumps({"revision": q.revision, "day": q.day.isoformat(),
                              **{k: [x.model_dump(mode="json") for x in v] for k, v in shown.items()}}, indent=2))
            return 0
        print(f"review queue as of {q.day} (catalog revision {q.revision}): {len(q.open)} open, "
              f"{len(q.closed)} closed")
        for kind, items in shown.items():
            for category, label in CATEGORY_LABELS.items():
                mine = [x for x in items if x.item.category == category]
                if mine:
                    print(f"\n{kind}: {label} ({len(mine)})")
                    for x in mine:
                        print(_line(x))
        return 0
    store.close()
    req = _request(args)
    try:
        d = decide(args.db, decider, req, Embedder(Settings.from_env().embed_model))
    except Refused as exc:
        record_refused(args.db, req, decider, "cli", str(exc))
        print(f"refused: {plain(exc)}", file=sys.stderr)
        return 2
    rec = record_decision(args.db, d, req, decider, "cli")
    print(f"decided {d.decision} on {d.item}: {plain(d.summary, oneline=True)} (catalog revision {d.revision}, "
          f"ingest {d.ingest}; audit record {rec.id})")
    return 0
