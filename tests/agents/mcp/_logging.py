"""Log notifications for every tools/call, for the MCP servers that log to their client (with the
`logging` capability declared, or without)."""

import contextlib
from typing import Any

import mcp.types as types

LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]
minimum = {"level": "info"}


async def log_calls(ctx: Any, call_next: Any) -> Any:
    """After each tools/call, an info log message about it on the request's stream (none where the
    era has no stream to send it on)."""
    result = await call_next(ctx)
    if ctx.method == "tools/call" and LEVELS.index(minimum["level"]) <= LEVELS.index("info"):
        arguments = (ctx.params or {}).get("arguments") if isinstance(ctx.params, dict) else None
        sid = arguments.get("sessionId") if isinstance(arguments, dict) else None
        with contextlib.suppress(Exception):  # the stateless era has no stream to log on
            await ctx.session.send_log_message(
                "info",
                {"event": "tools/call", "sessionId": str(sid)},
                logger="session_heartbeat",
                related_request_id=ctx.request_id,
            )
    return result


async def set_level(ctx: Any, params: Any) -> types.EmptyResult:
    minimum["level"] = str(params.level)
    return types.EmptyResult()
