"""A conforming MCP server that names its result fields differently from the reference:
pendingInstructions and nextInstructionCursor, which the suite recognises by default.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.store import HeartbeatStore
from conformance.reference.mcp.server import main


class Store(HeartbeatStore):
    def apply(self, session, sid, args):
        result = super().apply(session, sid, args)
        result["pendingInstructions"] = result.pop("instructions")
        result["nextInstructionCursor"] = result.pop("nextCursor")
        return result


if __name__ == "__main__":
    main(store_factory=Store)
