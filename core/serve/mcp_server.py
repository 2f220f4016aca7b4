"""AsOf as an MCP server (official `mcp` SDK): stdio for desktop assistants, streamable HTTP for a shared one.

Tools are read-only and run as one catalog principal: over stdio the one configured for the process, over
HTTP the one a bearer token maps to. No tool takes a role. Calls run concurrently, each on a worker
thread, over one shared Store and Searcher (both thread-safe: per-thread DuckDB cursors, locked caches), so
a slow call (an LLM explanation) does not hold up the others.
"""
from __future__ import annotations

import json
import os
import sys
import threading
from dataclasses import dataclass
from datetime import date as Day
from datetime import datetime
from pathlib import Path
from typing import Annotated, Any, Callable, Literal

import anyio
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult, TextContent, ToolAnnotations
from pydantic import Field

from core.answer.conversation import Conversations
from core.answer.intents.review import CATEGORIES
from core.answer.warm import warm_quietly
from core.compute.choose import value_engine
from core.retrieve.embed import Embedder
from core.serve import audit
from core.serve import mcp_tools as tools
from core.serve.audit_key import audit_key
from core.serve.live import Live
from core.serve.mcp_auth import AccessDenied, Identity, find_token, load_tokens, resolve_identity
from core.serve.mcp_refusals import RecordingServer, refusing_unauthorized
from core.settings.config import Settings
from core.settings.objects import is_object_url

READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)

BEHAVIORS = ("Every result has `answered_as` (the principal and role the server resolved) and a `behavior`: "
             "answer, clarify (relay the question and its options to the user; do not choose for them), split "
             "(one answer per sub-period), abstain (the catalog cannot answer; say so), "
             "not_found_or_not_authorized (it may not exist or may not be shared with this principal; do not "
             "guess, and do not retry with variations to probe), human_review, or refuse. Relay the verdict "
             "and cite evidence ids; never fill gaps from general knowledge.")


DateArg = Annotated[Day | None, Field(description="reporting date, YYYY-MM-DD")]
RecordedAtArg = Annotated[datetime | None, Field(
    description="answer from the catalog as it was recorded at this time, ISO 8601 (transaction time; "
                "permissions are always today's)")]
AtArg = Annotated[datetime | None, Field(description="when freshness is evaluated, ISO 8601 (default: the catalog's own evaluation_time if it names one, else now, UTC)")]
EntityArg = Annotated[str, Field(description="an entity id from list_metrics (e.g. metric.net_revenue), the id of "
                                             "one of its versions, or its exact name or alias")]
Category = Literal[tuple(CATEGORIES)]  # type: ignore[valid-type]


@dataclass
class Principal:
    """Who the calls run as: fixed for stdio; for HTTP, read per request from the bearer token."""
    name: str | None = None
    role: str | None = None
    tokens_path: Path | None = None
    resolved: str | None = None  # stdio: how the role was chosen, known once the catalog is open

    def describe(self) -> str:
        if self.tokens_path is None:
            return (f"Runs as catalog principal {self.name}" + (f" ({self.resolved})" if self.resolved else "")
                    + ", fixed by the server's configuration; you cannot choose a role.")
        return ("Runs as the catalog principal your bearer token is mapped to, with that principal's role; you "
                "cannot choose a role.")


class CatalogHolder:
    """The catalog calls answer from: core.serve.live hands each call the Store and Searcher for the database file
    as it is when the call starts, so a re-ingest is picked up by the next call and running calls finish on
    what they started with."""

    def __init__(self, db_path: Path | str, settings: Settings):
        # A replica (db_path an s3:// URL) keeps its audit log and explanation cache beside settings.db_path
        # (ASOF_REPLICA_DIR/replica.duckdb.*), outside the revisions/ folder its downloads go to and are pruned from.
        self.db_path = settings.db_path if is_object_url(str(db_path)) else Path(db_path)
        self.settings = settings
        self.live = Live(str(db_path), Embedder(settings.embed_model), cache_dir=settings.revisions_dir,
                         poll_s=settings.poll_s)
        self.ready = threading.Event()  # set once the embedding model is loaded (or known to be unneeded)
        self.stopping = threading.Event()  # the server is exiting: warm-up ends at its next step
        self.engine, self._engine_key = None, None

    def current(self) -> tools.Catalog:
        store = self.live.store()
        # Chosen per catalog file revision (a re-ingest may add a dbt project), once the warehouse exists
        # (scripts/run.sh builds the demo's); core/compute/choose.py.
        key = (str(store.path), store.revision)
        if self.engine is None or self._engine_key != key:
            self.engine, self._engine_key = value_engine(store, self.settings), key
        # Answers are recorded at self.db_path, with refusals, in one chain: never beside a revision's file, which
        # a replica deletes when it prunes old revisions.
        return tools.Catalog(store, self.live.searcher(store), self.settings, engine=self.engine, home=self.db_path)

    def warm(self) -> None:
        """Load the embedding model once, before any call uses it (sentence-transformers takes seconds)."""
        try:
            cat = self.current()
            if cat.searcher is not None and not self.stopping.is_set():
                cat.searcher.embed("warm up")
        finally:
            self.ready.set()
        if not self.stopping.is_set():
            warm_quietly(cat.store, cat.searcher, self.stopping)  # every role's view, after waiting calls were let in

    def close(self) -> None:
        """Stop background work (the replica's watch of CURRENT) before the interpreter exits."""
        self.stopping.set()
        if self.live.replica is not None:
            self.live.replica.close()


