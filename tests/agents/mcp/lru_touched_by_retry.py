"""Broken MCP server (run with --session-cap): answering a retry from its first result reads the
session through the cache, which moves it to the most recently used end, so under memory
pressure a retried session outlives one used later.

Caught by heartbeat.twins.session-cap (rule retry).
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.server import main
from conformance.reference.mcp.store import HeartbeatStore


class Store(HeartbeatStore):
    def replay(self, caller, args):
        done = super().replay(caller, args)
        sid = args["sessionId"]
        if done is not None and sid in self.sessions:
            self.sessions[sid] = self.sessions.pop(sid)
        return done


if __name__ == "__main__":
    main(store_factory=Store)
