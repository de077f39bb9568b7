"""Broken MCP server: checks progressPercent with 0 <= p < 100, an off-by-one that refuses a
heartbeat at 100%.

Caught by heartbeat.args.boundaries-accepted.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.store import HeartbeatError, HeartbeatStore
from conformance.reference.mcp.server import main


class Store(HeartbeatStore):
    def validate(self, args):
        if args.get("progressPercent") == 100:
            raise HeartbeatError("invalid arguments: progressPercent must be below 100")
        super().validate(args)


if __name__ == "__main__":
    main(store_factory=Store)
