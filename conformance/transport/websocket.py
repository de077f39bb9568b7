"""The WebSocket transport: one JSON-RPC message per text frame, several connections per agent.

A :class:`WebSocketChannel` looks to :class:`~conformance.transport.peer.JsonRpcPeer` like the stdio
transport: ``send_line`` / ``lines`` / ``wait``, the socket's close standing for the process's
exit.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import anyio
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidURI, WebSocketException

from conformance.core.outcomes import HarnessError
from conformance.core.transcript import StderrTail

__all__ = ["WebSocketChannel"]

MAX_FRAME = 16 * 1024 * 1024  # as the stdio transport's line cap


class WebSocketChannel:
    def __init__(self, url: str, stderr: StderrTail | None = None) -> None:
        self.url = url
        self.stderr = stderr or StderrTail()
        self.socket: ClientConnection | None = None
        self.returncode: int | None = None
        self._closed = anyio.Event()

    async def open(self, timeout: float) -> None:
        try:
            with anyio.fail_after(timeout):
                self.socket = await connect(self.url, max_size=MAX_FRAME, open_timeout=timeout)
        except (OSError, TimeoutError, InvalidURI, WebSocketException) as exc:
            raise HarnessError(f"cannot open a WebSocket to {self.url}: {exc}") from None

    async def send_line(self, data: bytes) -> None:
        if self.socket is None:
            raise anyio.ClosedResourceError
        try:
            message: str | bytes = data.decode("utf-8")
        except UnicodeDecodeError:  # not text: only a binary frame can carry it
            message = data
        try:
            await self.socket.send(message)
        except ConnectionClosed:
            raise anyio.BrokenResourceError from None

    async def lines(self) -> AsyncIterator[bytes]:
        assert self.socket is not None
        try:
            async for message in self.socket:
                yield message if isinstance(message, bytes) else message.encode("utf-8", "surrogatepass")
        except ConnectionClosed:
            pass
        finally:
            self._mark_closed()

    def _mark_closed(self) -> None:
        if self.returncode is None:
            code = self.socket.close_code if self.socket is not None else None
            self.returncode = code if code is not None else 1006
        self._closed.set()

    async def wait(self) -> int:
        await self._closed.wait()
        return self.returncode if self.returncode is not None else 1006

    async def close(self) -> None:
        if self.socket is not None:
            with anyio.move_on_after(2, shield=True):
                await self.socket.close()
        self._mark_closed()
