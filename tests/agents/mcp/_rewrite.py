"""Broken servers that store a session id, a key or an instruction text as something other than
what was sent (cut to a column size, decoded, normalised): each passes its rewrite here."""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.server import main
from conformance.reference.mcp.store import HeartbeatStore


def serve(session_id=None, key=None, text=None):
    """Serve the reference with these rewrites (each a function of the string, or None)."""

    class Store(HeartbeatStore):
        def heartbeat(self, caller, args):
            self.validate(args)
            stored = dict(args)
            if session_id is not None:
                stored["sessionId"] = session_id(args["sessionId"])
            if key is not None:
                stored["idempotencyKey"] = key(args["idempotencyKey"])
            return super().heartbeat(caller, stored)

        def enqueue(self, sid, instruction):
            return super().enqueue(
                session_id(sid) if session_id else sid, text(instruction) if text else instruction
            )

    main(store_factory=Store)
