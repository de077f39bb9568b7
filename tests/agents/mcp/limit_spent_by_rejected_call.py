"""Broken MCP server (run with --request-limit): its request meter counts every call made for a
session, the ones it rejects as invalid too, so a rejected call spends the session's allowance.

Caught by heartbeat.twins.request-limit (rule rejected).
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.server import main
from conformance.reference.mcp.store import HeartbeatError, HeartbeatStore


class Store(HeartbeatStore):
    def validate(self, args):
        try:
            super().validate(args)
        except HeartbeatError:
            sid = args.get("sessionId")
            session = self.sessions.get(sid) if isinstance(sid, str) else None
            if session is not None:
                session.calls.append(self.clock())
            raise


if __name__ == "__main__":
    main(store_factory=Store)
