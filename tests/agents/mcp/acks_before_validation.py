"""Broken MCP server: applies a call's acknowledgements before it validates the call, so a call
it rejects still acknowledges.

Caught by heartbeat.args.rejected-changes-nothing.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.store import HeartbeatStore
from conformance.reference.mcp.server import main


class Store(HeartbeatStore):
    def heartbeat(self, caller, args):
        session = self.sessions.get(sid) if isinstance(sid := args.get("sessionId"), str) else None
        acks = args.get("acknowledgedInstructionIds")
        if session is not None and session.owner == caller and isinstance(acks, list):
            self.acknowledge(session, [a for a in acks if isinstance(a, str)])
        return super().heartbeat(caller, args)


if __name__ == "__main__":
    main(store_factory=Store)
