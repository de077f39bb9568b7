"""Broken MCP server: looks the key up, then executes and records the call after a database
round trip, holding nothing meanwhile: a retry sent while the first call runs is executed too.

Caught by heartbeat.idempotency.concurrent-retry (only: a retry after the answer is replayed).
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

import anyio

from conformance.reference.mcp.store import HeartbeatStore
from conformance.reference.mcp.server import main


class Store(HeartbeatStore):
    async def call(self, caller, args):
        done = self.replay(caller, args)
        if done is not None:
            return done
        await anyio.sleep(0.05)
        return self.execute(caller, args)


if __name__ == "__main__":
    main(store_factory=Store)
