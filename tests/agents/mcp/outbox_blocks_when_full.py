"""Conforming MCP server, written by hand on stdio: its replies go through an outbox of 64 lines
that a thread writes to stdout; a reply that finds it full waits for room, so a host that stops
reading stalls the server (and its reads of stdin) until it reads again, and loses nothing.
"""

from _raw import bounded_outbox, serve, tool_result

from conformance.reference.mcp.store import INPUT_SCHEMA

serve(
    "outbox-blocks",
    [{"name": "session_heartbeat", "inputSchema": INPUT_SCHEMA}],
    tool_result,
    outbox=bounded_outbox(64, drop=False),
)
