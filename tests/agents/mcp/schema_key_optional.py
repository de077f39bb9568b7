"""Broken MCP server: its inputSchema requires only sessionId (idempotencyKey optional).

Caught by heartbeat.schema.required.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.store import HeartbeatError, HeartbeatStore, INPUT_SCHEMA, Session
from conformance.reference.mcp.server import main

SCHEMA = {**INPUT_SCHEMA, "required": ["sessionId"]}

if __name__ == "__main__":
    main(input_schema=SCHEMA)
