"""A JSON-RPC 2.0 peer that talks to one agent process, checks every frame, and records it all.

The peer owns the request ids, waits for responses with a timeout, answers the requests an
agent sends to its client (with a refusal or a harmless default), keeps the agent's
notifications, and notes every envelope problem against the transcript index where it arrived.
When the agent exits, every pending request fails at once with the exit code and stderr tail.
"""

from __future__ import annotations

import asyncio
import bisect
import collections
import contextlib
import json
import re
import time
from collections.abc import AsyncIterator, Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import anyio

from conformance.core.outcomes import AgentExited, Unanswered, shorten
from conformance.core.transcript import NOTE, RECV, SEND, ConnectionLog, Transcript
from conformance.core.validation import strict_loads
from conformance.transport.channel import TransportRefused
from conformance.transport.envelope import classify_frame
from conformance.transport.stdio import OversizeLine, StdioProcess

__all__ = ["EnvelopeProblem", "JsonRpcPeer", "RawReply", "Reply", "default_client_answer", "id_key"]


@dataclass
class Reply:
    """The agent's answer to one request: exactly one of ``result`` / ``error`` is meaningful."""

    id: int | str  # str: a burst's ids with text (unread_burst)
    method: str
    result: Any = None
    error: dict[str, Any] | None = None
    elapsed: float = 0.0
    index: int = -1  # the transcript index of the answer (-1: none came)

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def code(self) -> int | None:
        return self.error.get("code") if isinstance(self.error, dict) else None

    def describe(self, limit: int = 300) -> str:
        """The answer in one line, the agent's JSON cut at ``limit`` characters with a visible ellipsis."""
        if self.error is not None:
            return f"error {shorten(json.dumps(self.error, ensure_ascii=False), limit)}"
        return f"result {shorten(json.dumps(self.result, ensure_ascii=False), limit)}"


@dataclass(frozen=True)
class RawReply:
    frame: dict[str, Any] | None  # None: no response within the time allowed
    elapsed: float
    stray: dict[str, Any] | None = None  # a response by another id, which ended the wait early


def id_key(value: Any) -> str:
    """A dictionary key for any JSON-RPC id ("1", 1 and null stay distinct; 1.0 is the number 1,
    as JSON has one number type)."""
    if type(value) is int:  # the suite's own ids: the common case, without a JSON encoder
        return str(value)
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**63:
        value = int(value)
    try:
        return json.dumps(value, sort_keys=True)
    except (TypeError, ValueError):
        return repr(value)


ID_IN_HEAD = re.compile(rb'"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.){0,200}")')


def id_in_head(head: bytes) -> Any:
    """The id of a response whose line was too long to read, from its first bytes, if it shows."""
    found = ID_IN_HEAD.search(head)
    if found is None:
        return _NO_ID
    try:
        return json.loads(found.group(1))
    except ValueError:
        return _NO_ID


_NO_ID: Any = object()


@dataclass(frozen=True)
class EnvelopeProblem:
    index: int  # transcript index of the offending frame
    problem: str
    # A line that is no JSON-RPC message at all (a banner, a log line, a bare JSON value): the
    # agent's stdout carries something the protocol never does, a robustness finding. Otherwise a
    # message the protocol does carry (a response, a notification) arrived broken.
    noise: bool = False


@dataclass(frozen=True)
class Notification:
    index: int
    method: str
    params: Any


# How much of each frame of an unread burst the transcript keeps: its thousands of frames tell
# only that each request was sent and answered.
BURST_FRAME_CHARS = 300


@dataclass
class _Pending:
    method: str
    sent_at: float
    event: anyio.Event = field(default_factory=anyio.Event)
    frame: dict[str, Any] | None = None
    exited: AgentExited | None = None
    stray: dict[str, Any] | None = None  # raw exchanges: a response by an id nobody waits for
    oversize: int = 0  # the response came as a line over the frame limit, of this many bytes
    index: int = -1  # the transcript index of the response


def default_client_answer(method: str, params: Any) -> tuple[Any, dict[str, Any] | None]:
    """How the suite's client answers agent-to-client requests: (result, error)."""
    if method == "session/request_permission":
        return {"outcome": _permission_outcome(params)}, None
    if method == "ping":  # MCP: a server may check that its client is alive
        return {}, None
    # The suite advertises no fs or terminal capability; it never touches files or runs commands.
    return None, {"code": -32601, "message": "Method not found", "data": {"method": method}}


