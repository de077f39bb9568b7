"""Broken MCP server, written by hand on stdio: its replies go through an outbox of 64 lines
that a thread writes to stdout, so that a host that stops reading can never stall the server; a
reply that finds the outbox full is dropped (a line on stderr says so). A client that reads
promptly never fills it; a host busy elsewhere for a moment loses answers, against JSON-RPC's
"the Server MUST reply with a Response".

Caught by heartbeat.wire.slow-reader. The suite of d4be4d9 certified it (blind round 16): it
always read at once.
"""

from _raw import bounded_outbox, serve, tool_result

from conformance.reference.mcp.store import INPUT_SCHEMA

serve(
    "outbox-drops",
    [{"name": "session_heartbeat", "inputSchema": INPUT_SCHEMA}],
    tool_result,
    outbox=bounded_outbox(64, drop=True),
)
