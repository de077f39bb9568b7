"""Broken MCP server: accepts stepIndex without stepCount (and the reverse).

Caught by heartbeat.args.step-pair (warn).
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.store import HeartbeatError, HeartbeatStore, INPUT_SCHEMA, Session
from conformance.reference.mcp.server import main


class Store(HeartbeatStore):
    def validate(self, args):
        args = dict(args)
        if ("stepIndex" in args) != ("stepCount" in args):
            args.setdefault("stepIndex", 1)
            args.setdefault(
                "stepCount", max(args["stepIndex"], 1) if isinstance(args["stepIndex"], int) else 1
            )
        super().validate(args)


if __name__ == "__main__":
    main(store_factory=Store)
