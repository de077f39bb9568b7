"""Broken MCP server (SHOULD): a reused key with other arguments is refused only when the new
progress is higher, so 10 then 90 is an error and 90 then 10 silently answers with the first result.

Caught by heartbeat.idempotency.key-reuse-different-args (warn), which tries both orders.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.store import HeartbeatStore
from conformance.reference.mcp.server import main


class Store(HeartbeatStore):
    def replay(self, caller, args):
        sid, key = args.get("sessionId"), args.get("idempotencyKey")
        done = self.results.get((caller, sid, key)) if isinstance(sid, str) and isinstance(key, str) else None
        if done is not None and args.get("progressPercent", 0) < done[1].get("progressPercent", 0):
            self.validate(args)
            return done[1]
        return super().replay(caller, args)


if __name__ == "__main__":
    main(store_factory=Store)
