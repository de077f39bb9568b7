"""A conforming MCP server whose continuation cursor comes back under a name the suite does not
know ("continuationHandle"): the spec never names the result field the cursor is in. Sent back as
instructionCursor it brings the next page, so the instructions the suite did not page to are
not lost: not testable (pass --cursor-path), never failed."""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.server import main
from conformance.reference.mcp.store import HeartbeatStore


class Store(HeartbeatStore):
    def apply(self, session, sid, args):
        result = super().apply(session, sid, args)
        cursor = result.pop("nextCursor", None)
        if cursor is not None:
            result["continuationHandle"] = cursor
        return result


if __name__ == "__main__":
    main(store_factory=Store)
