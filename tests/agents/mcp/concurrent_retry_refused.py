"""A conforming MCP server that refuses a call whose key is still in flight ("in progress,
retry later", as Stripe answers 409) and executes each key once.

The concurrency case accepts the refusal: the reference's outcomes.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

import anyio

from conformance.reference.mcp.store import HeartbeatError, HeartbeatStore
from conformance.reference.mcp.server import main


class Store(HeartbeatStore):
    def __init__(self, **options):
        super().__init__(**options)
        self.in_flight = set()

    async def call(self, caller, args):
        done = self.replay(caller, args)
        if done is not None:
            return done
        key = (caller, args["sessionId"], args["idempotencyKey"])
        if key in self.in_flight:
            raise HeartbeatError("a call with this idempotencyKey is in progress: retry later")
        self.in_flight.add(key)
        try:
            await anyio.sleep(0.05)
            return self.execute(caller, args)
        finally:
            self.in_flight.discard(key)


if __name__ == "__main__":
    main(store_factory=Store)
