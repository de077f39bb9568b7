"""A conforming MCP server that renders each human instruction for the agent with its origin:
{"id", "text": "Instruction from operator: <text>"} (the spec does not say the text is verbatim).

The suite once matched texts by equality (every delivery case failed, the sequences saw "foreign"
instructions); its texts are unique tokens, so it now finds them inside longer strings.
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
            {"id": i["id"], "text": f"Instruction from operator: {i['text']}"} for i in result["instructions"]
        ]
        return result


if __name__ == "__main__":
    main(store_factory=Store)
