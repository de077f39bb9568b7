"""Broken MCP server: pending instructions expire 0.5 s after the server enqueues them, delivered
or not (a queue with a time to live: a Redis list with EXPIRE, a table swept by a cron job).

Over stdio the server enqueues what the operator's spool holds when a heartbeat comes, so the
time to live starts at that heartbeat: an instruction it left for a later page is gone before an
agent whose heartbeats are further apart asks again. Certified by the suite before (blind 9),
which waited only before the first heartbeat that saw an instruction.

Sentence broken: "Pending human instructions are delivered automatically; unacknowledged
instructions may be redelivered until the agent acknowledges them." (an instruction that was
pending is never delivered at all). Caught by heartbeat.later.pending-held (run with --hold 1).
"""

import pathlib
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.server import main
from conformance.reference.mcp.store import HeartbeatStore

TTL = 0.5


class Store(HeartbeatStore):
    def __init__(self, **options):
        super().__init__(**options)
        self.enqueued_at = {}

    def enqueue(self, session_id, text):
        iid = super().enqueue(session_id, text)
        self.enqueued_at[iid] = time.monotonic()
        return iid

    def pending(self, session):
        now = time.monotonic()
        return [i for i in super().pending(session) if now - self.enqueued_at.get(i.id, now) < TTL]


if __name__ == "__main__":
    main(store_factory=Store)
