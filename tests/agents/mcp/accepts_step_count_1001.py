"""Broken MCP server: accepts any stepCount (no maximum).

Caught by heartbeat.args.step-count-too-large.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.store import HeartbeatError, HeartbeatStore, INPUT_SCHEMA, Session
from conformance.reference.mcp.server import main


class Store(HeartbeatStore):
    def validate(self, args):
        if isinstance(args.get("stepCount"), int) and args["stepCount"] > 1000:
            args = {**args, "stepCount": 1000}
        super().validate(args)


if __name__ == "__main__":
    main(store_factory=Store)
