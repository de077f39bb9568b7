"""Broken MCP server (stdio, run with --io-delay): each new heartbeat drains the operator's spool,
waits on its storage round trip, and then empties the spool by glob ("everything in there has been
consumed"): an instruction the operator drops in during the round trip is deleted unread, though
its enqueue succeeded.

Breaks "Pending human instructions are delivered automatically". Instructions enqueued while no
heartbeat runs are picked up by the next one, as they should be. Caught by
heartbeat.overlap.enqueue-in-flight (heartbeats in flight for the whole of the hook's call).
"""

import json
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

import anyio

from conformance.reference.mcp.server import main
from conformance.reference.mcp.store import HeartbeatError, HeartbeatStore


class Store(HeartbeatStore):
    async def call(self, caller, args):
        if not self.io_delay or self.spool is None:
            return await super().call(caller, args)
        async with self.lock(args.get("sessionId")):
            done = self.replay(caller, args)
            if done is not None:
                return done
            batch = []
            for path in sorted(self.spool.glob("*.json")) if self.spool.is_dir() else []:
                try:
                    batch.append(json.loads(path.read_text(encoding="utf-8")))
                except (OSError, ValueError):
                    continue
            await anyio.sleep(self.io_delay)  # the batch goes to the store
            for item in batch:
                try:
                    self.enqueue(str(item.get("sessionId", "")), str(item.get("text", "")))
                except HeartbeatError:
                    continue
            for path in self.spool.glob("*.json") if self.spool.is_dir() else []:
                path.unlink(missing_ok=True)  # consumed: empty the spool
            return self.execute(caller, args)


if __name__ == "__main__":
    main(store_factory=Store)
