"""The reference MCP server with the `session_heartbeat` tool, on the official MCP Python SDK."""
