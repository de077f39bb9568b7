"""Broken MCP server: applies another caller's acknowledgements and status before rejecting the call.

Caught by heartbeat.access.other-caller-no-change.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.store import HeartbeatError, HeartbeatStore, INPUT_SCHEMA, Session
from conformance.reference.mcp.server import main


class Store(HeartbeatStore):
    def heartbeat(self, caller, args):
        session = self.sessions.get(sid) if isinstance(sid := args.get("sessionId"), str) else None
        if session is not None and session.owner != caller:
            self.acknowledge(session, list(args.get("acknowledgedInstructionIds", [])))
            if "status" in args:
                session.state["status"] = args["status"]
        return super().heartbeat(caller, args)


if __name__ == "__main__":
    main(store_factory=Store)
