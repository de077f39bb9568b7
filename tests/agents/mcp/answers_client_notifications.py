"""Broken MCP server, written by hand on stdio: its loop answers every message that is not a
request it knows with a -32601 error, notifications included (notifications/initialized,
notifications/cancelled), under id null.

Caught by heartbeat.wire.client-notifications-unanswered (MUST): these are frames every MCP client
sends, and JSON-RPC's server MUST NOT reply to a notification. The old suite (265e177) certified
it: its only notification case sent a tools/call without an id, a robustness finding.
"""

from _raw import serve, tool_result

from conformance.reference.mcp.store import INPUT_SCHEMA

serve(
    "answers-client-notifications",
    [{"name": "session_heartbeat", "inputSchema": INPUT_SCHEMA}],
    tool_result,
    answer_notifications=True,
)
