"""Broken MCP server: reads an empty acknowledgedInstructionIds as "I have processed everything you
sent me", once the call's page is built: every instruction delivered so far, this answer's
included, is acknowledged, so a delivered one never comes again and one enqueued after the last
delivery comes once, in that answer, and is then taken as processed.

Caught by heartbeat.boundary.empty-ack-list: its twin, whose heartbeat leaves the field out,
gets its instruction again.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.server import main
from conformance.reference.mcp.store import HeartbeatStore


class Store(HeartbeatStore):
    def __init__(self, **options):
        super().__init__(**options)
        self.delivered = {}

    def apply(self, session, sid, args):
        result = super().apply(session, sid, args)
        delivered = self.delivered.setdefault(sid, set())
        delivered.update(item["id"] for item in result["instructions"])
        if args.get("acknowledgedInstructionIds") == []:
            session.acknowledged.update(delivered)
        return result


if __name__ == "__main__":
    main(store_factory=Store)
