"""Broken MCP server: ignores acknowledgedInstructionIds: acknowledged instructions keep coming.

Caught by heartbeat.instructions.acked-never-again.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.store import HeartbeatError, HeartbeatStore, INPUT_SCHEMA, Session
from conformance.reference.mcp.server import main


class Store(HeartbeatStore):
    def acknowledge(self, session, ids):
        pass


if __name__ == "__main__":
    main(store_factory=Store)
