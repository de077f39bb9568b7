"""Broken MCP server (run with --session-ttl): a session is loaded, which refreshes its idle
timer, before the caller's access to it is checked, so another caller's refused heartbeat keeps
it alive.

Caught by heartbeat.twins.idle-expiry (rule other-caller).
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.server import main
from conformance.reference.mcp.store import HeartbeatStore


class Store(HeartbeatStore):
    def may_access(self, caller, session):
        session.last_used = self.clock()
        return super().may_access(caller, session)


if __name__ == "__main__":
    main(store_factory=Store)
