"""Broken MCP server: takes one instruction id where the schema wants an array of them
(acknowledgedInstructionIds "ins-1" read as ["ins-1"]).

Caught by heartbeat.args.wrong-types.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.store import HeartbeatStore
from conformance.reference.mcp.server import main


class Store(HeartbeatStore):
    def heartbeat(self, caller, args):
        if isinstance(args.get("acknowledgedInstructionIds"), str):
            args = {**args, "acknowledgedInstructionIds": [args["acknowledgedInstructionIds"]]}
        return super().heartbeat(caller, args)


if __name__ == "__main__":
    main(store_factory=Store)
