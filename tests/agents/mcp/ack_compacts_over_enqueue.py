"""Broken MCP server (run with --io-delay): a heartbeat that acknowledges instructions compacts the
session's queue by reading it, waiting on its storage round trip and writing back the list without
the acknowledged ones. The operator's enqueue takes no session lock, so an instruction enqueued
during that round trip (over HTTP; on stdio, a spool file picked up after it) is appended to the
list that is then overwritten: never delivered, though its enqueue succeeded.

Breaks "Pending human instructions are delivered automatically". Heartbeats that acknowledge
nothing write no queue, so only an enqueue beside an acknowledging heartbeat shows it. Caught by
heartbeat.overlap.enqueue-in-flight#acknowledging.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

import anyio

from conformance.reference.mcp.server import main
from conformance.reference.mcp.store import HeartbeatStore


class Store(HeartbeatStore):
    async def call(self, caller, args):
        if not self.io_delay:
            return await super().call(caller, args)
        async with self.lock(args.get("sessionId")):
            done = self.replay(caller, args)
            if done is not None:
                return done
            self.read_spool()
            session = self.sessions.get(args["sessionId"])
            acked = set(args.get("acknowledgedInstructionIds", []))
            compacted = None
            if session is not None and acked:
                gone = acked | session.acknowledged
                compacted = [i for i in session.instructions if i.id not in gone]
            await anyio.sleep(self.io_delay)  # the storage round trip
            self.read_spool()
            if (
                compacted is not None
                and session is not None
                and self.sessions.get(args["sessionId"]) is session
            ):
                session.instructions = compacted
            return self.execute(caller, args)


if __name__ == "__main__":
    main(store_factory=Store)
