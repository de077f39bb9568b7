"""A conforming MCP server whose instruction items carry their text as "message" (the spec
does not name the field).

Caught by nothing: the suite finds an instruction's text in any field (the reference's outcomes).
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.store import HeartbeatStore
from conformance.reference.mcp.server import main


class Store(HeartbeatStore):
    def apply(self, session, sid, args):
        result = super().apply(session, sid, args)
        result["instructions"] = [{"id": i["id"], "message": i["text"]} for i in result["instructions"]]
        return result


if __name__ == "__main__":
    main(store_factory=Store)
