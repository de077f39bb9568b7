"""Broken MCP server: records a reported field only when it is truthy (`if args.get(name):`), so
currentStep "" (and progressPercent 0) leave the value reported before in place.

Caught by heartbeat.boundary.empty-step.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.server import main
from conformance.reference.mcp.store import HeartbeatStore


class Store(HeartbeatStore):
    def apply(self, session, sid, args):
        return super().apply(session, sid, {k: v for k, v in args.items() if v != "" and v != 0})


if __name__ == "__main__":
    main(store_factory=Store)
