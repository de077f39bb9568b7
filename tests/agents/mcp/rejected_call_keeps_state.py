"""Broken MCP server: when it rejects a call, it still keeps the call's status, progress and step
(a partial update: the fields that were fine are saved, the call is reported as failed).

Caught by heartbeat.args.rejected-changes-nothing.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.store import STATE_FIELDS, HeartbeatError, HeartbeatStore
from conformance.reference.mcp.server import main


class Store(HeartbeatStore):
    def heartbeat(self, caller, args):
        try:
            return super().heartbeat(caller, args)
        except HeartbeatError:
            session = self.sessions.get(sid) if isinstance(sid := args.get("sessionId"), str) else None
            if session is not None and session.owner == caller:
                session.state.update({k: v for k, v in args.items() if k in STATE_FIELDS})
            raise


if __name__ == "__main__":
    main(store_factory=Store)
