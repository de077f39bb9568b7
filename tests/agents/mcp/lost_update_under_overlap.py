"""Broken MCP server: each call loads the session's recorded state, waits on its storage, and
writes the whole state back with its own fields set, holding no lock: a field only a concurrent
call reported is overwritten with the value read before it.

Caught by heartbeat.overlap.concurrent-writes (calls one at a time never show it).
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
        loaded = dict(session.state) if session is not None else {}
        await anyio.sleep(0.2)
        if session is not None:
            session.state = loaded
        return self.heartbeat(caller, args)


if __name__ == "__main__":
    main(store_factory=Store)
