"""Broken MCP server: delivers each instruction once and drops it, acknowledged or not.

Caught by heartbeat.instructions.unacked-redelivered.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.store import HeartbeatError, HeartbeatStore, INPUT_SCHEMA, Session
from conformance.reference.mcp.server import main


class Store(HeartbeatStore):
    def page(self, session, cursor):
        page, next_cursor = super().page(session, cursor)
        session.acknowledged.update(i.id for i in page)
        return page, next_cursor


if __name__ == "__main__":
    main(store_factory=Store)
