"""A conforming MCP server whose continuation cursor comes back as "next_cursor": the spec never
names the result field the cursor is in.

The suite once stopped paging at the first page and called the rest lost (a failure); it now
knows the common spellings, and where instructions go missing while a result carries a cursor-like
field it does not follow, the case is not testable (pass --cursor-path), not failed.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.server import main
from conformance.reference.mcp.store import HeartbeatStore


class Store(HeartbeatStore):
    def apply(self, session, sid, args):
        result = super().apply(session, sid, args)
        result["next_cursor"] = result.pop("nextCursor")
        return result


if __name__ == "__main__":
    main(store_factory=Store)
