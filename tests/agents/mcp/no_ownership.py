"""Broken MCP server: lets any caller heartbeat any session (and read its instructions).

Caught by heartbeat.access.other-caller-rejected.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.store import HeartbeatError, HeartbeatStore, INPUT_SCHEMA, Session
from conformance.reference.mcp.server import main


class Store(HeartbeatStore):
    def may_access(self, caller, session):
        return True


if __name__ == "__main__":
    main(store_factory=Store)
