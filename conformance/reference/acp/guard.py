"""A frame guard for SDK agents: malformed input gets a JSON-RPC error instead of a crash.

agent-client-protocol 0.12 logs and skips a line that is not JSON, and its connection dies on
a frame that is a JSON array (a batch): `'list' object has no attribute 'get'`, which ends
the agent. This guard reads stdin first and answers what the SDK cannot take:

- not UTF-8 or not JSON: -32700 Parse error, id null;
- not a single object (a batch, a string, a number): -32600 Invalid Request, id null;
- a bad envelope (jsonrpc not "2.0", method not a string, an id that is not a string, number
  or null, neither method nor result/error): -32600 with the id when it can be read;

and passes every other line on to the SDK unchanged. Empty lines are ignored.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

__all__ = ["guard_stdin"]

MAX_LINE = 64 * 1024 * 1024


def _error(frame_id: Any, code: int, message: str) -> bytes:
    body = {"jsonrpc": "2.0", "id": frame_id, "error": {"code": code, "message": message}}
    return json.dumps(body).encode() + b"\n"


def _valid_id(value: Any) -> bool:
    return value is None or (isinstance(value, (str, int, float)) and not isinstance(value, bool))


def check_line(line: bytes) -> bytes | None:
    """The error response for a line the SDK must not see, or None to pass it on."""
    try:
        frame = json.loads(line.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return _error(None, -32700, "Parse error")
    if not isinstance(frame, dict):
        return _error(None, -32600, "Invalid Request")
    frame_id = frame.get("id") if _valid_id(frame.get("id")) else None
    if frame.get("jsonrpc") != "2.0" or not _valid_id(frame.get("id")):
        return _error(frame_id, -32600, "Invalid Request") if "method" in frame or "id" in frame else None
    if "method" in frame:
        if not isinstance(frame["method"], str):
            return _error(frame_id, -32600, "Invalid Request")
        if "params" in frame and not isinstance(frame["params"], (dict, list)):
            return _error(frame_id, -32602, "Invalid params") if "id" in frame else None
        return None
    if "result" in frame or "error" in frame:
        return None  # a response to one of the agent's own requests
    return _error(frame_id, -32600, "Invalid Request")


async def guard_stdin(source: asyncio.StreamReader, writer: asyncio.StreamWriter) -> asyncio.StreamReader:
    """A reader for the SDK that only ever sees well-formed frames; errors go to ``writer``."""
    guarded = asyncio.StreamReader(limit=MAX_LINE)

    async def pump() -> None:
        while True:
            try:
                line = await source.readuntil(b"\n")
            except asyncio.IncompleteReadError as exc:
                line = exc.partial
                if not line:
                    break
            except asyncio.LimitOverrunError as exc:
                await source.readexactly(exc.consumed)  # drop the overlong part, answer once
                writer.write(_error(None, -32600, "Invalid Request: line too long"))
                continue
            if not line.strip():
                continue
            problem = check_line(line.strip())
            if problem is None:
                guarded.feed_data(line if line.endswith(b"\n") else line + b"\n")
            else:
                writer.write(problem)
        guarded.feed_eof()

    # The loop keeps only a weak reference to tasks: hold this one, or it is collected mid-run. The
    # reader holds it, so it lives as long as the reader.
    pump_task = asyncio.get_running_loop().create_task(pump())
    guarded.pump_task = pump_task  # type: ignore[attr-defined]  # an attribute StreamReader does not declare
    return guarded
