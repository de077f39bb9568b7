"""A conforming MCP server whose instruction items are {"instructionId", "text"}: the spec names
neither field of an item (acknowledgedInstructionIds takes these ids).

The suite once required an "id" in each item (not testable: a failure); it now finds the id under
the names servers use, the same one in every item, or asks for --instruction-id-path.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.server import main
from conformance.reference.mcp.store import HeartbeatStore


class Store(HeartbeatStore):
    def apply(self, session, sid, args):
        result = super().apply(session, sid, args)
        result["instructions"] = [
            {"instructionId": i["id"], "text": i["text"]} for i in result["instructions"]
        ]
        return result


if __name__ == "__main__":
    main(store_factory=Store)
