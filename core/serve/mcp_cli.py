"""`python -m core mcp` (serve) and `python -m core mcp-token add|list` (bearer tokens for HTTP).

Kept apart from core/serve/cli.py so the MCP SDK is imported only when the server starts.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

from core.serve.mcp_auth import AccessDenied, add_token, describe, load_tokens, resolve_identity
from core.settings.config import Settings


def default_tokens(db: Path) -> Path:
    return Path(str(db) + ".mcp-tokens.json")


def add_parsers(sub) -> None:
    m = sub.add_parser("mcp", help="serve the catalog to AI assistants over MCP (stdio or streamable HTTP)",
                       description="Read-only MCP tools (ask, list_metrics, get_definition, compare_versions, "
                                   "get_lineage, get_freshness, review_queue), each run as one catalog principal.")
    m.add_argument("--db", type=Path, help="catalog database (default: ASOF_DB or data/build/demo.duckdb)")
    m.add_argument("--transport", choices=("stdio", "http"), default="stdio",
                   help="stdio for a desktop assistant (default); http for a shared streamable-HTTP server")
    m.add_argument("--principal", help="stdio: the catalog principal every call runs as (or ASOF_MCP_PRINCIPAL)")
    m.add_argument("--role", help="stdio: which of the principal's roles to run as, when it has several "
                                  "(or ASOF_MCP_ROLE; default: the first in sorted order); on a catalog without "
                                  "principals (a plain dbt ingest), the role every call runs as, with no --principal")
    m.add_argument("--tokens", type=Path, help="http: hashed bearer-token file (or ASOF_MCP_TOKENS; "
                                               "default: DB.mcp-tokens.json)")
    m.add_argument("--host", default="127.0.0.1", help="http: address to bind (default 127.0.0.1)")
    m.add_argument("--port", type=int, default=8765, help="http: port (default 8765)")
    m.add_argument("--path", default="/mcp", help="http: endpoint path (default /mcp)")

    t = sub.add_parser("mcp-token", help="add or list bearer tokens for the HTTP MCP server")
    t.add_argument("action", choices=("add", "list"))
    t.add_argument("--db", type=Path, help="catalog database: the principal must exist in it")
    t.add_argument("--tokens", type=Path, help="token file (default: DB.mcp-tokens.json)")
    t.add_argument("--principal", help="add: the catalog principal the token acts as")
    t.add_argument("--role", help="add: one of the principal's roles (default: the first in sorted order); on a "
                                  "catalog without principals, the role the token acts as, with no --principal")
    t.add_argument("--label", default="", help="add: a note to tell tokens apart (who holds it)")


def run(args) -> int:
    settings = Settings.from_env()
    db = args.db or settings.db_path
    tokens = args.tokens or settings.mcp_tokens or default_tokens(db)
    if args.cmd == "mcp-token":
        return _token(args, db, tokens)
    if args.db is None and settings.catalog_url:
        db = settings.catalog_url  # ASOF_DB=s3://...: a replica of the published catalog (core/serve/replica.py)
    from core.serve.mcp_server import Principal, serve  # the SDK loads only here
    if args.transport == "stdio":
        principal = Principal(name=args.principal or settings.mcp_principal, role=args.role or settings.mcp_role)
    else:
        principal = Principal(tokens_path=tokens)
    try:
        serve(db, settings, principal, args.transport, args.host, args.port, args.path)
    except AccessDenied as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


def _token(args, db: Path, tokens: Path) -> int:
    if args.action == "list":
        print(json.dumps([describe(e) for e in load_tokens(tokens).tokens], indent=2))
        return 0
    if not args.principal and not args.role:
        raise ValueError("mcp-token add needs --principal NAME (or, on a catalog without principals, --role NAME)")
    from core.catalog.store import Store
    store = Store(db)
    try:
        who = resolve_identity(store, args.principal, args.role)
    except AccessDenied as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    finally:
        store.close()
    token = add_token(tokens, args.principal, args.role, args.label)
    print(f"added a token to {tokens} for {who.resolved}. It is shown only now; the file keeps its sha256:",
          file=sys.stderr)
    print(token)
    return 0
