"""Broken MCP server: keeps where each instruction page ended in the MCP connection's scratch state
(the SDK's Connection.state) and hands out a token for it as the cursor; a token it does not
have reads as the end of the list. One client on one stateful connection (the handshake era
over stdio, or over HTTP with an Mcp-Session-Id) never notices. Over stateless HTTP, and in the
2026-07-28 era on any transport, every request is a connection of its own: the next page is
never delivered.

Caught by heartbeat.instructions.paging and heartbeat.instructions.model-based (lost).
"""

import contextvars
import pathlib
import sys
import uuid

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.server import main
from conformance.reference.mcp.store import HeartbeatStore

CONNECTION = contextvars.ContextVar("connection_state", default=None)


async def note_connection(ctx, call_next):
    CONNECTION.set(ctx.session._connection.state)
    return await call_next(ctx)


class Store(HeartbeatStore):
    def page(self, session, cursor):
        state = CONNECTION.get()
        state = {} if state is None else state
        after = state.get(cursor, float("inf")) if cursor is not None else 0
        rest = [i for i in self.pending(session) if i.seq > after]
        page = rest[: self.page_size]
        if len(rest) <= len(page):
            return page, None
        token = uuid.uuid4().hex
        state[token] = page[-1].seq
        return page, token


if __name__ == "__main__":
    main(store_factory=Store, middleware=(note_connection,))
