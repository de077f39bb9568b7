"""Conforming MCP server: its newest handshake revision is 2025-03-26, so initialize asking for any
other revision is answered 2025-03-26 (an older one it supports), not the latest the SDK knows.

Defeats the assumption that a server answers the revision the suite asks for, or the newest one:
heartbeat.wire.version-negotiation accepts any revision of the handshake era but the unsupported
one asked for.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.server import main

NEWEST = "2025-03-26"


async def older_version(ctx, call_next):
    result = await call_next(ctx)
    if ctx.method == "initialize":
        if isinstance(result, dict):
            result["protocolVersion"] = NEWEST
        else:
            result.protocol_version = NEWEST
    return result


if __name__ == "__main__":
    main(middleware=(older_version,))
