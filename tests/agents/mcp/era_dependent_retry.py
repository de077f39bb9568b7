"""Broken MCP server: answers a retry (same caller, session, key and arguments) with the session as
it is now over MCP 2026-07-28, and with the first call's result over 2025-06-18. Each answer
conforms on its own (the spec does not say which a retry shows), but a client sees the tool do
something else when the wire changes: its retry path was written twice, once per era.

Caught by heartbeat.wire.same-answers (a warning).
"""

import contextvars
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from conformance.reference.mcp.server import main
from conformance.reference.mcp.store import STATE_FIELDS, HeartbeatStore

STATELESS = contextvars.ContextVar("stateless", default=False)


async def note_era(ctx, call_next):
    STATELESS.set(ctx.protocol_version in MODERN_PROTOCOL_VERSIONS)
    return await call_next(ctx)


class Store(HeartbeatStore):
    def replay(self, caller, args):
        done = super().replay(caller, args)
        if done is None or not STATELESS.get():
            return done
        session = self.sessions[args["sessionId"]]
        return {**done, **{name: session.state.get(name) for name in STATE_FIELDS}}


if __name__ == "__main__":
    main(store_factory=Store, middleware=(note_era,))
