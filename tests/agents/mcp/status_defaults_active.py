"""A conforming MCP server that records a heartbeat without status as "active" (the spec
never says such a heartbeat keeps the recorded status).

Probes calibrated first: the idempotency and access cases read another field back, so it gets
the reference's outcomes.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.store import HeartbeatStore
from conformance.reference.mcp.server import main


class Store(HeartbeatStore):
    def apply(self, session, sid, args):
        return super().apply(session, sid, {"status": "active", **args})


if __name__ == "__main__":
    main(store_factory=Store)
