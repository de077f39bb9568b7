"""Broken MCP server: a heartbeat that acknowledges nothing marks its page delivered after a
storage round trip, writing back the session's acknowledged set as it read it before: an
acknowledgement that landed in between is undone, and the instruction comes again.

Caught by heartbeat.overlap.concurrent-acks (a plain heartbeat races the acknowledging ones).
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

import anyio

from conformance.reference.mcp.server import main
from conformance.reference.mcp.store import HeartbeatStore


class Store(HeartbeatStore):
    async def call(self, caller, args):
        if args.get("acknowledgedInstructionIds") or not isinstance(args.get("sessionId"), str):
            return self.heartbeat(caller, args)
        session = self.sessions.get(args["sessionId"])
        loaded = set(session.acknowledged) if session is not None else set()
        await anyio.sleep(0.2)
        done = self.heartbeat(caller, args)
        if session is not None and session.owner == caller:
            session.acknowledged = loaded
        return done


if __name__ == "__main__":
    main(store_factory=Store)
