"""Broken MCP server: never puts pending instructions in its results.

Caught by heartbeat.instructions.delivered.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.store import HeartbeatError, HeartbeatStore, INPUT_SCHEMA, Session
from conformance.reference.mcp.server import main


class Store(HeartbeatStore):
    def page(self, session, cursor):
        return [], None


if __name__ == "__main__":
    main(store_factory=Store)
