"""Broken MCP server: an acknowledgement works like a consumer's committed offset: acknowledging an
instruction commits its place in the session's queue, so every instruction enqueued before it counts
as acknowledged too and is never delivered again (an agent that acknowledges the quicker second
instruction first, or skips one it cannot act on yet, loses the earlier one).

Caught by heartbeat.instructions.ack-some, which acknowledges the middle one of three instructions
delivered again on every heartbeat, then the newest, and requires the oldest to keep coming.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.server import main
from conformance.reference.mcp.store import HeartbeatStore


class Store(HeartbeatStore):
    def acknowledge(self, session, ids):
        acked = set(ids)
        committed = max((i.seq for i in session.instructions if i.id in acked), default=None)
        session.acknowledged.update(ids)
        if committed is not None:
            session.acknowledged.update(i.id for i in session.instructions if i.seq <= committed)


if __name__ == "__main__":
    main(store_factory=Store)
