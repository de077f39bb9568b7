"""A conforming MCP server that runs one call at a time, each taking 30 ms (one worker, a slow
store): calls sent together are answered one after the other.

The overlap cases judge only what every order allows, never how long calls took or whether they
ran side by side: the reference's outcomes.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

import anyio

from conformance.reference.mcp.server import main
from conformance.reference.mcp.store import HeartbeatStore


class Store(HeartbeatStore):
    def __init__(self, **options):
        super().__init__(**options)
        self.worker = anyio.Lock()

    async def call(self, caller, args):
        async with self.worker:
            await anyio.sleep(0.03)
            return self.heartbeat(caller, args)


if __name__ == "__main__":
    main(store_factory=Store)
