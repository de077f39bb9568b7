"""Broken MCP server, written by hand on stdio: a table of calls in flight (for cancellation and
a clean shutdown) renumbers each request with a counter of its own and maps the answer back with
``table.pop(n, None) or n``. A request whose id is 0 is answered under the internal number; every
other id, negative and string ones too, comes back as sent. Blind round 23's mcp_idremap.

Caught by heartbeat.wire.request-ids: a heartbeat sent under id 0 is answered under another id.
aee9048 certified it: the ids it sent were a string and a large number.
"""

import itertools
import json

from _raw import heartbeat, serve

from conformance.reference.mcp.store import INPUT_SCHEMA

INTERNAL = itertools.count(1)
IN_FLIGHT: dict[int, object] = {}


def call(arguments):
    result, error = heartbeat(arguments)
    if error:
        return error
    return {"content": [{"type": "text", "text": json.dumps(result)}], "structuredContent": result}


def renumbered(rid):
    n = next(INTERNAL)
    IN_FLIGHT[n] = rid
    return IN_FLIGHT.pop(n, None) or n


serve("renumbering", [{"name": "session_heartbeat", "inputSchema": INPUT_SCHEMA}], call, reply_id=renumbered)
