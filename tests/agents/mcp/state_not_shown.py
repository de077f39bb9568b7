"""A conforming MCP server whose results show no session state (only instructions and a cursor).

What only the state shows is not testable (never passed); the cases with another channel (a
pending instruction) still conclude.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.store import STATE_FIELDS, HeartbeatStore
from conformance.reference.mcp.server import main


class Store(HeartbeatStore):
    def apply(self, session, sid, args):
        result = super().apply(session, sid, args)
        for name in STATE_FIELDS:
            del result[name]
        return result


if __name__ == "__main__":
    main(store_factory=Store)
