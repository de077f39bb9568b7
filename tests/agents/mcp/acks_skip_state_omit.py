"""Broken MCP server: a heartbeat that carries acknowledgements is handled as an acknowledgement
only (its status, progress and step are dropped), and results omit the fields never recorded, so
the field the probe wrote is absent from the answer rather than stale.

Caught by heartbeat.instructions.ack-with-report, whose finding says the field reads absent: a
value a case records that JSON has no type for is kept as its repr, and the report is written.
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
        result = super().apply(session, sid, args)
        return {k: v for k, v in result.items() if v not in (None, [])}


if __name__ == "__main__":
    main(store_factory=Store)