def _token_identity(principal: Principal) -> tuple[str, str | None]:
    token = get_access_token()
    if token is None:  # the HTTP app rejects requests without a valid token before any tool runs
        raise ToolError("no bearer token: nothing is visible")
    entry = find_token(load_tokens(principal.tokens_path), token.token)
    if entry is None:
        raise ToolError("unknown bearer token: nothing is visible")
    return entry.principal, entry.role


def _caller(principal: Principal) -> tuple[str | None, str | None]:
    """Who a refused call came from, as far as is known: the configured principal, or the token's (none when the
    token is unknown)."""
    if principal.tokens_path is None:
        return principal.name, principal.role
    try:
        return _token_identity(principal)
    except (ToolError, ValueError, OSError):
        return None, None


def refusal_recorder(holder: CatalogHolder, principal: Principal):
    """Appends the audit record of a call refused before any tool ran (core/serve/mcp_refusals.py)."""
    def record(message: str, inputs: dict) -> None:
        name, role = _caller(principal) if "tool" in inputs else (None, None)
        if name:  # the role its calls run as, as a tool's own refusal records it
            try:
                role = resolve_identity(holder.current().store, name, role).role
            except AccessDenied:
                pass
        audit.record_refusal(holder.db_path, role=role, principal=name, source="mcp", inputs=inputs, message=message)
    return record


class TokenVerifier:
    """Bearer tokens checked against the hashed tokens file, re-read on each request so added or
    removed tokens take effect without a restart."""

    def __init__(self, path: Path):
        self.path = path

    async def verify_token(self, token: str) -> AccessToken | None:
        entry = find_token(load_tokens(self.path), token)
        if entry is None:
            return None
        return AccessToken(token=token, client_id=entry.principal, subject=entry.principal, scopes=[])


def _flat(answered: tuple) -> tuple:
    """((body, envelope), audit inputs) as `call` takes it: body, envelope, audit inputs."""
    (body, env), inputs = answered
    return body, env, inputs


