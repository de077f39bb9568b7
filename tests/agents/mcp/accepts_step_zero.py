"""Broken MCP server: accepts stepIndex 0 (treats steps as 0-based).

Caught by heartbeat.args.step-index-zero.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.store import HeartbeatError, HeartbeatStore, INPUT_SCHEMA, Session
from conformance.reference.mcp.server import main


class Store(HeartbeatStore):
    def validate(self, args):
        if args.get("stepIndex") == 0:
            args = {**args, "stepIndex": 1}
        super().validate(args)


if __name__ == "__main__":
    main(store_factory=Store)
