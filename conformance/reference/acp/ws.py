"""The reference agent over WebSocket: many connections to one agent, one set of sessions.

ACP's WebSocket transport carries one JSON-RPC message per text frame. Each connection gets
its own agent view (its own SDK connection, so `session/update` goes to the connection that
is attached) over a store of sessions shared by all: a session in memory is `active` "for any
connection", but only a connection that created, loaded or resumed it may prompt it.
`session/status` attaches nothing.

Run: python -m conformance.reference.acp.agent --listen 127.0.0.1:0
(prints ``ACP_URL ws://127.0.0.1:<port>/`` on stdout once it listens, then only logs on stderr)
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Callable
from typing import Any

from acp.agent.router import build_agent_router
from acp.connection import Connection
from websockets.asyncio.server import ServerConnection, serve
from websockets.exceptions import ConnectionClosed

from .guard import check_line

__all__ = ["serve_websocket"]

MAX_FRAME = 64 * 1024 * 1024


class _SocketTransport:
    """The SDK's message-level Transport over one server-side socket, with the frame guard."""

    def __init__(self, socket: ServerConnection) -> None:
        self.socket = socket

    async def send(self, message: dict[str, Any]) -> None:
        await self.socket.send(json.dumps(message, separators=(",", ":")))

    async def receive(self) -> dict[str, Any] | None:
        while True:
            try:
                frame = await self.socket.recv()
            except ConnectionClosed:
                return None
            data = frame if isinstance(frame, bytes) else frame.encode("utf-8", "surrogatepass")
            if not data.strip():
                continue
            problem = check_line(data.strip())
            if problem is not None:
                await self.socket.send(problem.decode().strip())
                continue
            return json.loads(data)

    async def close(self) -> None:
        await self.socket.close()


async def serve_websocket(make_view: Callable[[], Any], host: str, port: int) -> None:
    """Serve until cancelled; ``make_view()`` returns a fresh agent view for each connection."""

    async def on_connection(socket: ServerConnection) -> None:
        view = make_view()
        handler = view.front(build_agent_router(view, use_unstable_protocol=True))
        view.conn = Connection(handler, _SocketTransport(socket), listening=False)
        await view.conn.main_loop()

    async with serve(on_connection, host, port, max_size=MAX_FRAME) as server:
        bound = next(iter(server.sockets)).getsockname()
        print(f"ACP_URL ws://{bound[0]}:{bound[1]}/", flush=True)
        await asyncio.Future()  # until the process is stopped


def parse_listen(value: str) -> tuple[str, int]:
    host, _, port = value.rpartition(":")
    if not host or not port.isdigit():
        sys.exit(f"--listen {value!r}: expected HOST:PORT, e.g. 127.0.0.1:0")
    return host, int(port)
