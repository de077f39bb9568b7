"""Broken MCP server: drops_after_empty (once every instruction of a session was acknowledged,
later ones are lost), in results that omit "instructions" and "nextCursor" when they are empty.

Caught by heartbeat.instructions.model-based (rule lost). The suite once read an omitted list as
"no list found" and the sequences were not testable: a pass on the certificate.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.server import main
from conformance.reference.mcp.store import HeartbeatStore


class Store(HeartbeatStore):
    def enqueue(self, session_id, text):
        session = self.sessions.get(session_id)
        if session is not None and session.acknowledged and not self.pending(session):
            return "dropped"
        return super().enqueue(session_id, text)

    def apply(self, session, sid, args):
        result = super().apply(session, sid, args)
        return {k: v for k, v in result.items() if v not in (None, [])}


if __name__ == "__main__":
    main(store_factory=Store)
