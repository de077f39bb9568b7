"""Conforming MCP server: holds at most 100 pending instructions per session and refuses the
next one to the operator (HTTP 413 from its operator endpoint) instead of dropping any.

Defeats the assumption that a queue takes every instruction: heartbeat.volume.many-pending
expects only the instructions the operator hook accepted.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.server import main
from conformance.reference.mcp.store import HeartbeatError, HeartbeatStore

LIMIT = 100


class Store(HeartbeatStore):
    def enqueue(self, session_id, text):
        session = self.sessions.get(session_id)
        pending = self.pending(session) if session else self.waiting.get(session_id, [])
        if len(pending) >= LIMIT:
            raise HeartbeatError(f"the session already has {LIMIT} pending instructions")
        return super().enqueue(session_id, text)


if __name__ == "__main__":
    main(store_factory=Store)
