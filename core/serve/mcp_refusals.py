"""MCP calls refused before any AsOf tool runs, recorded like every other refusal.

The SDK answers three kinds of call itself, so `core.serve.mcp_server`'s per-tool wrapper never sees them: a
tool name it does not know, arguments that fail the tool's input schema (a date that is no date, a depth that
is text), and, over HTTP, a request without a valid bearer token (401, sent by the SDK's auth middleware).
Each leaves an audit record (source "mcp", behavior "refused") and one server log line on stderr, so someone
probing the server with made-up tools, malformed arguments or guessed tokens is seen. Records keep names and
field paths only, never the caller's values or the token, which are the caller's data.
"""
from __future__ import annotations

import sys
from typing import Any, Callable

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import ValidationError

from core.explain.safe_text import plain

# (message, inputs) -> None: appends the audit record (core.serve.audit.record_refusal) for this server.
Record = Callable[[str, dict], None]
MAX_NAME = 200  # a made-up tool name is kept this long (it is the caller's text)


def log_line(message: str) -> None:
    print(f"AsOf MCP: refused: {plain(message, oneline=True)}", file=sys.stderr, flush=True)


class RecordingServer(MCPServer):
    """An MCPServer that records calls its SDK refuses before the tool function runs."""

    def __init__(self, *args, record: Record, **kw):
        super().__init__(*args, **kw)
        self._record = record

    def _refused(self, message: str, inputs: dict) -> None:
        log_line(message)
        self._record(message, inputs)

    async def call_tool(self, name: str, arguments: dict[str, Any], context=None):
        tool = str(name)[:MAX_NAME]
        given = sorted(str(k)[:MAX_NAME] for k in (arguments or {}))[:50]
        if self._tool_manager.get_tool(name) is None:
            await anyio.to_thread.run_sync(self._refused, f"unknown tool {tool!r}",
                                           {"tool": tool, "arguments": given})
            return await super().call_tool(name, arguments, context)  # the SDK's own "Unknown tool" error
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            if isinstance(exc.__cause__, ValidationError):
                # Field paths only, as the SDK logs them: the rejected values are the caller's data.
                fields = sorted({".".join(str(p) for p in err["loc"]) for err in exc.__cause__.errors()})
                await anyio.to_thread.run_sync(
                    self._refused, f"tool {tool}: arguments do not fit its input schema ({', '.join(fields)})",
                    {"tool": tool, "arguments": given, "invalid": fields})
            raise


def refusing_unauthorized(app, record: Record):
    """The HTTP app, with every 401 it sends (no bearer token, or one the tokens file does not hold) logged and
    recorded. The response is the SDK's, unchanged."""
    async def wrapped(scope, receive, send):
        if scope.get("type") != "http":
            return await app(scope, receive, send)

        async def watch(message):
            if message.get("type") == "http.response.start" and message.get("status") == 401:
                offered = any(k.lower() == b"authorization" for k, _ in scope.get("headers") or [])
                why = "a bearer token this server does not hold" if offered else "no bearer token"
                peer = (scope.get("client") or ("unknown", 0))[0]
                method, path = scope.get("method", ""), str(scope.get("path", ""))[:MAX_NAME]
                message_text = f"HTTP 401 for {method} {path} from {peer}: {why}"
                await anyio.to_thread.run_sync(_log_and_record, record, message_text,
                                               {"http": f"{method} {path}", "peer": peer})
            await send(message)

        return await app(scope, receive, watch)

    return wrapped


def _log_and_record(record: Record, message: str, inputs: dict) -> None:
    log_line(message)
    record(message, inputs)
