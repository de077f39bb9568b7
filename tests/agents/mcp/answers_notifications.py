"""Broken MCP server, written by hand on stdio: answers every tools/call it reads, one sent as a
notification (no id) too, under id null. Its loop skips notifications by method name
(``notifications/...``) rather than by the missing id.

Caught by heartbeat.wire.notification-unanswered, a robustness finding (no MCP client sends a
tools/call without an id): a failure under --strict. The old suite (856482f) certified it: it never
sent a tools/call without an id.
"""

from _raw import heartbeat, serve

from conformance.reference.mcp.store import INPUT_SCHEMA


def call(arguments):
    result, error = heartbeat(arguments)
    if error:
        return error
    return {
        "content": [{"type": "text", "text": __import__("json").dumps(result)}],
        "structuredContent": result,
    }


serve(
    "answers-notifications",
    [{"name": "session_heartbeat", "inputSchema": INPUT_SCHEMA}],
    call,
    answer_calls_without_id=True,
)
