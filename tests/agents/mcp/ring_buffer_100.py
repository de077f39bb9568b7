"""Broken MCP server: keeps a session's pending instructions in a 100-entry ring buffer (a
``deque(maxlen=100)``), so the 101st instruction enqueued before the agent's next heartbeat
silently pushes out the oldest. The operator is told each one was taken.

Caught by heartbeat.volume.many-pending: of 120 instructions enqueued at once, the oldest are
never delivered. The old suite (856482f) certified it: it never had more than a handful pending.
"""

import collections
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.server import main
from conformance.reference.mcp.store import HeartbeatStore

CAPACITY = 100


class Store(HeartbeatStore):
    def enqueue(self, session_id, text):
        iid = super().enqueue(session_id, text)
        for queue in (
            self.waiting.get(session_id),
            getattr(self.sessions.get(session_id), "instructions", None),
        ):
            if queue is not None and len(queue) > CAPACITY:
                kept = collections.deque(queue, maxlen=CAPACITY)
                queue[:] = list(kept)
        return iid


if __name__ == "__main__":
    main(store_factory=Store)
