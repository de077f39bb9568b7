"""Broken MCP server: a heartbeat that carries acknowledgements records the progress and step it
reports but drops its ``status`` (the acknowledging path updates the fields an agent reports
often and forgets the rarer one), so a session that acknowledges and reports ``blocked`` in one
call still reads its old status.

Caught by heartbeat.instructions.ack-with-report, which writes every field the heartbeat results
show back (not only the probe's) in the acknowledging call. (The suite of 748e06d certified it:
its case wrote and read the calibrated probe's field alone, ``currentStep``.)
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.server import main
from conformance.reference.mcp.store import HeartbeatStore


class Store(HeartbeatStore):
    def apply(self, session, sid, args):
        if args.get("acknowledgedInstructionIds"):
            args = {k: v for k, v in args.items() if k != "status"}
        return super().apply(session, sid, args)


if __name__ == "__main__":
    main(store_factory=Store)
