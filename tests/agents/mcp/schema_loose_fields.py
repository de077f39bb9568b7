"""Broken MCP server: its inputSchema drops progressPercent's maximum and adds 'done' to the status enum.

Caught by heartbeat.schema.properties.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.store import HeartbeatError, HeartbeatStore, INPUT_SCHEMA, Session
from conformance.reference.mcp.server import main

PROPS = dict(INPUT_SCHEMA["properties"])
PROPS["progressPercent"] = {"type": "number", "minimum": 0}
PROPS["status"] = {"enum": ["active", "waiting", "blocked", "done"]}
SCHEMA = {**INPUT_SCHEMA, "properties": PROPS}

if __name__ == "__main__":
    main(input_schema=SCHEMA)
