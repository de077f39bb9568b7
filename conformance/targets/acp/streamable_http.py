"""ACP's Streamable HTTP transport, through the official SDK's client (`acp.http`).

Each JSON-RPC message is one POST (the `initialize` answer comes back in its body, the rest on
SSE streams the SDK client opens). An :class:`AcpHttpChannel` looks to the peer like the other
transports. Two things differ, and the report says so: frames in the transcript are the
messages as the SDK client decoded them (re-serialized), and a POST the server refuses (an
HTTP 4xx/5xx instead of a JSON-RPC answer) is :class:`TransportRefused`, which the peer turns
into a failed reply naming the HTTP status.
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator
from typing import Any

import anyio
import httpx

from conformance.core.outcomes import HarnessError
from conformance.core.transcript import StderrTail
from conformance.transport.channel import EndingChannel, TransportRefused
from conformance.transport.http_clients import KEEPALIVE_EXPIRY, tls_context

__all__ = ["AcpHttpChannel"]


class AcpHttpChannel(EndingChannel):
    def __init__(self, url: str, stderr: StderrTail | None = None) -> None:
        super().__init__()
        self.url = url
        self.stderr = stderr or StderrTail()
        self.transport: Any = None
        self.client: httpx.AsyncClient | None = None

    async def open(self, timeout: float) -> None:
        # The SDK client opens one SSE GET per session it sees and keeps it open; on httpx's default
        # pool (100 connections) the 100th session leaves every later POST waiting for a connection.
        unbounded = httpx.Limits(
            max_connections=None, max_keepalive_connections=None, keepalive_expiry=KEEPALIVE_EXPIRY
        )
        self.client = httpx.AsyncClient(timeout=httpx.Timeout(None), limits=unbounded, verify=tls_context())
        try:  # any HTTP answer means something listens; the SDK client itself connects lazily
            await self.client.get(self.url, timeout=timeout)
        except httpx.HTTPError as exc:
            await self.client.aclose()
            raise HarnessError(f"cannot reach {self.url}: {exc or type(exc).__name__}") from None
        # Imported here: the ACP SDK takes over a second to import, and MCP and HTTP runs never need it.
        from acp.http import create_http_stream

        self.transport = create_http_stream(self.url, client=self.client)

    async def send_line(self, data: bytes) -> None:
        from acp.http.client import AcpHttpStatusError

        try:
            message = json.loads(data)
        except ValueError:
            raise TransportRefused(
                0, "not a JSON message: Streamable HTTP carries one JSON object per POST"
            ) from None
        if not isinstance(message, dict):
            raise TransportRefused(0, "not a JSON object: the SDK's HTTP client sends objects only")
        try:
            await self.transport.send(message)
        except AcpHttpStatusError as exc:
            detail = str(exc).removeprefix(f"HTTP {exc.status_code}: ")
            raise TransportRefused(exc.status_code, detail) from None
        except (httpx.HTTPError, ConnectionError) as exc:
            self._mark_closed()
            raise anyio.BrokenResourceError from exc

    async def lines(self) -> AsyncGenerator[bytes, None]:
        try:
            while self.transport is not None:
                message = await self.transport.receive()
                if message is None:
                    break
                yield json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode()
        finally:
            self._mark_closed()

    async def close(self) -> None:
        if self.transport is not None:
            with anyio.move_on_after(2, shield=True):
                await self.transport.close()
        if self.client is not None:  # ours, so the SDK transport leaves it open
            with anyio.move_on_after(2, shield=True):
                await self.client.aclose()
        self._mark_closed()
