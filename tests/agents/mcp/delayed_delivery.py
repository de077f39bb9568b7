"""A conforming MCP server whose operator pipeline is asynchronous: an instruction reaches the
session's queue 0.5 s after the operator's enqueue was accepted. The spec gives no latency, and "a
request being accepted is not proof of an external action completing".

A suite that judges the heartbeat right after the hook returns fails every delivery case; this one
asks again for up to --delivery-wait, and its sequences wait as long as an instruction took to show
before counting one pending.
"""

import time
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.server import main
from conformance.reference.mcp.store import HeartbeatStore

DELAY = 0.5


class Store(HeartbeatStore):
    def __init__(self, **options):
        super().__init__(**options)
        self.arrived = {}

    def enqueue(self, session_id, text):
        iid = super().enqueue(session_id, text)
        self.arrived[iid] = time.monotonic()
        return iid

    def pending(self, session):
        now = time.monotonic()
        return [i for i in super().pending(session) if now - self.arrived.get(i.id, 0) >= DELAY]


if __name__ == "__main__":
    main(store_factory=Store)
