"""A conforming MCP server that marks the answer to a retry as a replay ("replayed": true, as
Stripe's Idempotent-Replayed header does) and stamps each answer with the time it was sent.

The retry cases compare what an execution decides (state, instructions, per-call ids), not every
byte: the reference's outcomes.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

import time

from conformance.reference.mcp.store import HeartbeatStore
from conformance.reference.mcp.server import main


class Store(HeartbeatStore):
    def heartbeat(self, caller, args):
        done = self.replay(caller, args)
        result = {**done, "replayed": True} if done is not None else self.execute(caller, args)
        return {**result, "respondedAt": time.time()}


if __name__ == "__main__":
    main(store_factory=Store)
