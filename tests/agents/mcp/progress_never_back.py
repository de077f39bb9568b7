"""Broken MCP server: keeps the highest progressPercent a session reported (progress bars must not
jump back), so an agent reporting 80 and then 20 reads 80 from then on. Every other field is
applied as reported. Caught by heartbeat.boundary.reported-sequence (80, 20, 20, 100, 0, 35).
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.server import main
from conformance.reference.mcp.store import HeartbeatStore


class Store(HeartbeatStore):
    def apply(self, session, sid, args):
        before = session.state.get("progressPercent")
        if isinstance(before, int | float) and isinstance(args.get("progressPercent"), int | float):
            args = {**args, "progressPercent": max(before, args["progressPercent"])}
        return super().apply(session, sid, args)


if __name__ == "__main__":
    main(store_factory=Store)
