"""Broken MCP server over stdio (MUST, "Pending human instructions are delivered automatically"):
with --max-length N the operator hook (instruct.py) takes a text of up to N characters, and the
server, reading its spool, refuses one of N or more: a text of exactly N characters is taken by
the hook (which says so) and dropped without a word when the server reads it. One character
apart, two checks of one limit.

Caught by heartbeat.boundary.instruction-lengths (an instruction of 1024 characters, a common
limit itself). The suite of c9de112 certified it: it tried 255, 256, 1025 and 4097 characters
(mutation campaign mcp-features, store.py:149).
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.server import main
from conformance.reference.mcp.store import HeartbeatError, HeartbeatStore


class Store(HeartbeatStore):
    def enqueue(self, session_id, text):
        if self.max_length is not None and len(text) >= self.max_length:
            raise HeartbeatError(f"the instruction is {self.max_length} characters or longer")
        return super().enqueue(session_id, text)


if __name__ == "__main__":
    main(store_factory=Store)
