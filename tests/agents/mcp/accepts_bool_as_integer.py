"""Broken MCP server: checks integers with isinstance(value, int), and Python's bool is an int:
stepIndex true passes as 1.

Caught by heartbeat.args.wrong-types.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.store import HeartbeatStore
from conformance.reference.mcp.server import main


class Store(HeartbeatStore):
    def validate(self, args):
        super().validate({k: int(v) if isinstance(v, bool) else v for k, v in args.items()})


if __name__ == "__main__":
    main(store_factory=Store)
