"""Broken MCP server: an acknowledgement empties the session's whole queue, so an instruction
enqueued and never delivered is lost with the one acknowledged.

Caught by heartbeat.instructions.acked-never-again, which enqueues a second instruction before
the acknowledgement and requires it to come (one delivered already may not: redelivery is a MAY).
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.server import main
from conformance.reference.mcp.store import HeartbeatStore


class Store(HeartbeatStore):
    def acknowledge(self, session, ids):
        if ids:
            session.acknowledged.update(i.id for i in session.instructions)


if __name__ == "__main__":
    main(store_factory=Store)
