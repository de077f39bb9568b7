"""A conforming MCP server that delivers each instruction once: delivered, it is dropped,
acknowledged or not.

"Unacknowledged instructions may be redelivered until the agent acknowledges them" is a MAY, and
"never" is one of its paths: heartbeat.instructions.unacked-redelivered must not require a
redelivery, and the cases whose controls would rely on one must not fail with it.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.server import main
from conformance.reference.mcp.store import HeartbeatStore


class Store(HeartbeatStore):
    def page(self, session, cursor):
        page, next_cursor = super().page(session, cursor)
        session.acknowledged.update(i.id for i in page)
        return page, next_cursor


if __name__ == "__main__":
    main(store_factory=Store)
