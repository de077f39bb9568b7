"""A conforming MCP server whose results say which wire carried them (the protocol revision) and
number heartbeats per era: fields the spec leaves to the server.

The comparison of the eras judges only whether calls are accepted and the values the suite
wrote: the reference's outcomes.
"""

import contextvars
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.server import main
from conformance.reference.mcp.store import HeartbeatStore

WIRE = contextvars.ContextVar("wire", default="")


async def note_wire(ctx, call_next):
    WIRE.set(ctx.protocol_version)
    return await call_next(ctx)


class Store(HeartbeatStore):
    def apply(self, session, sid, args):
        result = super().apply(session, sid, args)
        result["servedOver"] = WIRE.get()
        result["heartbeatId"] = f"{WIRE.get()}/{result['heartbeatId']}"
        return result


if __name__ == "__main__":
    main(store_factory=Store, middleware=(note_wire,))
