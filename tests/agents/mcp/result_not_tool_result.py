"""Broken MCP server, written by hand on stdio: its tools/call result has no `content` list
(only structuredContent), which is not an MCP CallToolResult.

Caught by heartbeat.result.shape.
"""

from _raw import heartbeat, serve

from conformance.reference.mcp.store import INPUT_SCHEMA


def call(arguments):
    result, error = heartbeat(arguments)
    return error or {"structuredContent": result}


serve("no-content", [{"name": "session_heartbeat", "inputSchema": INPUT_SCHEMA}], call)
