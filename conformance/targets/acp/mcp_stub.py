"""A minimal MCP server over stdio: the server ACP sessions created with parameters name.

Some of the suite's sessions are created with a non-empty `mcpServers` (AcpTarget.new_session
with ``varied``); an agent may start this server while it sets the session up. It runs as a plain
script on the suite's interpreter and imports nothing of the suite (the agent starts it in its own
directory and environment), answers `initialize`, `ping` and the list methods (nothing to list),
and refuses everything else. It writes nothing, and ends when the agent closes its stdin.
"""

from __future__ import annotations

import json
import sys
from typing import Any

MAX_LINE = 1 << 20  # a frame longer than this is dropped, read in bounded pieces: nothing here needs more

RESULTS: dict[str, dict[str, Any]] = {
    "ping": {},
    "tools/list": {"tools": []},
    "resources/list": {"resources": []},
    "prompts/list": {"prompts": []},
}


def answer(message: Any) -> dict[str, Any] | None:
    """The response to one frame (None for a notification or anything not a request)."""
    if not isinstance(message, dict) or "id" not in message or not isinstance(message.get("method"), str):
        return None
    method = message["method"]
    reply: dict[str, Any] = {"jsonrpc": "2.0", "id": message["id"]}
    if method == "initialize":
        params = message.get("params")
        asked = params.get("protocolVersion") if isinstance(params, dict) else None
        reply["result"] = {
            "protocolVersion": asked if isinstance(asked, str) and len(asked) < 64 else "2025-06-18",
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "session-status-conformance-stub", "version": "0.1.0"},
        }
    elif method in RESULTS:
        reply["result"] = RESULTS[method]
    else:
        reply["error"] = {"code": -32601, "message": "Method not found"}
    return reply


def main() -> None:
    stdin = sys.stdin.buffer
    while line := stdin.readline(MAX_LINE + 1):
        if len(line) > MAX_LINE:
            while line and not line.endswith(b"\n"):  # the rest of a line too long, in bounded pieces
                line = stdin.readline(MAX_LINE + 1)
            continue
        try:
            message = json.loads(line)
        except ValueError:
            continue
        reply = answer(message)
        if reply is not None:
            sys.stdout.write(json.dumps(reply) + "\n")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
