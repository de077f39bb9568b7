"""What channels share: a refused message (an HTTP error status instead of a JSON-RPC answer) and
the end of a stream without a process of its own."""

from __future__ import annotations

import anyio

__all__ = ["EndingChannel", "TransportRefused"]


class TransportRefused(Exception):
    """The server answered a message with an HTTP error status instead of a JSON-RPC response."""

    def __init__(self, status: int, detail: str) -> None:
        super().__init__(f"HTTP {status}: {detail}")
        self.status = status


class EndingChannel:
    """What channels without a process of their own share: a return code (0) and an event, both
    set once the stream has ended; the peer waits on them as it would on a process's exit."""

    def __init__(self) -> None:
        self.returncode: int | None = None
        self._closed = anyio.Event()

    def _mark_closed(self) -> None:
        if self.returncode is None:
            self.returncode = 0
        self._closed.set()

    async def wait(self) -> int:
        await self._closed.wait()
        return self.returncode or 0
