"""Progress notifications for a tools/call that carries `_meta.progressToken`, for the MCP servers
that report a heartbeat's progress to their client (during the call, or after its result)."""

import asyncio
import contextlib
from typing import Any

PENDING: set[asyncio.Task[None]] = set()  # strong references to the tasks sent after a result


def token_of(ctx: Any) -> Any:
    """The call's progress token (the SDK's name for it, or the wire's), or None."""
    meta = ctx.meta or {}
    if not isinstance(meta, dict):
        meta = getattr(meta, "__dict__", {})
    return meta.get("progress_token", meta.get("progressToken"))


def percent_of(ctx: Any) -> float:
    arguments = (ctx.params or {}).get("arguments") if isinstance(ctx.params, dict) else None
    percent = arguments.get("progressPercent", 100) if isinstance(arguments, dict) else 100
    return float(percent) if isinstance(percent, int | float) and not isinstance(percent, bool) else 100.0


async def send(ctx: Any, token: Any, percent: float, **where: Any) -> None:
    with contextlib.suppress(Exception):  # the stateless era over HTTP has no stream after the result
        await ctx.session.send_progress_notification(token, percent, total=100.0, **where)


async def progress_during(ctx: Any, call_next: Any) -> Any:
    """The reported progressPercent as progress for the call's token, on its stream, before the result."""
    token = token_of(ctx)
    if ctx.method == "tools/call" and token is not None:
        await send(
            ctx, token, percent_of(ctx), message="heartbeat received", related_request_id=ctx.request_id
        )
    return await call_next(ctx)


async def progress_after(ctx: Any, call_next: Any) -> Any:
    """The same, from a write-behind task that runs 50 ms after the result went out."""
    result = await call_next(ctx)
    token = token_of(ctx)
    if ctx.method == "tools/call" and token is not None:
        percent = percent_of(ctx)

        async def write_behind() -> None:
            await asyncio.sleep(0.05)  # the store's write-behind flush
            await send(ctx, token, percent)

        task = asyncio.get_running_loop().create_task(write_behind())
        PENDING.add(task)
        task.add_done_callback(PENDING.discard)
    return result
