"""Broken MCP server: answers initialize with the protocolVersion the client asked for, whatever
it is (a compatibility shim meant to "never refuse a client"). A client that asks for a revision
the server does not speak believes the server speaks it.

Caught by heartbeat.wire.version-negotiation: initialize asking for 1999-01-01 is answered
1999-01-01. The old suite (856482f) certified it: it only ever asked for a revision the server
supports.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.server import main


async def echo_version(ctx, call_next):
    result = await call_next(ctx)
    asked = (ctx.params or {}).get("protocolVersion") if ctx.method == "initialize" else None
    if isinstance(asked, str):
        if isinstance(result, dict):
            result["protocolVersion"] = asked
        else:
            result.protocol_version = asked
    return result


if __name__ == "__main__":
    main(middleware=(echo_version,))
