"""Broken MCP server: accepts a heartbeat without sessionId (files it under a default session).

Caught by heartbeat.args.missing-session-id.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.store import HeartbeatError, HeartbeatStore, INPUT_SCHEMA, Session
from conformance.reference.mcp.server import main


class Store(HeartbeatStore):
    def heartbeat(self, caller, args):
        return super().heartbeat(caller, {"sessionId": "default", **args})


if __name__ == "__main__":
    main(store_factory=Store)
