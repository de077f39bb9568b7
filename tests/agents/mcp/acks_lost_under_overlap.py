"""Broken MCP server: each call loads the session's acknowledged set, waits on its storage, and
writes the set back with its own acknowledgements added, holding no lock: of two acknowledging
heartbeats in flight together, the one written last wins, and the other's acknowledgement is lost.

Caught by heartbeat.overlap.concurrent-acks (calls one at a time never show it).
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

import anyio

from conformance.reference.mcp.server import main
from conformance.reference.mcp.store import HeartbeatStore


class Store(HeartbeatStore):
    async def call(self, caller, args):
        self.validate(args)
        session = self.sessions.get(args["sessionId"])
        loaded = set(session.acknowledged) if session is not None else set()
        await anyio.sleep(0.2)  # the storage round trip
        if session is not None:
            session.acknowledged = loaded
        return self.heartbeat(caller, args)


if __name__ == "__main__":
    main(store_factory=Store)
