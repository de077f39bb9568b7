"""Broken MCP server (MUST: "The server also verifies current scopes and resource-level access
before returning data or changing a record"): with a storage round trip (--io-delay), a call's lock
is keyed by caller and session id, so that one caller's slow round trips never hold up another's.
Two callers' first heartbeats for one new id, sent together, both find no session; the first
creates it, and the second is applied to it without another access check: caller B changes A's
record, reads A's step and instructions, and only its later heartbeats are refused.

Caught by heartbeat.access.first-calls-together. The suite of c9de112 certified it (blind round
21's mcp_owner_race did the same): its callers never sent a first heartbeat at the same moment.
"""

import pathlib
import sys

import anyio

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.server import main
from conformance.reference.mcp.store import HeartbeatStore


class Store(HeartbeatStore):
    async def call(self, caller, args):
        if not self.io_delay:
            return self.heartbeat(caller, args)
        async with self.lock(f"{caller}\x00{args.get('sessionId')}"):
            done = self.replay(caller, args)
            if done is not None:
                return done
            await anyio.sleep(self.io_delay)
            return self.execute(caller, args)


if __name__ == "__main__":
    main(store_factory=Store)
