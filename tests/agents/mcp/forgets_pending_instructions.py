"""Broken MCP server: an instruction not delivered within 1.5 s of its enqueue is dropped (a
queue whose messages have a short retention period).

Caught by heartbeat.later.pending-held: an instruction enqueued while the session is left alone
for the hold (3 s in the ci profile) is never delivered.
"""

import pathlib
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.server import main
from conformance.reference.mcp.store import HeartbeatStore

RETENTION = 1.5


class Store(HeartbeatStore):
    def __init__(self, **options):
        super().__init__(**options)
        self.enqueued_at = {}
        self.delivered = set()

    def enqueue(self, session_id, text):
        iid = super().enqueue(session_id, text)
        self.enqueued_at[iid] = time.monotonic()
        return iid

    def pending(self, session):
        now = time.monotonic()
        return [
            i
            for i in super().pending(session)
            if i.id in self.delivered or now - self.enqueued_at.get(i.id, now) < RETENTION
        ]

    def page(self, session, cursor):
        page, next_cursor = super().page(session, cursor)
        self.delivered.update(i.id for i in page)
        return page, next_cursor


if __name__ == "__main__":
    main(store_factory=Store)
