"""Broken MCP server: its cursor names the session and the position it continues, and a page
continues the cursor's session, whichever session the heartbeat is for.

Caught by heartbeat.instructions.cursor-other-session.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.store import HeartbeatStore
from conformance.reference.mcp.server import main


class Store(HeartbeatStore):
    def page(self, session, cursor):
        if cursor is not None and "|" in cursor:
            sid, _, cursor = cursor.partition("|")
            session = self.sessions.get(sid, session)
        page, after = super().page(session, cursor)
        sid = next(s for s, known in self.sessions.items() if known is session)
        return page, (f"{sid}|{after}" if after else None)


if __name__ == "__main__":
    main(store_factory=Store)
