"""A conforming MCP server (run with --session-cap) that evicts the oldest session by creation,
whatever its use (first in, first out): an honest policy, under which nothing changes a session's
place, heartbeats included.

The memory twins compare it with its own policy: the reference's outcomes.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.server import main
from conformance.reference.mcp.store import HeartbeatStore


class Store(HeartbeatStore):
    def use(self, sid, session):
        session.last_used = self.clock()
        session.calls.append(session.last_used)


if __name__ == "__main__":
    main(store_factory=Store)
