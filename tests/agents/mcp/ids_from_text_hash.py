"""Broken MCP server: derives an instruction's id from a hash of its session and text (to make
enqueues idempotent), and drops an enqueue whose id is already queued. The same text enqueued
twice ("Stop.", "Check the logs again.") is delivered once; the operator is told both were taken.

Caught by heartbeat.volume.many-pending: a text enqueued twice is delivered as one instruction.
The old suite (856482f) certified it: every text it enqueued was unique.
"""

import hashlib
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.server import main
from conformance.reference.mcp.store import HeartbeatStore, Instruction


class Store(HeartbeatStore):
    def enqueue(self, session_id, text):
        iid = "ins-" + hashlib.sha256(f"{session_id}\0{text}".encode()).hexdigest()[:12]
        session = self.sessions.get(session_id)
        queue = session.instructions if session else self.waiting.setdefault(session_id, [])
        if any(i.id == iid for i in queue):
            return iid
        self._seq += 1
        queue.append(Instruction(self._seq, iid, text))
        return iid


if __name__ == "__main__":
    main(store_factory=Store)
