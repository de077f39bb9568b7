"""A conforming MCP server with an SQS-style visibility timeout: a delivered, unacknowledged
instruction is hidden for 30 s, then delivered again; an acknowledged one never comes again.

"Unacknowledged instructions may be redelivered until the agent acknowledges them" is a MAY: the
suite once required a redelivery on the very next heartbeat (a failure, and its controls built on
it failed too); it now requires delivery of what was never delivered, and nothing after an
acknowledgement.
"""

import time
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.server import main
from conformance.reference.mcp.store import HeartbeatStore

VISIBILITY = 30.0


class Store(HeartbeatStore):
    def __init__(self, **options):
        super().__init__(**options)
        self.hidden_until = {}

    def pending(self, session):
        now = time.monotonic()
        return [i for i in super().pending(session) if self.hidden_until.get(i.id, 0) <= now]

    def page(self, session, cursor):
        page, next_cursor = super().page(session, cursor)
        for i in page:
            self.hidden_until[i.id] = time.monotonic() + VISIBILITY
        return page, next_cursor


if __name__ == "__main__":
    main(store_factory=Store)
