"""Reference MCP server for `session_heartbeat`, on the official MCP Python SDK's low-level API.

The low-level API is used on purpose: it publishes the tool's ``inputSchema`` exactly as given
(the decorator API derives one from type hints and drops ``additionalProperties: false``).

    python -m conformance.reference.mcp.server                      # stdio
    python -m conformance.reference.mcp.server --http 127.0.0.1:0   # Streamable HTTP; prints its URL
    python -m conformance.reference.mcp.server --modern-only        # MCP 2026-07-28 only
    python -m conformance.reference.mcp.server --http 127.0.0.1:0 --stateless-http

Protocol eras: the SDK serves both, the handshake era (``initialize``, MCP 2025-06-18 and the
revisions before and after it) and the stateless era (MCP 2026-07-28: ``server/discover`` and a
``_meta`` envelope on every request); on stdio the client's first request decides, over HTTP the
``MCP-Protocol-Version`` header. ``--modern-only`` refuses the handshake era with -32022 naming
the revisions it serves (the SDK has no switch for it: a server middleware does it).
``--stateless-http`` serves the handshake era without protocol sessions (``stateless_http``).

Callers: over HTTP the caller is the ``Authorization`` header's value (any token is accepted;
it names the caller, as a real server's token would after verification); over stdio there is
one caller. Operators enqueue instructions with ``POST /operator/instructions`` (HTTP, JSON
``{"sessionId", "text"}``) or ``python -m conformance.reference.mcp.instruct SESSION TEXT``
(stdio: a spool directory in the server's working directory).

The machinery real servers have is off by default, each part behind its own flag (the rules are
in store.py): ``--session-cap N`` (least-recently-used eviction), ``--session-ttl S`` (idle
expiry), ``--request-limit N`` per ``--request-window S`` (a per-session allowance),
``--io-delay S`` (calls that overlap, one session's in turn), ``--max-length N`` (longer
values refused, never cut) and, over HTTP, ``--resumable`` (SSE streams a client can resume with
``Last-Event-ID``: events.py).
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import anyio
import mcp.types as types
from mcp.server import Server, ServerRequestContext
from mcp.server.streamable_http import EventStore
from mcp.shared.exceptions import MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

# Run as a file (python conformance/reference/mcp/server.py): import it as the package it is in.
if not __package__:
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # pragma: no mutate (run as a file)
    __package__ = "conformance.reference.mcp"

from .events import ResumableEvents
from .serving import serve_asgi
from .store import INPUT_SCHEMA, HeartbeatError, HeartbeatStore, spool_dir

__all__ = ["OtherTool", "build_server", "main", "serve_http", "serve_stdio"]

TOOL = "session_heartbeat"
DESCRIPTION = (
    "Report session status, progress, and the current step. Pending human instructions are delivered "
    "automatically; unacknowledged instructions may be redelivered until the agent acknowledges them."
)
STDIO_CALLER = "local"


def caller_of(ctx: ServerRequestContext[Any]) -> str:
    request = ctx.request
    headers = getattr(request, "headers", None)
    if headers is None:
        return STDIO_CALLER
    return headers.get("authorization") or "anonymous"


@dataclass(frozen=True)
class OtherTool:
    """A tool beside the heartbeat (a variant's): its listing and what a call runs, given the store,
    the caller and the arguments (a HeartbeatError refuses the call)."""

    name: str
    description: str
    input_schema: dict[str, Any]
    run: Callable[[HeartbeatStore, str, dict[str, Any]], dict[str, Any]]


def build_server(
    store: HeartbeatStore,
    *,
    input_schema: dict[str, Any] = INPUT_SCHEMA,
    tool_name: str = TOOL,
    other_tools: tuple[OtherTool, ...] = (),
    handlers: dict[str, Any] | None = None,
    output_schema: dict[str, Any] | None = None,
) -> Server[Any]:
    """The MCP server over ``store``; ``handlers``: more of the SDK's ``on_*`` handlers (a variant's
    resources or prompts); ``output_schema``: the heartbeat tool's, published as given (none by
    default: the spec's tool declares none)."""
    others = {t.name: t for t in other_tools}

    async def list_tools(ctx: ServerRequestContext[Any], params: Any) -> types.ListToolsResult:
        tool = types.Tool(
            name=tool_name, description=DESCRIPTION, input_schema=input_schema, output_schema=output_schema
        )
        listed = [
            types.Tool(name=t.name, description=t.description, input_schema=t.input_schema)
            for t in others.values()
        ]
        return types.ListToolsResult(tools=[tool, *listed])

    async def call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        other = others.get(params.name)
        if params.name != tool_name and other is None:
            return error_result(f"unknown tool {params.name!r}")
        try:
            if other is not None:
                result = other.run(store, caller_of(ctx), dict(params.arguments or {}))
            else:
                result = await store.call(caller_of(ctx), dict(params.arguments or {}))
        except HeartbeatError as exc:
            if exc.code is not None:
                raise MCPError(exc.code, str(exc)) from None
            return error_result(str(exc))
        text = json.dumps(result, separators=(",", ":"))
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=text)], structured_content=result, is_error=False
        )

    return Server(
        "session-heartbeat-reference",
        version="0.1.0",
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        **(handlers or {}),
    )


UNSUPPORTED_PROTOCOL_VERSION = -32022


async def modern_only(ctx: ServerRequestContext[Any], call_next: Any) -> Any:
    """Server middleware: a request of the handshake era (``initialize``, or anything on a
    connection it opened) is refused with -32022, naming the revisions served, as the SDK refuses
    ``initialize`` on a stateless-era connection."""
    if ctx.request_id is not None and (
        ctx.method == "initialize" or ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS
    ):
        requested = (ctx.params or {}).get("protocolVersion", ctx.protocol_version)
        raise MCPError(
            UNSUPPORTED_PROTOCOL_VERSION,
            "this server speaks only the stateless protocol (server/discover); initialize is not accepted",
            data={"supported": list(MODERN_PROTOCOL_VERSIONS), "requested": str(requested)},
        )
    return await call_next(ctx)


