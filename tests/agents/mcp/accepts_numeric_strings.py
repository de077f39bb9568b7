"""Broken MCP server: a lenient validator (Pydantic's lax mode, as the SDK's high-level server
uses) takes numeric strings for numbers: progressPercent "50", stepIndex "2".

Caught by heartbeat.args.wrong-types.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.store import HeartbeatStore
from conformance.reference.mcp.server import main


class Store(HeartbeatStore):
    def validate(self, args):
        numbers = ("progressPercent", "stepIndex", "stepCount")
        super().validate(
            {
                k: float(v) if k in numbers and isinstance(v, str) and v.isdigit() else v
                for k, v in args.items()
            }
        )


if __name__ == "__main__":
    main(store_factory=Store)
