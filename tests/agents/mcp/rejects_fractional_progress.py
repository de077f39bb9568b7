"""Broken MCP server: rejects a valid heartbeat whose progressPercent is not a whole number.

Caught by heartbeat.args.valid-call-succeeds.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.store import HeartbeatError, HeartbeatStore, INPUT_SCHEMA, Session
from conformance.reference.mcp.server import main


class Store(HeartbeatStore):
    def validate(self, args):
        if isinstance(args.get("progressPercent"), float) and not args["progressPercent"].is_integer():
            raise HeartbeatError("invalid arguments: progressPercent must be an integer")
        super().validate(args)


if __name__ == "__main__":
    main(store_factory=Store)
