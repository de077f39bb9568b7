"""Broken MCP server: instructions the operator enqueued for a session no heartbeat has named yet
are accepted (the operator is told they are queued), but the session's first heartbeat creates it
with an empty queue instead of taking them over: they are lost. Breaks "Pending human instructions
are delivered automatically". Caught by heartbeat.instructions.any-status; the suite of 856482f
certified it (found by the sixth blind round).
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.server import main
from conformance.reference.mcp.store import HeartbeatStore


class Store(HeartbeatStore):
    def execute(self, caller, args):
        sid = args.get("sessionId")
        if isinstance(sid, str) and sid not in self.sessions:
            self.read_spool()
            self.waiting.pop(sid, None)
        return super().execute(caller, args)


if __name__ == "__main__":
    main(store_factory=Store)
