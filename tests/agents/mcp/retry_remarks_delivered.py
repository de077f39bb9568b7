"""Broken MCP server: every answer it sends, a retry's answer from the first result too, marks the
instructions it lists as delivered and not acknowledged (a status column written on each answer):
a retry sent after an acknowledgement puts the acknowledged instruction back, and it comes again.

Caught by heartbeat.instructions.retry-after-ack.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.server import main
from conformance.reference.mcp.store import HeartbeatStore


class Store(HeartbeatStore):
    def replay(self, caller, args):
        done = super().replay(caller, args)
        session = self.sessions.get(args["sessionId"])
        if done is not None and session is not None:
            session.acknowledged -= {item["id"] for item in done["instructions"]}
        return done


if __name__ == "__main__":
    main(store_factory=Store)
