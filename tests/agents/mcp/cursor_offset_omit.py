"""Broken MCP server: cursor_is_offset (the cursor is an offset into what is pending, so
acknowledging a page while following its cursor skips as many), in results that omit
"instructions" and "nextCursor" when they are empty.

Caught by heartbeat.instructions.model-based (rule cursor-skip). The suite once read an omitted list
as "no list found" and the sequences were not testable: a pass on the certificate.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.server import main
from conformance.reference.mcp.store import HeartbeatError, HeartbeatStore


class Store(HeartbeatStore):
    def page(self, session, cursor):
        if cursor is not None and not cursor.isdigit():
            raise HeartbeatError("invalid instructionCursor")
        start = int(cursor or 0)
        pending = self.pending(session)
        page = pending[start : start + self.page_size]
        end = start + len(page)
        return page, (str(end) if len(pending) > end else None)

    def apply(self, session, sid, args):
        result = super().apply(session, sid, args)
        return {k: v for k, v in result.items() if v not in (None, [])}


if __name__ == "__main__":
    main(store_factory=Store)
