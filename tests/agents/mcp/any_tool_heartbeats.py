"""Broken MCP server: runs the heartbeat for any tool name it is called with. Its router sends
every ``tools/call`` to the one handler it has (written when the heartbeat was its only tool), so
``session_heartbeat_v0``, a typo or any other name reports status and acknowledges instructions.

Caught by heartbeat.surface.twin-sequences#unlisted: a tool name the server does not list is
answered with a result, and the twin it named reads the status it carried. The old suite
(856482f) certified it: nothing called a tool the server does not list.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.server import TOOL, main


async def one_handler(ctx, call_next):
    if ctx.method == "tools/call" and isinstance(ctx.params, dict):
        ctx.params["name"] = TOOL
    return await call_next(ctx)


if __name__ == "__main__":
    main(middleware=(one_handler,))
