"""A conforming MCP server whose sessions are opened by its platform, not by a heartbeat: a
heartbeat for a session id it never issued is refused ("session not found or not accessible").
Its platform issues none to the suite (HEARTBEAT_ISSUED_SESSIONS, space-separated, is empty).

The spec never says a heartbeat opens a session, and "the server also verifies current scopes and
resource-level access": the suite once took every refused made-up session for a broken valid call
(a failure). Now every case that needs such a session is not testable, saying so.
"""

import os
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.server import main
from conformance.reference.mcp.store import NOT_ACCESSIBLE, HeartbeatError, HeartbeatStore

ISSUED = set(os.environ.get("HEARTBEAT_ISSUED_SESSIONS", "").split())


class Store(HeartbeatStore):
    def execute(self, caller, args):
        if args["sessionId"] not in self.sessions and args["sessionId"] not in ISSUED:
            raise HeartbeatError(NOT_ACCESSIBLE)
        return super().execute(caller, args)


if __name__ == "__main__":
    main(store_factory=Store)