def build_server(holder: CatalogHolder, principal: Principal, auth_url: str | None = None) -> MCPServer:
    who_text = principal.describe()
    kw: dict[str, Any] = {}
    if principal.tokens_path is not None:
        kw = dict(token_verifier=TokenVerifier(principal.tokens_path),
                  auth=AuthSettings(issuer_url=auth_url, resource_server_url=None))
    server = RecordingServer(
        "asof", title="AsOf", log_level="WARNING", record=refusal_recorder(holder, principal),
        instructions=("AsOf tells which definition of a business metric applied on a reporting date, with its "
                      "backing model, lineage, data freshness and conflicting documents, as a governed catalog "
                      f"records them. {who_text} {BEHAVIORS}"),
        **kw)

    memory = Conversations()  # each conversation's last answer, per principal (core/answer/conversation.py)

    async def call(tool: str, inputs: dict, fn: Callable[[tools.Catalog, Identity], tuple]) -> CallToolResult:
        """Run one tool as the resolved principal, then append its audit record (source "mcp"). A call refused
        (no token, no access, bad input, not a steward) or failing is recorded too, with the message the
        caller got (behavior "refused" or "error")."""
        def refused(who_name, who_role, message: str, behavior: str = "refused") -> None:
            audit.record_refusal(holder.db_path, role=who_role, principal=who_name, source="mcp",
                                 inputs={"tool": tool, **{k: v for k, v in inputs.items() if v is not None}},
                                 message=message, behavior=behavior)

        if principal.tokens_path is None:
            name, role = principal.name, principal.role
        else:
            try:
                name, role = _token_identity(principal)
            except ToolError as exc:
                refused(None, None, str(exc))
                raise

        def work() -> CallToolResult:
            holder.ready.wait()
            cat = holder.current()
            who = None
            try:
                who = resolve_identity(cat.store, name, role)
                body, env, *extra = fn(cat, who)
            except (AccessDenied, tools.ToolInputError, tools.NotSteward, ToolError) as exc:
                refused(name, who.role if who else role, str(exc))
                raise ToolError(str(exc)) from None
            except Exception as exc:
                # Only the type: a message could quote catalog text the principal may not see.
                refused(name, who.role if who else role, f"internal error ({type(exc).__name__})", "error")
                raise
            audit.record(cat.db_path, envelope=env, role=who.role, principal=who.principal, source="mcp",
                         inputs={"tool": tool, **inputs, **(extra[0] if extra else {}),
                                 **({"grants": env.granted} if env.granted else {})})
            # Compact JSON for the model to read (the SDK would indent it), and the same object structured.
            return CallToolResult(content=[TextContent(type="text", text=json.dumps(body, separators=(",", ":")))],
                                  structured_content=body)

        return await anyio.to_thread.run_sync(work)

    def tool(description: str):
        return server.tool(description=f"{description} {who_text} {BEHAVIORS}", annotations=READ_ONLY)

    @tool("Ask AsOf a question about a metric, in plain words. The server resolves the entity, the reporting "
          "date or period, the governing version, backing model, lineage and freshness deterministically, and "
          "returns the evidence envelope with a validated explanation whose sentences cite evidence ids.")
    async def ask(question: Annotated[str, Field(description="the question, in the user's words")],
                  date: DateArg = None,
                  period: Annotated[str | None, Field(description="reporting period START..END, inclusive end, "
                                                               "e.g. 2025-01-01..2025-03-31")] = None,
                  at: AtArg = None, recorded_at: RecordedAtArg = None,
                  conversation: Annotated[str | None, Field(description=(
                      "an id of your choosing for this conversation: a short follow-up that names no subject ('and "
                      "for last year?', 'is it fresh?') then continues from this conversation's last answer, and "
                      "the answer's first note says what was carried"))] = None) -> CallToolResult:
        return await call("ask", {"question": question, "date": date, "period": period, "at": at,
                                  "recorded_at": recorded_at, "conversation": conversation},
                          lambda cat, who: _flat(tools.ask_tool(cat, who, question, date, period, at, recorded_at,
                                                                conversation, memory)))

    @tool("List the metrics this principal may see, with their names, aliases and versions' effective "
          "intervals. `topic` keeps metrics whose names share a word with it.")
    async def list_metrics(topic: Annotated[str | None, Field(description="a word or two, e.g. 'revenue'")] = None
                           ) -> CallToolResult:
        return await call("list_metrics", {"topic": topic}, lambda cat, who: tools.list_metrics_tool(cat, who, topic))

    @tool("The definition of one metric, model or source that governs on a date: the version in effect, its "
          "backing model, and the drafts, superseded pages and notes that disagree and why they do not govern. "
          "Without a date and with several versions, it asks back (clarify).")
    async def get_definition(entity: EntityArg, date: DateArg = None,
                             recorded_at: RecordedAtArg = None) -> CallToolResult:
        def run(cat, who):
            (body, env), replay_inputs = tools.get_definition_tool(cat, who, entity, date, recorded_at)
            return body, env, replay_inputs
        return await call("get_definition", {"entity": entity, "date": date, "recorded_at": recorded_at}, run)

    @tool("The value of a metric over a period, computed by the warehouse's engine with the version in effect on "
          "each part of it: one value per sub-period where the definition or its backing model changes, each with "
          "the version, model, SQL and hashes it was computed with, and when its inputs were last loaded. "
          "`grain` gives one value per month, quarter or year; `restate_under` ('today' or a version) computes "
          "the same periods under that version too and states the difference. A value is given only when the "
          "metric version, its model and every source behind them are visible to this principal.")
    async def metric_value(entity: EntityArg,
                           period: Annotated[str, Field(description="START..END, inclusive end, e.g. "
                                                                    "2024-04-01..2024-06-30")],
                           grain: Literal["month", "quarter", "year"] | None = None,
                           restate_under: Annotated[str | None, Field(description="'today' or a version, e.g. "
                                                                                  "'2'")] = None,
                           at: AtArg = None) -> CallToolResult:
        def run(cat, who):
            (body, env), replay_inputs = tools.metric_value_tool(cat, who, entity, period, grain, restate_under, at)
            return body, env, replay_inputs
        return await call("metric_value", {"entity": entity, "period": period, "grain": grain,
                                           "restate_under": restate_under, "at": at}, run)

    @tool("Field-by-field differences between two authoritative versions of a metric or model (formula, grain, "
          "filters, columns, effective interval, text). Defaults to the two latest versions.")
    async def compare_versions(entity: EntityArg,
                               version_a: Annotated[str | None, Field(description="e.g. '1' or 'v1'")] = None,
                               version_b: Annotated[str | None, Field(description="e.g. '2' or 'v2'")] = None
                               ) -> CallToolResult:
        return await call("compare_versions", {"entity": entity, "version_a": version_a, "version_b": version_b},
                          lambda cat, who: tools.compare_versions_tool(cat, who, entity, version_a, version_b))

    @tool("Lineage around a metric, model or source on a date, over recorded edges only (never inferred), "
          "starting from the versions in effect that day. With `column`, where that column comes from over "
          "column-level edges, or a plain statement that only table-level lineage is recorded.")
    async def get_lineage(entity: EntityArg, date: Annotated[Day | None, Field(
                              description="date the edges must be in effect, YYYY-MM-DD (default: today)")] = None,
                          depth: Annotated[int, Field(description=f"hops, 1 to {tools.MAX_DEPTH}")] = 3,
                          column: Annotated[str | None, Field(description="a column name to trace")] = None,
                          direction: Literal["upstream", "downstream", "both"] = "upstream") -> CallToolResult:
        return await call("get_lineage", {"entity": entity, "date": date, "depth": depth, "column": column,
                                          "direction": direction},
                          lambda cat, who: tools.get_lineage_tool(cat, who, entity, date, depth, column, direction))

    @tool("Data freshness of a source, or of the raw sources feeding a metric or model: last recorded load, age "
          "and status (pass, warn, error, unknown) against the policy thresholds, evaluated at `at`. A source "
          "with no recorded load is unknown, never fresh.")
    async def get_freshness(entity: Annotated[str, Field(description="a source, or a metric or model whose raw "
                                                                     "sources to check")],
                            at: AtArg = None) -> CallToolResult:
        return await call("get_freshness", {"entity": entity, "at": at},
                          lambda cat, who: tools.get_freshness_tool(cat, who, entity, at))

    @tool("Catalog stewards only: the governance review queue over the whole catalog (overlapping versions, "
          "drafts contradicting a governing version, superseded pages still retrievable, untrusted notes "
          "carrying instructions, empty ACLs, stale index entries). Other principals get an error.")
    async def review_queue(category: Annotated[Category | None, Field(description="only this category")] = None
                           ) -> CallToolResult:
        return await call("review_queue", {"category": category},
                          lambda cat, who: tools.review_queue_tool(cat, who, category))

    return server


