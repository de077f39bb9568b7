"""Broken MCP server: keeps one instruction queue for all sessions of a caller.

Caught by heartbeat.instructions.per-session.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.store import HeartbeatError, HeartbeatStore, INPUT_SCHEMA, Session
from conformance.reference.mcp.server import main


class Store(HeartbeatStore):
    def pending(self, session):
        everything = [i for s in self.sessions.values() if s.owner == session.owner for i in s.instructions]
        return [i for i in sorted(everything, key=lambda i: i.seq) if i.id not in session.acknowledged]


if __name__ == "__main__":
    main(store_factory=Store)
