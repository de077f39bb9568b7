"""Broken MCP server: trims _meta from every result it sends in the stateless era (MCP
2026-07-28), the server's identity with it; the SDK stamps io.modelcontextprotocol/serverInfo
there, which servers SHOULD send on every response.

Caught by heartbeat.wire.server-identity (a warning).
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from conformance.reference.mcp.server import main


async def trim_results(ctx, call_next):
    result = await call_next(ctx)
    if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS and isinstance(result, dict):
        result = {k: v for k, v in result.items() if k != "_meta"}
    return result


if __name__ == "__main__":
    main(middleware=(trim_results,))
