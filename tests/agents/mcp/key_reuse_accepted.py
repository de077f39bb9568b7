"""Broken MCP server: answers a reused key with other arguments with the first result, silently.

Caught by heartbeat.idempotency.key-reuse-different-args (warn).
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.store import HeartbeatError, HeartbeatStore, INPUT_SCHEMA, Session
from conformance.reference.mcp.server import main


class Store(HeartbeatStore):
    def heartbeat(self, caller, args):
        self.validate(args)
        done = self.results.get((caller, args["sessionId"], args["idempotencyKey"]))
        if done is not None:
            return done[1]
        return super().heartbeat(caller, args)


if __name__ == "__main__":
    main(store_factory=Store)
