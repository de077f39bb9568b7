"""Broken MCP server: takes an empty idempotencyKey for none (`if key:` before the lookup), so a
retry under "" is executed again.

Caught by heartbeat.boundary.empty-key.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.server import main
from conformance.reference.mcp.store import HeartbeatStore


class Store(HeartbeatStore):
    def replay(self, caller, args):
        done = super().replay(caller, args)
        return done if args["idempotencyKey"] else None


if __name__ == "__main__":
    main(store_factory=Store)
