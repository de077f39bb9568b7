"""Broken MCP server: answers a retry with the first result, but applies its arguments again.

Caught by heartbeat.idempotency.not-applied-twice.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.store import HeartbeatError, HeartbeatStore, INPUT_SCHEMA, Session
from conformance.reference.mcp.server import main


class Store(HeartbeatStore):
    def heartbeat(self, caller, args):
        sid, key = args.get("sessionId"), args.get("idempotencyKey")
        done = self.results.get((caller, sid, key)) if isinstance(sid, str) and isinstance(key, str) else None
        result = super().heartbeat(caller, args)
        session = self.sessions.get(args["sessionId"])  # validated by now
        if done is not None and session is not None:
            session.state.update(
                {k: v for k, v in args.items() if k in ("status", "progressPercent", "currentStep")}
            )
        return result


if __name__ == "__main__":
    main(store_factory=Store)