def _permission_outcome(params: Any) -> dict[str, Any]:
    """The user's answer to a permission request: one of its reject options where it offers one
    (the suite wants no tool to run); `cancelled` otherwise. Not `cancelled` where it can be
    helped: that outcome means the turn was cancelled, and an agent that honours it ends the turn
    `cancelled`, which would hide a status call that cancels the turn."""
    options = params.get("options") if isinstance(params, dict) else None
    rejects = (
        [
            o
            for o in options or []
            if isinstance(o, dict) and isinstance(o.get("optionId"), str) and o.get("kind") in REJECT_KINDS
        ]
        if isinstance(options, list)
        else []
    )
    if rejects:
        rejects.sort(key=lambda o: REJECT_KINDS.index(o["kind"]))
        return {"outcome": "selected", "optionId": rejects[0]["optionId"]}
    return {"outcome": "cancelled"}


REJECT_KINDS = ("reject_once", "reject_always")


class JsonRpcPeer:
    def __init__(
        self,
        process: StdioProcess,
        transcript: Transcript | ConnectionLog,
        *,
        timeout: float,
        answer: Callable[[str, Any], tuple[Any, dict[str, Any] | None]] = default_client_answer,
    ) -> None:
        self.process = process
        self.transcript = transcript
        self.timeout = timeout
        # How this connection answers the agent's requests; a client profile (the files an editor
        # serves) replaces it before the handshake that declares the profile.
        self.answer = answer
        self._next_id = 1
        self._pending: dict[str, _Pending] = {}  # by id_key(id)
        self._raw_waiting: list[_Pending] = []  # raw exchanges in flight (fuzzing)
        # Agent-to-client requests the suite holds unanswered (a v2 case watching requires_action).
        self.hold_methods: set[str] = set()
        self.held: list[dict[str, Any]] = []
        self.last_frame_at = float("-inf")  # when a line last went either way (anyio's clock)
        self._timed_out: set[str] = set()  # ids the suite gave up on: a late answer is no envelope error
        self.reported = 0  # problems already charged to a case (the runtime's bookkeeping)
        self.notifications: list[Notification] = []
        self.problems: list[EnvelopeProblem] = []
        self.exited: AgentExited | None = None
        self._send_lock = anyio.Lock(fast_acquire=True)  # no turn of the loop when free
        self._bursting = False  # an unread burst is in flight (unread_burst)
        self.strays = 0  # responses whose id matched no request the suite sent or stopped waiting for
        self._answering: set[asyncio.Task[None]] = set()  # answers to the agent sent beside the read loop
        # The current case's first request that got no (readable) response: the case ends there,
        # and every later request of the case fails at once instead of waiting again.
        self.unanswered: Unanswered | None = None
        self.answered: collections.Counter[str] = collections.Counter()  # responses by method, this case
        self.sent: collections.Counter[str] = collections.Counter()  # requests by method, this case

    def new_case(self) -> None:
        self.unanswered = None
        self.answered.clear()
        self.sent.clear()

    def _stalled(self) -> Unanswered:
        first = self.unanswered
        assert first is not None
        return Unanswered(
            first.method, first.request_id, first.limit, why=first.why, params=first.params, clock=first.clock
        )

    # -- sending -------------------------------------------------------------------------------

    async def _send(self, frame: dict[str, Any]) -> None:
        # allow_nan=False: the suite never sends NaN or Infinity, which are not JSON.
        text = json.dumps(frame, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
        try:
            data = text.encode()
        except UnicodeEncodeError:  # a lone surrogate: only a \uXXXX escape can carry it
            data = json.dumps(frame, ensure_ascii=True, separators=(",", ":"), allow_nan=False).encode()
        await self.send_raw(data)

    async def send_raw(self, data: bytes) -> None:
        """Send one line as-is (used by fuzzing to send malformed frames)."""
        if self.exited is not None:
            raise self.exited
        self.transcript.add(SEND, data.decode("utf-8", errors="replace"))
        self.last_frame_at = anyio.current_time()
        try:
            async with self._send_lock:
                await self.process.send_line(data)
        except (anyio.BrokenResourceError, anyio.ClosedResourceError, BrokenPipeError, OSError):
            await self._wait_exit_briefly()
            raise self.exited or AgentExited(self.process.returncode, self.process.stderr.text()) from None

    @contextlib.asynccontextmanager
    async def reads_held(self) -> AsyncIterator[bool]:
        """The transport's reads held (stdio: the agent's stdout pipe), where it can; yields
        whether it could."""
        held = getattr(self.process, "reads_held", None)
        if held is None:
            yield False
            return
        async with held() as holding:
            yield holding

    async def unread_burst(
        self,
        calls: list[tuple[str, Any]],
        *,
        hold: float,
        stall: float,
        limit: float,
        id_text: str = "",
    ) -> tuple[list[Reply | None], bool]:
        """These requests, all in flight at once while the connection's reads are held (a client
        that reads slowly) for ``hold`` seconds once all were handed to the transport; then their
        answers are waited for as long as they keep coming. Each one's Reply, or None where none
        had come when no answer had come for ``stall`` seconds (or ``limit`` after reads resumed);
        and whether reads could be held. A request left unanswered is the caller's to judge: the
        connection takes requests again, and its answer, if it comes, is a late one. ``id_text``:
        the requests' ids are strings, their number and this text (an id the agent must echo
        exactly, so one it read in pieces answers no request)."""
        replies: list[Reply | None] = [None] * len(calls)
        held = False
        settled = 0  # requests answered, or ended without an answer

        async def one(n: int) -> None:
            nonlocal settled
            method, params = calls[n]
            try:
                with contextlib.suppress(Unanswered):
                    replies[n] = await self.request(
                        method, params, timeout=hold + limit + stall + 60, id_text=id_text
                    )
            finally:
                settled += 1

        log = self.transcript.transcript if isinstance(self.transcript, ConnectionLog) else self.transcript
        sent = sum(self.sent.values())
        # The agent's requests meanwhile are answered beside the read loop: their answers may wait
        # behind the burst's own lines, and the loop must go on reading for those to move.
        self._bursting = True
        try:
            with log.frames_cut_at(BURST_FRAME_CHARS):
                async with anyio.create_task_group() as tg:
                    async with self.reads_held() as held:
                        self.transcript.add(NOTE, f"{len(calls)} requests sent while the suite reads nothing")
                        for n in range(len(calls)):
                            tg.start_soon(one, n)
                        handed = anyio.current_time() + hold + stall
                        while sum(self.sent.values()) < sent + len(calls) and anyio.current_time() < handed:
                            await anyio.sleep(0.01)
                        await anyio.sleep(hold)
                    self.transcript.add(NOTE, f"the suite reads again, after holding its reads {hold:.1f} s")
                    end = anyio.current_time() + limit
                    seen, moved = -1, anyio.current_time()
                    while settled < len(calls):
                        await anyio.sleep(0.05)
                        now, answered = anyio.current_time(), sum(1 for r in replies if r is not None)
                        if answered != seen:
                            seen, moved = answered, now
                        elif now - moved > stall or now > end:
                            tg.cancel_scope.cancel()
                            break
        finally:
            self._bursting = False
        self.unanswered = None
        return replies, held

    async def request(
        self,
        method: str,
        params: Any = None,
        *,
        timeout: float | None = None,
        clock: str = "request",
        reuse_id: int | None = None,
        id_text: str = "",
    ) -> Reply:
        """Send a request and wait for its answer, up to ``timeout`` (default: --timeout). ``clock``
        names what the wait is ("turn": a prompt, on --turn-timeout) in the message if it runs out.
        ``reuse_id``: an id an earlier request of this connection had, once answered (JSON-RPC
        lets a client use an id again; clients that count from 1 on each connection do).
        ``id_text``: a string id, the request's number and this text."""
        if self.unanswered is not None:
            raise self._stalled()
        self.sent[method] += 1
        key = id_key(reuse_id) if reuse_id is not None else None
        if (
            reuse_id is not None
            and 0 < reuse_id < self._next_id
            and key not in self._pending
            and key not in self._timed_out
        ):
            request_id = reuse_id
        else:
            request_id = self._next_id
            self._next_id += 1
        if id_text:
            request_id = f"{request_id} {id_text}"
        frame: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            frame["params"] = params
        pending = _Pending(method, time.perf_counter())
        self._pending[id_key(request_id)] = pending
        limit = self.timeout if timeout is None else timeout
        try:
            async with asyncio.timeout(limit):  # the send too: an agent that stops reading blocks it
                await self._send(frame)
                await pending.event.wait()
        except TimeoutError:
            self.transcript.add(NOTE, f"no response to id {request_id} ({method}) within {limit:g} s")
            self._timed_out.add(id_key(request_id))
            self.unanswered = Unanswered(method, request_id, limit, params=params, clock=clock)
            raise self._stalled() from None
        except TransportRefused as refused:  # Streamable HTTP: an HTTP error instead of an answer
            self.transcript.add(NOTE, f"the transport refused id {request_id} ({method}): {refused}")
            error = {"code": None, "message": f"refused by the transport: {refused}"}
            return Reply(request_id, method, None, error, time.perf_counter() - pending.sent_at)
        finally:
            self._pending.pop(id_key(request_id), None)
            # Timed out, or cancelled with its case (a burst's sibling stalled): an answer that
            # comes later is a late answer, not an envelope problem.
            if not pending.event.is_set():
                self._timed_out.add(id_key(request_id))
        if pending.exited is not None:
            raise pending.exited.during(method)
        if pending.oversize:
            self.unanswered = Unanswered(
                method,
                request_id,
                limit,
                params=params,
                why=_oversize(pending.oversize, self.process),
                clock=clock,
            )
            raise self._stalled()
        self.answered[method] += 1
        elapsed = time.perf_counter() - pending.sent_at
        got = pending.frame or {}
        error = got.get("error") if "error" in got else None
        if error is not None and not isinstance(error, dict):
            error = {"code": None, "message": repr(error)}
        return Reply(request_id, method, got.get("result"), error, elapsed, pending.index)

    async def exchange_raw(
        self, data: bytes, expect_id: Any = None, *, wait: bool, timeout: float, method: str = "a raw frame"
    ) -> RawReply:
        """Send one raw line; if ``wait``, wait for the response carrying ``expect_id``.

        Used by fuzzing: the line may be anything, and the id may be any JSON value.
        """
        if self.unanswered is not None:
            raise self._stalled()
        key = id_key(expect_id)
        if wait and key in self._pending:
            raise RuntimeError(f"a request with id {expect_id!r} is already in flight")
        pending = _Pending("<raw>", time.perf_counter())
        if wait:
            self._pending[key] = pending
            self._raw_waiting.append(pending)
        try:
            await self.send_raw(data)
            if not wait:
                return RawReply(None, 0.0)
            with anyio.move_on_after(timeout):
                await pending.event.wait()
        finally:
            if wait:
                self._pending.pop(key, None)
                self._raw_waiting.remove(pending)
        if pending.exited is not None:
            raise pending.exited.during(method)
        if pending.frame is None and pending.stray is None:
            why = _oversize(pending.oversize, self.process) if pending.oversize else ""
            self.unanswered = Unanswered(method, expect_id, timeout, why=why, params=_head(data))
            raise self._stalled()
        return RawReply(pending.frame, time.perf_counter() - pending.sent_at, pending.stray)

    def expect(self, frame_id: Any) -> _Pending:
        """Register a response the suite may receive for a line it sends raw (fuzzing)."""
        pending = _Pending("<raw>", time.perf_counter())
        self._pending[id_key(frame_id)] = pending
        return pending

    def unexpect(self, frame_id: Any) -> None:
        self._pending.pop(id_key(frame_id), None)

    async def notify(self, method: str, params: Any = None) -> None:
        frame: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            frame["params"] = params
        try:
            await self._send(frame)
        except TransportRefused as refused:  # a notification has no answer to fail: note it
            self.transcript.add(NOTE, f"the transport refused the {method} notification: {refused}")

    # -- receiving -----------------------------------------------------------------------------

    async def read_loop(self) -> None:
        async for line in self.process.lines():
            self.last_frame_at = anyio.current_time()
            if isinstance(line, OversizeLine):
                entry = self.transcript.add(
                    RECV,
                    line.head.decode("utf-8", errors="replace") + f"…[line of {line.size} bytes dropped]",
                )
                self._problem(entry.index, f"stdout line of {line.size} bytes exceeds the frame limit")
                # The answer to a request, too long to read: end that request's wait now (the case
                # reports it once) rather than let it wait out the timeout.
                waiting = self._pending.get(id_key(id_in_head(line.head)))
                if waiting is not None and waiting.frame is None:
                    waiting.oversize = line.size
                    waiting.event.set()
                continue
            if not line.strip():
                continue
            text = line.decode("utf-8", errors="replace")
            entry = self.transcript.add(RECV, text)
            try:
                frame = strict_loads(line)
            except (ValueError, UnicodeDecodeError, RecursionError):
                self._problem(
                    entry.index,
                    "stdout line is not JSON (stdout is reserved for JSON-RPC messages)",
                    noise=True,
                )
                continue
            await self._dispatch(entry.index, frame)

    async def _dispatch(self, index: int, frame: Any) -> None:
        kind, problems = classify_frame(frame)
        for p in problems:
            self._problem(index, p, noise=kind == "invalid")
        if kind == "response":
            rid = frame.get("id")
            pending = self._pending.get(id_key(rid))
            if pending is None and id_key(rid) in self._timed_out:
                self._timed_out.discard(id_key(rid))
                self.transcript.add(NOTE, f"a late answer to id {rid!r}, after the suite stopped waiting")
                return
            if pending is None:
                self.strays += 1
                self._problem(
                    index, f"response id {rid!r} matches no request in flight (unknown or answered twice)"
                )
                for raw in self._raw_waiting:  # the answer to a raw line came back under another id
                    raw.stray = frame
                    raw.event.set()
                return
            if pending.frame is not None:
                self._problem(index, f"second response to id {rid!r}")
                return
            pending.frame = frame
            pending.index = index
            pending.event.set()
        elif kind == "notification":
            self.notifications.append(Notification(index, frame.get("method"), frame.get("params")))
        elif kind == "request":
            method = frame.get("method")
            if isinstance(method, str) and method in self.hold_methods:  # a case answers it later
                self.held.append(frame)
                return
            if self._bursting:
                answering = asyncio.get_running_loop().create_task(self._answer_request(frame))
                self._answering.add(answering)
                answering.add_done_callback(self._answering.discard)
                return
            await self._answer_request(frame)

    async def _answer_request(self, frame: dict[str, Any]) -> None:
        result, error = self.answer(frame["method"], frame.get("params"))  # a request has one
        reply: dict[str, Any] = {"jsonrpc": "2.0", "id": frame.get("id")}
        if error is not None:
            reply["error"] = error
        else:
            reply["result"] = result
        with contextlib.suppress(AgentExited, TransportRefused):
            await self._send(reply)

    @contextlib.asynccontextmanager
    async def holding(self, methods: Iterable[str], *, answer: bool = True) -> AsyncIterator[int]:
        """The agent's requests of ``methods`` held unanswered inside the block (a user or an
        editor takes its time; ``held`` has them), how many were held before it yielded. At its
        end they are answered, as the suite always answers them, or (``answer`` False: the agent
        process that asked is gone) dropped."""
        self.hold_methods = set(methods)
        try:
            yield len(self.held)
        finally:
            if answer:
                with anyio.CancelScope(shield=True):
                    await self.release()
            else:
                self.hold_methods = set()
                self.held.clear()

    async def release(self) -> None:
        """Answer the held agent-to-client requests, as the suite always answers them."""
        self.hold_methods = set()
        while self.held:
            await self._answer_request(self.held.pop(0))

    def _problem(self, index: int, problem: str, *, noise: bool = False) -> None:
        self.problems.append(EnvelopeProblem(index, problem, noise))
        self.transcript.add(NOTE, f"{'stdout' if noise else 'envelope'}: {problem}")

    # -- exit ----------------------------------------------------------------------------------

    async def watch_exit(self) -> None:
        code = await self.process.wait()
        # Let the stdout/stderr readers drain what the agent wrote before dying.
        await anyio.sleep(0.05)
        self.exited = AgentExited(code, self.process.stderr.text()[-2000:])
        self.transcript.add(NOTE, f"agent exited with code {code}")
        for pending in list(self._pending.values()):
            if pending.frame is None:
                pending.exited = self.exited
                pending.event.set()

    def abort(self, code: int | None) -> None:
        """The suite stopped the agent: fail whatever still waits for it, at once."""
        if self.exited is None:
            self.exited = AgentExited(code, "(stopped by the suite)")
        for pending in list(self._pending.values()):
            if pending.frame is None and pending.exited is None:
                pending.exited = self.exited
                pending.event.set()

    async def _wait_exit_briefly(self) -> None:
        with anyio.move_on_after(1.0):
            while self.exited is None:
                await anyio.sleep(0.01)

    def notifications_since(self, mark: int) -> list[Notification]:
        start = bisect.bisect_left(self.notifications, mark, key=lambda n: n.index)
        return self.notifications[start:]


def _oversize(size: int, process: Any) -> str:
    limit = getattr(process, "max_line_bytes", None)
    over = f", over the suite's {limit // (1024 * 1024)} MiB frame limit" if limit else ""
    return f"its response was a line of {size:,} bytes{over}, too long to read"


def _head(data: bytes) -> str:
    text = data[:120].decode("utf-8", errors="replace")
    return text + ("…" if len(data) > 120 else "")
