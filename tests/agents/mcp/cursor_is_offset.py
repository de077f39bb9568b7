"""Broken MCP server: its cursor is an offset into the pending instructions, so acknowledging a
page in the call that follows its cursor shifts what is pending and the next page skips as many.

Caught by heartbeat.instructions.model-based (only the sequences acknowledge each page while
following the cursor: the paging case follows cursors without acknowledging).
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.store import HeartbeatError, HeartbeatStore
from conformance.reference.mcp.server import main


class Store(HeartbeatStore):
    def page(self, session, cursor):
        if cursor is not None and not cursor.isdigit():
            raise HeartbeatError("invalid instructionCursor")
        start = int(cursor or 0)
        pending = self.pending(session)
        page = pending[start : start + self.page_size]
        end = start + len(page)
        return page, (str(end) if len(pending) > end else None)


if __name__ == "__main__":
    main(store_factory=Store)
