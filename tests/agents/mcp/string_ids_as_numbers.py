"""Broken MCP server, written by hand on stdio: keeps its requests in flight in a table keyed by
integers, so a string id is answered under the number its digits make, or under null when it has
none. Clients that number their requests (as the suite's harness does) never notice; a client
that sends string ids (UUIDs, "req-1") gets answers it cannot match.

Caught by heartbeat.wire.request-ids: a heartbeat sent under a string id is answered under null.
The old suite (856482f) certified it: every id it sent was a number.
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


def as_number(rid):
    if isinstance(rid, str):
        digits = "".join(c for c in rid if c.isdigit())
        return int(digits) if digits else None
    return rid


serve("int-ids", [{"name": "session_heartbeat", "inputSchema": INPUT_SCHEMA}], call, reply_id=as_number)
