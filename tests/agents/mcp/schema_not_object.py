"""Broken MCP server, written by hand on stdio (the SDK refuses to publish such a tool): the
tool's inputSchema is not the JSON Schema of an object.

Caught by heartbeat.tools.listed.
"""

import json

from _raw import heartbeat, serve


def call(arguments):
    result, error = heartbeat(arguments)
    return error or {"content": [{"type": "text", "text": json.dumps(result)}], "structuredContent": result}


serve("string-schema", [{"name": "session_heartbeat", "inputSchema": {"type": "string"}}], call)
