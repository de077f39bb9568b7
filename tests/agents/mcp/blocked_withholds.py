"""Broken MCP server: a heartbeat that reports ``status: "blocked"`` gets no instructions (its author
reasoned that a blocked agent cannot act on them; they stay queued until a heartbeat reports
another status). An agent blocked on the human never receives the instruction that would unblock
it. Breaks "Pending human instructions are delivered automatically". Caught by
heartbeat.instructions.any-status; the suite of 856482f certified it (found by the sixth blind
round).
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.server import main
from conformance.reference.mcp.store import HeartbeatStore


class Store(HeartbeatStore):
    def apply(self, session, sid, args):
        self.blocked = args.get("status") == "blocked"
        return super().apply(session, sid, args)

    def page(self, session, cursor):
        if getattr(self, "blocked", False):
            return [], None
        return super().page(session, cursor)


if __name__ == "__main__":
    main(store_factory=Store)
