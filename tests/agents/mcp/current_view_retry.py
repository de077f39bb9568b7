"""A conforming MCP server that answers a retry (same caller, session, key and arguments) with the
session as it is now, like an idempotent PUT: nothing is applied again (no state written, no
acknowledgement, no new heartbeat id), but the page and the state are current.

The spec forbids executing a retry twice; it does not say what the answer shows. The suite once
required the first call's result (heartbeat.idempotency.retry-answered failed); it now requires
an answer.
"""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.server import main
from conformance.reference.mcp.store import STATE_FIELDS, HeartbeatStore


class Store(HeartbeatStore):
    def heartbeat(self, caller, args):
        done = self.replay(caller, args)
        if done is None:
            return self.execute(caller, args)
        sid = args["sessionId"]
        session = self.sessions[sid]
        self.read_spool()
        page, cursor = self.page(session, args.get("instructionCursor"))
        return {
            "sessionId": sid,
            "heartbeatId": done["heartbeatId"],  # the one execution this key had
            **{n: session.state.get(n) for n in STATE_FIELDS},
            "instructions": [{"id": i.id, "text": i.text} for i in page],
            "nextCursor": cursor,
        }


if __name__ == "__main__":
    main(store_factory=Store)
