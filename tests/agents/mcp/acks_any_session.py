"""Broken MCP server: applies acknowledgements by instruction id alone, in whichever session
they were sent ("UPDATE instructions SET acked WHERE id IN …" without the session).

Caught by heartbeat.instructions.ack-other-session.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.store import HeartbeatStore
from conformance.reference.mcp.server import main


class Store(HeartbeatStore):
    def acknowledge(self, session, ids):
        for other in self.sessions.values():
            if other.owner == session.owner:
                other.acknowledged.update(ids)


if __name__ == "__main__":
    main(store_factory=Store)
