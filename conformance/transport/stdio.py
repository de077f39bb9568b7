"""The stdio transport: spawn the agent in its own process group and frame its stdout by lines.

Everything the agent writes is hostile data: lines are capped (the rest of an overlong line is
discarded and reported), stderr keeps only a tail, and teardown kills the whole process group
so nothing the agent started outlives the run.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import os
import signal
import subprocess
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass

import anyio
from anyio.abc import Process

from conformance.core.transcript import StderrTail

__all__ = ["LaunchError", "OversizeLine", "StdioProcess"]

DEFAULT_MAX_LINE_BYTES = 16 * 1024 * 1024


class LaunchError(Exception):
    """The agent command could not be started at all (a usage error, exit code 2)."""


@dataclass(frozen=True)
class OversizeLine:
    size: int
    head: bytes


class StdioProcess:
    def __init__(
        self,
        command: Sequence[str],
        *,
        cwd: str | None,
        env: Mapping[str, str] | None,
        max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
        stderr_tail: StderrTail | None = None,
    ) -> None:
        if not command:
            raise LaunchError("the agent command is empty: pass --agent 'python my_agent.py'")
        self.command = list(command)
        self.cwd = cwd
        self.env = dict(env) if env is not None else None
        self.max_line_bytes = max_line_bytes
        self.stderr = stderr_tail or StderrTail()
        self.process: Process | None = None
        self.pgid: int | None = None
        self._outbox: list[bytes] = []  # lines sent in this turn of the loop, written at its end

    async def start(self) -> None:
        try:
            self.process = await anyio.open_process(
                self.command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                cwd=self.cwd,
                env=self.env,
                start_new_session=True,
            )
        except FileNotFoundError as exc:
            raise LaunchError(f"agent command not found: {self.command[0]!r} ({exc.strerror})") from None
        except PermissionError:
            raise LaunchError(f"agent command is not executable: {self.command[0]!r}") from None
        except OSError as exc:
            if exc.errno == errno.ENOEXEC:  # a script without a "#!" line
                raise LaunchError(
                    f"cannot start agent command {self.command[0]!r}: the system cannot run it (a script needs "
                    f"a first line such as #!/usr/bin/env python3, or name its interpreter, e.g. "
                    f"'python3 {self.command[0]}')"
                ) from None
            raise LaunchError(f"cannot start agent command {self.command[0]!r}: {exc}") from None
        self.pgid = self.process.pid  # start_new_session: the agent leads its own group

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process else None

    @property
    def returncode(self) -> int | None:
        return self.process.returncode if self.process else None

    async def send_line(self, data: bytes) -> None:
        assert self.process is not None and self.process.stdin is not None
        writer = self._pipe_writer()
        if writer is not None:
            # anyio's send yields to the event loop after every write, for fairness; a line to a
            # pipe needs no such turn, and the round trip of a status call is a handful of them.
            # Lines sent in one turn of the loop (requests started together) reach the pipe in one
            # write, so the agent finds them together however the scheduler interleaves the two
            # processes. drain() raises what anyio's send would have wrapped, and waits while the
            # pipe is full.
            await writer.drain()
            self._outbox.append(data + b"\n")
            if len(self._outbox) == 1:
                asyncio.get_running_loop().call_soon(self._flush, writer)
            return
        await self.process.stdin.send(data + b"\n")

    def _pipe_writer(self) -> asyncio.StreamWriter | None:
        """asyncio's writer under anyio's stdin stream, where the backend has one."""
        writer = getattr(self.process.stdin, "_stream", None) if self.process is not None else None
        return writer if isinstance(writer, asyncio.StreamWriter) else None

    def _flush(self, writer: asyncio.StreamWriter) -> None:
        lines, self._outbox = b"".join(self._outbox), []
        if lines and not writer.is_closing():
            writer.write(lines)

    async def lines(self) -> AsyncIterator[bytes | OversizeLine]:
        """Yield stdout lines (without the newline) until EOF; overlong lines as OversizeLine."""
        assert self.process is not None and self.process.stdout is not None
        buf = bytearray()
        skipping = 0  # bytes of an overlong line discarded so far
        head = b""
        try:
            async for chunk in self.process.stdout:
                start = 0
                while True:
                    nl = chunk.find(b"\n", start)
                    piece = chunk[start:] if nl < 0 else chunk[start:nl]
                    if skipping:
                        skipping += len(piece)
                    elif len(buf) + len(piece) > self.max_line_bytes:
                        head = bytes(buf[:256])
                        skipping = len(buf) + len(piece)
                        buf.clear()
                    else:
                        buf += piece
                    if nl < 0:
                        break
                    if skipping:
                        yield OversizeLine(skipping, head)
                        skipping = 0
                    else:
                        yield bytes(buf)
                        buf.clear()
                    start = nl + 1
        except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
            pass
        if skipping:
            yield OversizeLine(skipping, head)
        elif buf:
            yield bytes(buf)

    @contextlib.asynccontextmanager
    async def reads_held(self) -> AsyncIterator[bool]:
        """Inside, nothing more is taken from the agent's stdout, as a client busy elsewhere takes
        nothing: once the pipe is full the agent's writes wait (or it drops them, its bug). What
        was read before stays readable. Yields whether reads could be held (asyncio's pipe)."""
        reader = getattr(self.process.stdout, "_stream", None) if self.process is not None else None
        pipe = getattr(reader, "_transport", None)
        if not isinstance(reader, asyncio.StreamReader) or not isinstance(pipe, asyncio.ReadTransport):
            yield False
            return
        pipe.pause_reading()
        try:
            yield True
        finally:
            # The reader pauses the pipe itself while its own buffer is full, and resumes it
            # once that is read: a pipe it paused is its to resume.
            if not getattr(reader, "_paused", False) and not pipe.is_closing():
                pipe.resume_reading()

    async def pump_stderr(self) -> None:
        assert self.process is not None and self.process.stderr is not None
        with contextlib.suppress(anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
            async for chunk in self.process.stderr:
                self.stderr.feed(chunk)

    async def wait(self) -> int:
        assert self.process is not None
        return await self.process.wait()

    async def terminate(self, grace: float = 1.0) -> None:
        """Close stdin, then SIGTERM and finally SIGKILL the whole process group."""
        if self.process is None:
            return
        with contextlib.suppress(Exception):
            if self.process.stdin is not None:
                writer = self._pipe_writer()
                if writer is not None:
                    self._flush(writer)  # what was sent is written before stdin closes
                await self.process.stdin.aclose()
        if self.process.returncode is None:
            with anyio.move_on_after(min(grace, 0.3)):
                await self.process.wait()
        for sig, wait_for in ((signal.SIGTERM, grace), (signal.SIGKILL, 5.0)):
            if not self._group_alive():
                break
            self._signal_group(sig)
            with anyio.move_on_after(wait_for):
                while self._group_alive():
                    if self.process.returncode is None:
                        with anyio.move_on_after(0.05):
                            await self.process.wait()
                    else:
                        await anyio.sleep(0.02)
        with contextlib.suppress(Exception):
            await self.process.aclose()

    def _signal_group(self, sig: int) -> None:
        if self.pgid is None:
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.pgid, sig)

    def _group_alive(self) -> bool:
        if self.pgid is None:
            return False
        try:
            os.killpg(self.pgid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        # A zombie leader still counts for killpg; it is reaped by wait(), so ask the OS.
        if self.process is not None and self.process.returncode is not None:
            return bool(live_group_members(self.pgid))
        return True


def live_group_members(pgid: int) -> list[int]:
    """Pids of live (non-zombie) processes in a process group.

    Zombies count for killpg but are dead; in a container whose pid 1 does not reap orphans,
    they stay, so liveness is read from /proc.
    """
    try:
        entries = os.listdir("/proc")
    except OSError:
        return []
    live = []
    for name in entries:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                stat = f.read().decode(errors="replace")
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[-1].split()
        if len(fields) > 2 and fields[2] == str(pgid) and fields[0] not in ("Z", "X"):
            live.append(int(name))
    return live
