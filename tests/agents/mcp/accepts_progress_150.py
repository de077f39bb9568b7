"""Broken MCP server: does not check progressPercent's range (accepts 150, 101, -1).

Caught by heartbeat.args.progress-out-of-range.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.store import HeartbeatError, HeartbeatStore, INPUT_SCHEMA, Session
from conformance.reference.mcp.server import main


class Store(HeartbeatStore):
    def validate(self, args):
        super().validate({k: v for k, v in args.items() if k != "progressPercent"})


if __name__ == "__main__":
    main(store_factory=Store)
