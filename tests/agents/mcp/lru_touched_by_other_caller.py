"""Broken MCP server (run with --session-cap): a session is loaded through the cache (most
recently used) before the caller's access to it is checked, so another caller's refused
heartbeat keeps it in memory.

Caught by heartbeat.twins.session-cap (rule other-caller).
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.server import main
from conformance.reference.mcp.store import HeartbeatStore


class Store(HeartbeatStore):
    def may_access(self, caller, session):
        sid = next(s for s, found in self.sessions.items() if found is session)
        self.sessions[sid] = self.sessions.pop(sid)
        return super().may_access(caller, session)


if __name__ == "__main__":
    main(store_factory=Store)
