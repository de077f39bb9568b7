"""Broken servers that store a session id, a key or an instruction text as something other than
what was sent (cut to a column size, decoded, normalised): each passes its rewrite here."""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.server import main
from conformance.reference.mcp.store import HeartbeatStore


def serve(session_id=None, key=None, text=None):
    """Serve the reference with these rewrites (each a function of the string, or None)."""

    rewrite_id, rewrite = session_id, text

    class Store(HeartbeatStore):
        def heartbeat(self, caller, args):
            self.validate(args)
            stored = dict(args)
            if session_id is not None:
                stored["sessionId"] = session_id(args["sessionId"])
            if key is not None:
                stored["idempotencyKey"] = key(args["idempotencyKey"])
            return super().heartbeat(caller, stored)

        def enqueue(self, session_id, text):  # the base's parameter names: callers may name them
            return super().enqueue(
                rewrite_id(session_id) if rewrite_id else session_id, rewrite(text) if rewrite else text
            )

    main(store_factory=Store)
