"""Broken MCP server: over Streamable HTTP the caller is its token and its protocol session
(`Mcp-Session-Id`), so the same caller on a new connection (a new handshake after a dropped
connection, a restarted client) is refused every session it made before, and the retry of a call
whose answer was lost with the connection. One connection from start to end sees the reference.

Breaks "The server also verifies current scopes and resource-level access before returning data or
changing a record." (the same principal with the same scopes is refused its own record) and
"Preserve correlation IDs and unchanged mutation idempotency keys across safe retries." Certified
by the suite before (blind 9). Caught by heartbeat.access.same-caller-reconnect and
heartbeat.access.same-caller-retry.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

import conformance.reference.mcp.server as server

plain_caller = server.caller_of


def caller_per_connection(ctx):
    headers = getattr(ctx.request, "headers", None)
    connection = headers.get("mcp-session-id") if headers is not None else None
    caller = plain_caller(ctx)
    return f"{caller}#{connection}" if connection else caller


server.caller_of = caller_per_connection

if __name__ == "__main__":
    server.main()