def serve(db_path: Path, settings: Settings, principal: Principal, transport: str, host: str, port: int,
          path: str) -> None:
    if not is_object_url(str(db_path)) and not Path(db_path).exists():
        raise FileNotFoundError(f"no catalog database at {db_path}; run `python -m core ingest` first")
    audit_key()  # a configured audit key that cannot be used stops the server before it answers anything
    holder = CatalogHolder(db_path, settings)
    audit.check_appendable(holder.db_path)  # a keyed log this process could not append to: stopped, named
    cat = holder.current()  # fail before serving: an unknown principal or a missing catalog is a start-up error
    if principal.tokens_path is None:
        principal.resolved = resolve_identity(cat.store, principal.name, principal.role).resolved
    else:
        load_tokens(principal.tokens_path)
    # Load the embedding model while the transport starts; calls wait for it. A thread still inside native code
    # (ONNX Runtime loading the model, DuckDB) while the interpreter finalizes aborts the process ("terminate called
    # ...", SIGABRT): that is what a client disconnecting within a second or two of start used to cause. So the
    # thread is no daemon (an error exit waits for it, told to stop at its next step), and a normal exit ends below.
    warming = threading.Thread(target=holder.warm, name="asof-warm")
    warming.start()
    try:
        if transport == "stdio":
            build_server(holder, principal).run("stdio")
        else:
            _serve_http(holder, principal, host, port, path)
    finally:
        holder.close()
    # The transport is closed and every call has finished, its audit record written and fsynced. The warm-up only
    # fills caches: rather than wait seconds for a model load to end (or finalize around it and abort), the process
    # ends here without finalizing, exit status 0.
    if warming.is_alive():
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)


def _serve_http(holder: CatalogHolder, principal: Principal, host: str, port: int, path: str) -> None:
    server = build_server(holder, principal, auth_url=f"http://{host}:{port}")
    print(f"AsOf MCP server: http://{host}:{port}{path} (bearer tokens from {principal.tokens_path})",
          file=sys.stderr, flush=True)
    import uvicorn  # what the SDK's own run("streamable-http") does, with refused requests recorded
    app = refusing_unauthorized(server.streamable_http_app(streamable_http_path=path, host=host),
                                refusal_recorder(holder, principal))
    uvicorn.run(app, host=host, port=port, log_level="warning")