def error_result(message: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=message)], is_error=True)


async def serve_stdio(store: HeartbeatStore, server: Server[Any]) -> None:
    from mcp.server.stdio import stdio_server

    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


async def serve_http(
    store: HeartbeatStore,
    server: Server[Any],
    host: str,
    port: int,
    *,
    stateless: bool = False,
    events: EventStore | None = None,
) -> None:
    from starlette.requests import Request
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    async def enqueue(request: Request) -> JSONResponse:
        try:
            body = await request.json()
            session_id, text = body["sessionId"], body["text"]
        except (ValueError, KeyError, TypeError):
            return JSONResponse({"error": 'send JSON {"sessionId": ..., "text": ...}'}, status_code=400)
        try:
            return JSONResponse({"id": store.enqueue(str(session_id), str(text))}, status_code=201)
        except HeartbeatError as refused:  # past a storage limit: refused, never cut
            return JSONResponse({"error": str(refused)}, status_code=413)

    routes = [Route("/operator/instructions", enqueue, methods=["POST"])]
    app = server.streamable_http_app(
        custom_starlette_routes=routes, host=host, stateless_http=stateless, event_store=events
    )
    await serve_asgi(app, host, port, lambda h, p: f"listening on http://{h}:{p}/mcp")


def build_parser() -> argparse.ArgumentParser:
    """The reference server's options: its transport and the policies a variant or a test states."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    parser.add_argument("--http", metavar="HOST:PORT", help="serve Streamable HTTP instead of stdio")
    parser.add_argument("--page-size", type=int, default=2, help="instructions per heartbeat result")
    parser.add_argument(
        "--session-cap",
        type=int,
        metavar="N",
        help="keep at most N sessions: one more evicts the least recently used (only an applied heartbeat uses one)",
    )
    parser.add_argument(
        "--session-ttl", type=float, metavar="S", help="forget a session no heartbeat has used for S seconds"
    )
    parser.add_argument(
        "--request-limit",
        type=int,
        metavar="N",
        help="refuse a session's heartbeats past N per --request-window (retries, rejected calls and other "
        "callers' calls spend none)",
    )
    parser.add_argument(
        "--request-window",
        type=float,
        default=60.0,
        metavar="S",
        help="seconds of --request-limit (default 60)",
    )
    parser.add_argument(
        "--io-delay",
        type=float,
        default=0.0,
        metavar="S",
        help="each new call waits S seconds for its storage round trip while other calls go on (a session's "
        "calls in turn)",
    )
    parser.add_argument(
        "--max-length",
        type=int,
        metavar="N",
        help="refuse (never cut) ids, keys, steps, cursors and instruction texts longer than N characters",
    )
    parser.add_argument(
        "--modern-only",
        action="store_true",
        help="serve only MCP 2026-07-28 (server/discover): initialize is refused with -32022",
    )
    parser.add_argument(
        "--stateless-http",
        action="store_true",
        help="over HTTP, serve the handshake era without protocol sessions (the SDK's stateless_http)",
    )
    parser.add_argument(
        "--resumable",
        action="store_true",
        help="over HTTP, keep each SSE stream's events for a client that resumes it (Last-Event-ID)",
    )
    return parser


def main(
    argv: list[str] | None = None,
    *,
    store_factory: Callable[..., HeartbeatStore] = HeartbeatStore,
    input_schema: dict[str, Any] = INPUT_SCHEMA,
    tool_name: str = TOOL,
    middleware: tuple[Callable[..., Any], ...] = (),
    other_tools: tuple[OtherTool, ...] = (),
    handlers: Callable[[HeartbeatStore], dict[str, Any]] | None = None,
    output_schema: dict[str, Any] | None = None,
    event_store: Callable[[], EventStore] = ResumableEvents,
) -> None:
    """Serve; the keyword arguments let a variant change one rule (tests/agents/mcp), ``middleware``
    its MCP plumbing (server middleware, outermost first), ``other_tools`` the tools it lists beside
    the heartbeat, ``handlers`` more SDK handlers made for the store (resources, prompts),
    ``output_schema`` the heartbeat tool's outputSchema, ``event_store`` what keeps the streams'
    events under --resumable."""
    args = build_parser().parse_args(argv)
    store = store_factory(
        page_size=args.page_size,
        spool=None if args.http else spool_dir(),
        session_cap=args.session_cap,
        session_ttl=args.session_ttl,
        request_limit=args.request_limit,
        request_window=args.request_window,
        io_delay=args.io_delay,
        max_length=args.max_length,
    )
    server = build_server(
        store,
        input_schema=input_schema,
        tool_name=tool_name,
        other_tools=other_tools,
        handlers=handlers(store) if handlers is not None else None,
        output_schema=output_schema,
    )
    server.middleware.extend(middleware)
    if args.modern_only:
        server.middleware.append(modern_only)
    if args.http:
        host, _, port = args.http.rpartition(":")
        resumable = args.resumable and not args.stateless_http  # a stateless server has no streams to resume
        anyio.run(
            functools.partial(
                serve_http, stateless=args.stateless_http, events=event_store() if resumable else None
            ),
            store,
            server,
            host or "127.0.0.1",
            int(port or 0),
        )
    else:
        anyio.run(serve_stdio, store, server)


if __name__ == "__main__":  # pragma: no mutate (run as a file)
    try:
        main()
    except KeyboardInterrupt:  # pragma: no mutate (a quiet Ctrl-C)
        sys.exit(0)  # pragma: no mutate
