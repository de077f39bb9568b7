"""Broken MCP server (run with --session-ttl): every call its owner makes keeps a session alive,
before the call is validated, so a rejected call refreshes the idle timer ("touch on request",
as a session middleware does).

Caught by heartbeat.twins.idle-expiry (rule rejected): the twin that got only a rejected call
outlives its control.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.server import main
from conformance.reference.mcp.store import HeartbeatStore


class Store(HeartbeatStore):
    def replay(self, caller, args):
        session = self.sessions.get(sid) if isinstance(sid := args.get("sessionId"), str) else None
        if session is not None and session.owner == caller:
            session.last_used = self.clock()
        return super().replay(caller, args)


if __name__ == "__main__":
    main(store_factory=Store)
