"""Broken MCP server: its inputSchema has no additionalProperties: false (what the SDK's decorator API publishes).

Caught by heartbeat.schema.closed.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.store import HeartbeatError, HeartbeatStore, INPUT_SCHEMA, Session
from conformance.reference.mcp.server import main

SCHEMA = {k: v for k, v in INPUT_SCHEMA.items() if k != "additionalProperties"}

if __name__ == "__main__":
    main(input_schema=SCHEMA)
