"""MCP's Streamable HTTP transport, through the official MCP Python SDK's client.

The SDK's ``streamable_http_client`` does the transport's work (POST per message, JSON or SSE
answers, the ``Mcp-Session-Id`` of the handshake era); each message goes with the headers of the
era its body speaks (:mod:`conformance.targets.mcp.era_http`); :class:`McpHttpChannel` makes it
look to :class:`~conformance.transport.peer.JsonRpcPeer` like the other channels. Frames in the
transcript are the messages as the SDK decoded them (re-serialized). An HTTP error the SDK
hands back instead of a message is written to the transcript's stderr tail, since no JSON-RPC
frame carries it.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import anyio

from conformance.core.outcomes import HarnessError
from conformance.core.transcript import StderrTail
from conformance.targets.mcp.era_http import EraHeaders, probe
from conformance.transport.channel import EndingChannel, TransportRefused
from conformance.transport.http_clients import tls_context

__all__ = ["McpHttpChannel"]

MAX_EVENT_IDS = 4096  # the SSE event ids a connection keeps


class McpHttpChannel(EndingChannel):
    def __init__(self, url: str, headers: dict[str, str], stderr: StderrTail | None = None) -> None:
        super().__init__()
        self.url = url
        self.headers = headers
        self.stderr = stderr or StderrTail()
        self._release = anyio.Event()
        self._task: asyncio.Task[None] | None = None
        self._read: Any = None
        self._write: Any = None
        self.era_headers = EraHeaders()  # each message's MCP headers, in the era its body speaks
        # The Mcp-Session-Id the answers carry, once one does.
        self._session_id: str | None = None
        # The SSE event ids (the ``id:`` field) of the events answering each request, as (the
        # request's id, the event id) in arrival order: what a client resumes a stream from.
        self.event_ids: list[tuple[Any, str]] = []

    @property
    def protocol_session(self) -> bool:
        """Whether an answer carried Mcp-Session-Id: only then does the SDK's client hold a GET
        stream open, the one way a notification sent outside any request reaches the suite."""
        return self._session_id is not None

    async def open(self, timeout: float) -> None:
        # Imported here: the MCP SDK is only needed by MCP runs.
        import httpx2
        from mcp.client.streamable_http import streamable_http_client

        await probe(self.url, self.headers, timeout)  # the SDK client connects lazily
        # The SDK's client is a context manager holding a task group; entered and left in a task of
        # its own, it is independent of the cancel scopes of whoever opens and closes the channel.
        ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        async def hold() -> None:
            try:
                async with (
                    # What the SDK's create_mcp_http_client builds, with the harness's one TLS context.
                    httpx2.AsyncClient(
                        headers=self.headers,
                        timeout=httpx2.Timeout(timeout, read=max(timeout, 60.0)),
                        verify=tls_context(),
                        event_hooks={"response": [self._note_session]},
                    ) as client,
                    streamable_http_client(self.url, http_client=client) as (read, write),
                ):
                    self._read, self._write = read, write
                    ready.set_result(None)
                    await self._release.wait()
            except Exception as exc:
                if not ready.done():
                    why = str(exc) or type(exc).__name__
                    ready.set_exception(HarnessError(f"cannot open an MCP connection to {self.url}: {why}"))
                else:  # the peer sees the stream end; the reason goes where stderr goes
                    self.stderr.feed(f"[MCP HTTP client] closed: {type(exc).__name__}: {exc}\n".encode())
            finally:
                self._mark_closed()

        self._task = asyncio.get_running_loop().create_task(hold())  # a strong reference: see close()
        await ready

    async def _note_session(self, response: Any) -> None:
        session_id = response.headers.get("mcp-session-id")
        if (
            session_id is not None and session_id != self._session_id
        ):  # event ids are unique within one session
            self._session_id = session_id
            self.event_ids.clear()

    async def send_line(self, data: bytes) -> None:
        from mcp.shared.message import ClientMessageMetadata, SessionMessage
        from mcp_types import jsonrpc_message_adapter

        try:
            message = jsonrpc_message_adapter.validate_json(data)
        except ValueError as exc:
            raise TransportRefused(
                0, f"not a JSON-RPC message the SDK's client can send: {str(exc)[:200]}"
            ) from None
        frame = json.loads(data)
        headers = self.era_headers.outgoing(frame)
        metadata = ClientMessageMetadata(headers=headers or None)
        if isinstance(frame, dict) and "method" in frame and frame.get("id") is not None:
            metadata.on_resumption_token_update = self._event_ids_of(frame["id"])
        try:
            await self._write.send(SessionMessage(message, metadata=metadata))
        except (anyio.ClosedResourceError, anyio.BrokenResourceError) as exc:
            self._mark_closed()
            raise anyio.BrokenResourceError from exc

    def _event_ids_of(self, request_id: Any) -> Callable[[str], Awaitable[None]]:
        async def noted(event_id: str) -> None:
            if len(self.event_ids) < MAX_EVENT_IDS:
                self.event_ids.append((request_id, str(event_id)[:200]))

        return noted

    async def lines(self) -> AsyncIterator[bytes]:
        try:
            while self._read is not None:
                try:
                    item = await self._read.receive()
                except (anyio.EndOfStream, anyio.ClosedResourceError):
                    break
                if isinstance(item, Exception):  # e.g. an HTTP 401 or 5xx: no frame carries it
                    self.stderr.feed(f"[MCP HTTP client] {type(item).__name__}: {item}\n".encode())
                    continue
                data = item.message.model_dump(by_alias=True, mode="json", exclude_unset=True)
                self.era_headers.incoming(data)
                yield json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode()
        finally:
            self._mark_closed()

    async def close(self) -> None:
        self._release.set()
        task = self._task
        if task is not None and not task.done():
            done: set[asyncio.Task[None]] = set()
            with anyio.CancelScope(shield=True):
                done, _ = await asyncio.wait({task}, timeout=3)
            if not done:
                task.cancel()
        self._mark_closed()
