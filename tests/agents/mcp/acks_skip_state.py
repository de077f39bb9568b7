"""Broken MCP server: a heartbeat that carries acknowledgements is handled as an acknowledgement
only, and the status, progress and step it reports are dropped.

Caught by heartbeat.instructions.ack-with-report.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.server import main
from conformance.reference.mcp.store import STATE_FIELDS, HeartbeatStore


class Store(HeartbeatStore):
    def apply(self, session, sid, args):
        if args.get("acknowledgedInstructionIds"):
            args = {k: v for k, v in args.items() if k not in STATE_FIELDS}
        return super().apply(session, sid, args)


if __name__ == "__main__":
    main(store_factory=Store)
