"""A conforming MCP server whose instruction page is an object: {"instructions": {"items": [...],
"nextCursor": ...}} (the spec gives no result shape).

The suite once took the object for a broken list (not testable: a failure) while the same page
under another key was merely not found; it now reads the list and the cursor inside it.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.server import main
from conformance.reference.mcp.store import HeartbeatStore


class Store(HeartbeatStore):
    def apply(self, session, sid, args):
        result = super().apply(session, sid, args)
        page = {"items": result.pop("instructions"), "nextCursor": result.pop("nextCursor")}
        result["instructions"] = page
        return result


if __name__ == "__main__":
    main(store_factory=Store)
