"""Broken MCP server: once every instruction of a session was acknowledged, later instructions
for it are lost.

Caught by heartbeat.instructions.model-based, and by heartbeat.overlap.enqueue-in-flight, whose
acknowledging round acknowledges the one instruction its session had and then enqueues another.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.store import HeartbeatStore
from conformance.reference.mcp.server import main


class Store(HeartbeatStore):
    def enqueue(self, session_id, text):
        session = self.sessions.get(session_id)
        if session is not None and session.acknowledged and not self.pending(session):
            return "dropped"
        return super().enqueue(session_id, text)


if __name__ == "__main__":
    main(store_factory=Store)
