"""A running agent under test: its process and/or its network connection, and the peer that talks to it."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Callable
from typing import Any

import anyio
import anyio.abc

from conformance.core.config import AgentConfig
from conformance.core.outcomes import HarnessError, MissingInput
from conformance.core.transcript import StderrTail, Transcript
from conformance.transport.peer import JsonRpcPeer
from conformance.transport.stdio import StdioProcess
from conformance.transport.websocket import WebSocketChannel

__all__ = ["AgentProcess", "read_url"]

URL = re.compile(rb"\b((?:wss?|https?)://[^\s\"'<>]+)")


class AgentProcess:
    """A running agent: process and/or socket, peer and the tasks that read it, until stopped.

    stdio: the process's stdin/stdout carry the frames. websocket: the process (if the suite
    started one) prints its ws:// URL, and the frames go over a socket to it; with --agent-url
    there is no process, only the socket.
    """

    def __init__(
        self,
        config: AgentConfig,
        transcript: Transcript,
        stderr: StderrTail,
        channel: Callable[[str], Any] | None = None,
    ) -> None:
        """``channel(url)``: how a connection to the URL is opened, when the target has its own
        (the ACP or MCP SDK's Streamable HTTP client); by default a WebSocket."""
        self.config = config
        self._channel_factory = channel
        self.transcript = transcript
        self.process: StdioProcess | None = None
        if config.command:
            self.process = StdioProcess(
                config.command, cwd=config.cwd, env=config.process_env(), stderr_tail=stderr
            )
        self.channel: Any = None
        self.url: str | None = config.url
        # An agent given by URL has no process: _connect gives the peer its channel before any frame.
        self.peer = JsonRpcPeer(
            self.process,  # type: ignore[arg-type]  # None for an agent given by URL, until _connect
            transcript,
            timeout=config.timeout,
        )
        self._stop = anyio.Event()
        self._stderr = stderr
        self.extra: list[Any] = []  # more connections opened by the current case
        self.extra_connections: list[JsonRpcPeer] = []  # their peers, until their problems are reported

    @property
    def connection(self) -> JsonRpcPeer:
        return self.peer

    async def run(self, *, task_status: anyio.abc.TaskStatus[AgentProcess]) -> None:
        if self.process is not None:
            await self.process.start()
        try:
            stdout = None
            if self.config.transport != "stdio":  # before the task group: errors stay plain
                stdout = await self._connect()
            async with anyio.create_task_group() as tg:
                if self.process is not None:
                    tg.start_soon(self.process.pump_stderr)
                if stdout is not None:
                    tg.start_soon(_drain, stdout)  # a server that keeps printing must not block
                if self.channel is not None and self.process is not None:
                    tg.start_soon(self._close_on_exit, self.process)
                tg.start_soon(self.peer.read_loop)
                tg.start_soon(self.peer.watch_exit)
                task_status.started(self)
                await self._stop.wait()
                tg.cancel_scope.cancel()
        finally:
            with anyio.CancelScope(shield=True):
                if self.channel is not None:
                    await self.channel.close()
                if self.process is not None:
                    await self.process.terminate()
            code = self.process.returncode if self.process is not None else None
            self.peer.abort(code)

    async def _connect(self) -> Any:
        """Find the server's URL (if the suite started it) and open the main connection."""
        lines = None
        if self.process is not None:
            lines = self.process.lines()
            process = self.process
            try:
                async with anyio.create_task_group() as tg:  # a chatty server must not block on stderr
                    tg.start_soon(process.pump_stderr)
                    try:
                        self.url = await read_url(lines, self.config.timeout, self.config.transport)
                    finally:
                        tg.cancel_scope.cancel()
            except BaseExceptionGroup as group:  # report the plain error, as the other transports do
                raise group.exceptions[0] from None
        assert self.url is not None
        self.channel = self._channel(self.url)
        await self.channel.open(self.config.timeout)
        self.peer.process = self.channel
        return lines

    async def _close_on_exit(self, process: StdioProcess) -> None:
        await process.wait()
        if self.channel is not None:
            await self.channel.close()

    async def open_connection(self, label: str, tg: anyio.abc.TaskGroup) -> JsonRpcPeer:
        """One more connection to the same agent (websocket only), with its own peer."""
        if self.url is None:
            raise MissingInput(
                "needs two connections to one agent: serve it over WebSocket or Streamable HTTP (--transport "
                "websocket|http with a server command that prints its URL, or --agent-url); stdio has one connection"
            )
        channel = self._channel(self.url)
        await channel.open(self.config.timeout)
        peer = JsonRpcPeer(channel, self.transcript.for_connection(label), timeout=self.config.timeout)
        tg.start_soon(peer.read_loop)
        tg.start_soon(peer.watch_exit)
        self.extra.append(channel)
        self.extra_connections.append(peer)
        return peer

    def _channel(self, url: str) -> Any:
        if self._channel_factory is not None:
            return self._channel_factory(url)
        if self.config.transport == "http":
            raise HarnessError("no Streamable HTTP client for this target")
        return WebSocketChannel(url, self._stderr)

    async def close_extra(self) -> None:
        while self.extra:
            await self.extra.pop().close()

    def stop(self) -> None:
        self._stop.set()


async def _drain(lines: Any) -> None:
    async for _ in lines:
        pass


# Starting a server (imports, a model loaded, a database opened) is not a request: on a loaded
# machine a Python service can take longer than --timeout to print its URL.
STARTUP_FLOOR = 60.0


async def read_url(lines: AsyncIterator[Any], timeout: float, transport: str = "websocket") -> str:
    """The first URL of the transport's scheme a server command prints on stdout (it may print
    other lines first), waited for at least STARTUP_FLOOR seconds."""
    schemes = ("ws://", "wss://") if transport == "websocket" else ("http://", "https://")
    timeout = max(timeout, STARTUP_FLOOR)
    with anyio.move_on_after(timeout):
        async for line in lines:
            for found in URL.finditer(line if isinstance(line, bytes) else b""):
                url = found.group(1).decode("utf-8", "replace").rstrip(".,;)]")
                if url.startswith(schemes):
                    return url
        raise HarnessError("the agent command ended without printing its URL on stdout")
    raise HarnessError(f"the agent command printed no ws:// or http:// URL on stdout within {timeout:g} s")
