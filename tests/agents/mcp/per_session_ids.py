"""A conforming MCP server whose instruction ids count per session ("1", "2", … in every
session): ids are unique within a session only.

The isolation cases acknowledge one session's ids in another: the reference's outcomes.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.store import HeartbeatStore
from conformance.reference.mcp.server import main


class Store(HeartbeatStore):
    def enqueue(self, session_id, text):
        super().enqueue(session_id, text)
        session = self.sessions.get(session_id)
        queue = session.instructions if session else self.waiting[session_id]
        queue[-1].id = str(len(queue))
        return queue[-1].id


if __name__ == "__main__":
    main(store_factory=Store)
