"""Broken MCP server: reads an empty acknowledgedInstructionIds as "acknowledge everything"
(`if ids is not None and not ids: ack all`), before it builds the page: an instruction enqueued
and never delivered is lost.

Caught by heartbeat.boundary.empty-ack-list.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.server import main
from conformance.reference.mcp.store import HeartbeatStore


class Store(HeartbeatStore):
    def apply(self, session, sid, args):
        if args.get("acknowledgedInstructionIds") == []:
            session.acknowledged.update(i.id for i in session.instructions)
        return super().apply(session, sid, args)


if __name__ == "__main__":
    main(store_factory=Store)
