"""Broken MCP server (run with --request-limit): the rate limiter counts every call for a session
that reaches the tool, retries answered from their first result included, so a client that
retries safely is refused early.

Caught by heartbeat.twins.request-limit (rule retry).
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.server import main
from conformance.reference.mcp.store import HeartbeatStore


class Store(HeartbeatStore):
    def replay(self, caller, args):
        done = super().replay(caller, args)
        session = self.sessions.get(args["sessionId"])
        if done is not None and session is not None:
            session.calls.append(self.clock())
        return done


if __name__ == "__main__":
    main(store_factory=Store)
