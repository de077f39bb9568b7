"""Broken MCP server: lists its tool under another name (no session_heartbeat).

Caught by heartbeat.tools.listed (unimplemented).
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.store import HeartbeatError, HeartbeatStore, INPUT_SCHEMA, Session
from conformance.reference.mcp.server import main

if __name__ == "__main__":
    main(tool_name="report_heartbeat")
