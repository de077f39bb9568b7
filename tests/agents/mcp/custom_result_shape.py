"""A conforming MCP server whose results put the instructions elsewhere: under /queue/items,
with the cursor at /queue/after. The suite needs --instructions-path /queue/items and
--cursor-path /queue/after for it; without them the instruction cases say so (not testable).
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.store import HeartbeatStore
from conformance.reference.mcp.server import main


class Store(HeartbeatStore):
    def apply(self, session, sid, args):
        result = super().apply(session, sid, args)
        result["queue"] = {"items": result.pop("instructions"), "after": result.pop("nextCursor")}
        return result


if __name__ == "__main__":
    main(store_factory=Store)
