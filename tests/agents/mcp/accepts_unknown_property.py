"""Broken MCP server: ignores properties it does not know instead of rejecting them.

Caught by heartbeat.args.unknown-property.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.store import HeartbeatError, HeartbeatStore, INPUT_SCHEMA, Session
from conformance.reference.mcp.server import main


class Store(HeartbeatStore):
    def validate(self, args):
        super().validate({k: v for k, v in args.items() if k in INPUT_SCHEMA["properties"]})


if __name__ == "__main__":
    main(store_factory=Store)
