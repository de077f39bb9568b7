"""The MCP target's driver: an MCP server's `session_heartbeat` tool, spoken to as an MCP client.

Frames go through the suite's own JSON-RPC peer (stdio) or the official SDK's Streamable HTTP
client (:mod:`conformance.targets.mcp.http_channel`), so every frame is in the transcript and its envelope is
checked, as for ACP. Cases see heartbeat results as :class:`ToolReply` (read by
:mod:`conformance.targets.mcp.reading`), reach the operator's side (enqueueing human instructions,
:mod:`conformance.targets.mcp.operator`) and a second caller through this adapter; an input the
user did not give is :class:`MissingInput` (not testable, never passed). The target's declaration
(options, how the server starts) is :mod:`conformance.targets.mcp.declaration`.
"""

from __future__ import annotations

import contextlib
import dataclasses
import time
import uuid
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

import anyio

from conformance.core import revisions
from conformance.core.outcomes import HarnessError, MissingInput, NotApplicable, NotTestable, Unanswered
from conformance.core.transcript import NOTE
from conformance.targets.base import DriverHooks
from conformance.targets.mcp import era as eras
from conformance.targets.mcp.operator import OperatorHook
from conformance.targets.mcp.options import McpOptions
from conformance.targets.mcp.output import OUTPUT_SCHEMA_KEY, OutputSchemaBroken, output_problem
from conformance.targets.mcp.reading import (
    MAX_PAGES,
    Instruction,
    NoInstructionList,
    ResultReader,
    ToolReply,
    carries,
    has,
    ids_for,
    pointer_get,
    raise_if_elsewhere,
    unfollowed_message,
)
from conformance.transport.peer import JsonRpcPeer, Reply
from conformance.transport.stdio import StdioProcess

if TYPE_CHECKING:
    from conformance.core.config import AgentConfig
    from conformance.targets.base import Driver, Harness


T = TypeVar("T")  # what a check run in each era finds
__all__ = [
    "TOOL",
    "Delivery",
    "Instruction",
    "McpTarget",
    "NoInstructionList",
    "ToolReply",
    "carries",
    "has",
    "ids_for",
    "new_key",
    "new_session_id",
    "raise_if_elsewhere",
    "unfollowed_message",
]

TOOL = "session_heartbeat"
# The progress tokens the suite sent on each connection (by its peer): progress for one of them
# was asked for, for any other it was not (heartbeat.wire.notifications-declared).
_PROGRESS_TOKENS: weakref.WeakKeyDictionary[JsonRpcPeer, list[str | int]] = weakref.WeakKeyDictionary()
# The heartbeats the suite sent naming each session, over every connection and caller of a run,
# refused ones included: a stated allowance (--mcp-request-limit) is never asked for more, whatever
# the server counts. The runs in _PAST_ALLOWANCE are probing the allowance itself.
_SPENT: weakref.WeakKeyDictionary[Harness, dict[str, int]] = weakref.WeakKeyDictionary()
_PAST_ALLOWANCE: weakref.WeakSet[Harness] = weakref.WeakSet()


@dataclass
class Delivery:
    """What polling a session for instructions saw: each drain's items, every reply, and when
    each awaited text first came (seconds after the poll began; 0: in its first drain)."""

    drains: list[list[Instruction]]
    replies: list[ToolReply]
    arrived: dict[str, float]
    missing: list[str]
    waited: float
    pages: list[int]  # each drain's
    unfollowed: str | None = None  # a cursor-like field the suite did not follow, if any
    session_id: str = ""

    @property
    def items(self) -> list[Instruction]:
        return [i for drain in self.drains for i in drain]

    def first_with(self, text: str) -> list[Instruction]:
        """The items of the first drain that delivered this text."""
        return next((d for d in self.drains if any(carries(i, text) for i in d)), [])

    async def explain_missing(self, mcp: McpTarget) -> None:
        """MissingInput when something did not come while the results carried a field that is a
        cursor the suite did not follow: what is missing was on a page it never asked for."""
        if self.missing and self.unfollowed is not None:
            path = await mcp.cursor_hiding(self.session_id, self.replies, self.missing)
            if path is not None:
                raise MissingInput(unfollowed_message(path, len(self.missing)))


class AllowanceSpent(MissingInput):
    """A check would need more heartbeats for one session than the allowance the user stated."""


class McpTarget(DriverHooks):
    """One MCP server under test, spoken to as an MCP client (one caller per connection)."""

    name: ClassVar[str] = "mcp"
    status_method: ClassVar[str] = "tools/call"  # the heartbeat is the only tool the suite calls
    status_need: ClassVar[str] = "heartbeat"

    @staticmethod
    def replay_record(config: AgentConfig) -> dict[str, Any]:
        options = options_of(config)
        return {
            "transport": config.transport,
            "instructCmd": options.instruct_cmd,
            "instructUrl": options.instruct_url,
            "mcpProtocol": options.protocol,
        }

    def is_status_call(self, method: str) -> bool:
        return method == self.status_method

    async def new_session(self) -> str:
        return new_session_id()

    async def detect_revision(self) -> tuple[str, str]:
        return revisions.available(self.name)[0], f"the {self.name} target's spec"

    def __init__(self, harness: Harness, peer: JsonRpcPeer | None = None) -> None:
        self.harness = harness
        self.options = options_of(harness.config)
        self.init_result: dict[str, Any] = {}
        self.tools: list[dict[str, Any]] = []
        self._peer = peer
        # The wire revision, chosen by the first handshake: restarts and other connections open in
        # it (on stdio the first request fixes a process's era).
        self.era: eras.Era | None = None
        # What this run has learnt of the server, so later reads need not guess again.
        self.accepted: set[str] = set()  # session ids that took a heartbeat
        self._made_up: bool | None = None  # whether sessions the suite makes up are taken
        self._made_up_refusal = ""
        self.reader = ResultReader(lambda: self.options)
        self.operator = OperatorHook(harness, lambda: self.options)
        self._lag: tuple[float, Delivery] | None = None
        self.discovered: dict[str, Any] = {}  # the server's policies, as the thorough profile found them

    @property
    def peer(self) -> JsonRpcPeer:
        return self._peer if self._peer is not None else self.harness.peer

    @property
    def settle(self) -> float:
        return self.harness.config.settle

    # -- handshake -----------------------------------------------------------------------------

    async def handshake(self) -> dict[str, Any]:
        """Open the era --mcp-protocol asks for (the one already chosen, after a restart), then list
        the tools; what the report shows of the server, its wire revision apart."""
        preference = self.options.protocol if self.era is None else self.era.version
        if preference not in (eras.SPEC_WIRE, eras.MODERN, eras.AUTO):  # a negotiated handshake revision
            preference = eras.SPEC_WIRE
        era = await eras.negotiate(preference, self.peer.request, self.peer.notify, forgive=self._forgive)
        if self.era is not None:
            era.chosen = self.era.chosen  # how the run's era was chosen, not how it was reopened
        self.era, self.init_result = era, era.result
        self.tools = await self.list_tools()
        return {
            "protocolVersion": era.version,
            "serverInfo": era.server_info,
            "capabilities": era.capabilities,
            "tools": [str(t.get("name"))[:100] for t in self.tools][:100],
            "wire": era.to_json(),
        }

    def said(self) -> dict[str, Any]:
        """The era's handshake answer, once it came (listing the tools may stop the handshake after it)."""
        return dict(self.init_result)

    def _forgive(self, unanswered: Unanswered) -> None:
        """An auto probe that went unanswered: noted, and the connection takes requests again."""
        self.peer.transcript.add(
            NOTE, f"server/discover got no answer ({unanswered.why}): trying the initialize handshake"
        )
        self.peer.unanswered = None

    @property
    def server_info(self) -> dict[str, Any] | None:
        """The server's identity (bounded): initialize's serverInfo, or server/discover's _meta one."""
        return self.era.server_info if self.era is not None else None

    def wire_params(self, params: Any) -> Any:
        """A request's params in the connection's era: in the stateless one, with the envelope
        under _meta."""
        if self.era is not None and self.era.modern:
            return eras.stamp(params, self.era.version)
        return params

    async def request(self, method: str, params: Any = None) -> Reply:
        """A request in the connection's era (:meth:`wire_params`)."""
        if method == "tools/call" and isinstance(params, dict) and params.get("name") == TOOL:
            self._spend(params.get("arguments"))
        return await self.peer.request(method, self.wire_params(params))

    def _spend(self, arguments: Any) -> None:
        """One heartbeat of the session ``arguments`` name spent from a stated allowance; past it,
        MissingInput: the check needs more heartbeats for one session than the server allows."""
        limit = self.options.request_limit
        sid = arguments.get("sessionId") if isinstance(arguments, dict) else None
        if limit is None or not isinstance(sid, str) or self.harness in _PAST_ALLOWANCE:
            return
        spent = _SPENT.setdefault(self.harness, {})
        if spent.get(sid, 0) >= limit:
            raise AllowanceSpent(
                f"this check needs more than {limit} heartbeats for session {sid[:40]!r}, the server's allowance "
                f"(--mcp-request-limit {limit})"
            )
        spent[sid] = spent.get(sid, 0) + 1

    @contextlib.contextmanager
    def past_allowance(self) -> Iterator[None]:
        """Heartbeats sent past a stated allowance, to see where the server refuses them."""
        _PAST_ALLOWANCE.add(self.harness)
        try:
            yield
        finally:
            _PAST_ALLOWANCE.discard(self.harness)

    async def list_tools(self) -> list[dict[str, Any]]:
        tools: list[dict[str, Any]] = []
        cursor = None
        for _ in range(MAX_PAGES):
            reply = await self.request("tools/list", {"cursor": cursor} if cursor else {})
            if not reply.ok or not isinstance(reply.result, dict):
                raise HarnessError(f"the server answered tools/list with {reply.describe()}")
            page = reply.result.get("tools")
            tools += [t for t in page if isinstance(t, dict)] if isinstance(page, list) else []
            cursor = reply.result.get("nextCursor")
            if not isinstance(cursor, str) or not cursor:
                break
        return tools

    def advertises(self, name: str) -> bool:
        if name == "heartbeat":
            return self.tool is not None
        return name in ("frames",) and self.harness.config.transport == "stdio"

    def capability_name(self, name: str) -> str:
        return f"a {TOOL} tool (tools/list)" if name == "heartbeat" else name

    @property
    def tool(self) -> dict[str, Any] | None:
        return next((t for t in self.tools if t.get("name") == TOOL), None)

    def status_values(self) -> list[str]:
        """The status values the heartbeat tool's own inputSchema offers (its enum), at most 16."""
        schema = (self.tool or {}).get("inputSchema")
        properties = schema.get("properties") if isinstance(schema, dict) else None
        status = properties.get("status") if isinstance(properties, dict) else None
        values = status.get("enum") if isinstance(status, dict) else None
        return [v for v in values if isinstance(v, str)][:16] if isinstance(values, list) else []

    # -- calls ---------------------------------------------------------------------------------

    async def call(self, arguments: Any, *, name: str = TOOL) -> ToolReply:
        reply = ToolReply(await self.request("tools/call", {"name": name, "arguments": arguments}))
        return self._conforming(name, arguments, reply)

    def _conforming(self, name: str, arguments: Any, reply: ToolReply) -> ToolReply:
        """``reply``, once it conforms to the tool's outputSchema: a result that does not fails the
        case it arrives in, quoting that sentence, whatever the case checks."""
        tool = next((t for t in self.tools if t.get("name") == name), None)
        problem = output_problem(tool, reply)
        if problem is not None:
            shown = {
                k: (v if not isinstance(v, str) or len(v) <= 80 else f"<{len(v)} characters>")
                for k, v in (arguments.items() if isinstance(arguments, dict) else ())
            }
            raise OutputSchemaBroken(
                f"a {name} result does not conform to the tool's outputSchema: {problem} (the call's arguments: "
                f"{str(shown)[:400]})",
                expected="structuredContent conforming to the tool's outputSchema (MCP 2025-06-18)",
                observed=problem,
                spec_key=OUTPUT_SCHEMA_KEY,
            )
        return reply

    async def call_with_progress(self, arguments: Any, token: str | int) -> ToolReply:
        """A heartbeat call asking for progress (``_meta.progressToken``), the token noted as sent
        on this connection."""
        _PROGRESS_TOKENS.setdefault(self.peer, []).append(token)
        params = {"name": TOOL, "arguments": arguments, "_meta": {"progressToken": token}}
        return self._conforming(TOOL, arguments, ToolReply(await self.request("tools/call", params)))

    @property
    def progress_tokens(self) -> list[str | int]:
        """The progress tokens the suite sent on this connection."""
        return list(_PROGRESS_TOKENS.get(self.peer, ()))

    async def heartbeat(self, session_id: str, **fields: Any) -> ToolReply:
        """A heartbeat with a fresh idempotency key (unless one is given)."""
        fields.setdefault("idempotencyKey", new_key())
        reply = await self.call({"sessionId": session_id, **fields})
        if reply.succeeded and isinstance(session_id, str):
            self.accepted.add(session_id)
            self._made_up = True
        return reply

    async def ok_heartbeat(self, session_id: str, **fields: Any) -> ToolReply:
        """A heartbeat that must succeed: a valid call rejected makes the case not testable (a
        failure), unless it opened a session the server does not take from the suite."""
        reply = await self.heartbeat(session_id, **fields)
        if not reply.succeeded:
            await self.explain_refusal(session_id, reply, fields)
            raise NotTestable(f"a valid heartbeat {fields or ''} was answered with {reply.describe()}")
        return reply

    async def explain_refusal(self, session_id: str, reply: ToolReply, fields: dict[str, Any]) -> None:
        """MissingInput when a refused call was the first for a session id the suite made up and a
        heartbeat with only the required fields is refused there too: the server "verifies ...
        resource-level access", so it may take sessions only from its own platform. Once a session
        has accepted a heartbeat, a refused valid call is what the case says it is."""
        if session_id in self.accepted:
            return
        minimal = reply if set(fields) <= {"idempotencyKey"} else await self.heartbeat(session_id)
        if not minimal.succeeded:
            raise MissingInput(_refuses_made_up(session_id, minimal))

    async def require_made_up_sessions(self) -> None:
        """MissingInput unless the server takes a heartbeat for a session id the suite makes up
        (asked once per run): without that, a refusal says nothing of the arguments refused."""
        if self._made_up is None:
            sid = new_session_id()
            reply = await self.heartbeat(sid)
            self._made_up = reply.succeeded
            self._made_up_refusal = _refuses_made_up(sid, reply)
        if not self._made_up:
            raise MissingInput(self._made_up_refusal)

    # -- reading results -----------------------------------------------------------------------

    def instructions(self, reply: ToolReply) -> list[Instruction]:
        return self.reader.instructions(reply)

    def cursor(self, reply: ToolReply) -> str | None:
        return self.reader.cursor(reply)

    def unfollowed_cursor(self, reply: ToolReply) -> str | None:
        return self.reader.unfollowed_cursor(reply)

    async def cursor_hiding(self, session_id: str, replies: list[ToolReply], texts: list[str]) -> str | None:
        """The unfollowed cursor-like field of these replies that is a cursor after all: sent back as
        instructionCursor, it brings one of the missing texts, and a cursor it never issued does
        not (a server that answers any cursor it cannot read with the first page). A field merely
        named like one (a `nextStep`, a `pageSize`) excuses nothing: calibrated, not guessed."""

        async def brings(cursor: Any) -> bool:
            follow = await self.heartbeat(session_id, instructionCursor=cursor)
            try:
                items = self.instructions(follow) if follow.succeeded else []
            except (NoInstructionList, MissingInput):
                items = []
            return any(carries(i, t) for i in items for t in texts)

        if not texts:
            return None
        for reply in replies:
            path = self.unfollowed_cursor(reply)
            if path is None:
                continue
            if await brings(f"conformance-never-issued-{uuid.uuid4().hex}"):
                return None  # any cursor brings them: what they are behind is not this field
            if await brings(pointer_get(reply.data, path)):
                return path
        return None

    async def delivered_ids(self, session_id: str, text: str, control: str) -> tuple[list[str], str]:
        """Enqueue ``text`` and a control instruction delivered with it (without a hook: nothing):
        the ids the first delivery gave ``text``, and, where none, why the list could not be read."""
        if not self.can_instruct:
            return [], ""
        await self.instruct(session_id, text)
        await self.instruct(session_id, control)
        try:
            delivery = await self.await_delivery(session_id, [text, control])
        except MissingInput as missing:  # the state may still tell
            return [], f" ({missing.message})"
        return ([] if delivery.missing else ids_for(delivery.first_with(text), [text])), ""

    async def drain_replies(self, session_id: str, **fields: Any) -> list[ToolReply]:
        """One heartbeat, then one per page while a cursor comes back (read later: see instructions)."""
        replies = [await self.ok_heartbeat(session_id, **fields)]
        cursor = self.cursor(replies[0])
        while cursor is not None and len(replies) < MAX_PAGES:
            replies.append(await self.ok_heartbeat(session_id, instructionCursor=cursor))
            cursor = self.cursor(replies[-1])
        return replies

    def items_of(self, replies: list[ToolReply]) -> list[Instruction]:
        return [i for r in replies for i in self.instructions(r)]

    async def drain(self, session_id: str, **fields: Any) -> tuple[list[Instruction], list[ToolReply]]:
        """Every pending instruction: one heartbeat, then one per page while a cursor comes back."""
        replies = await self.drain_replies(session_id, **fields)
        return self.items_of(replies), replies

    @property
    def delivery_wait(self) -> float:
        return self.options.delivery_wait or self.harness.config.timeout

    async def await_delivery(
        self, session_id: str, texts: list[str], *, wait: float | None = None, **fields: Any
    ) -> Delivery:
        """Drain the session again and again until every text has come, for up to the delivery wait:
        an operator's enqueue accepted is not proof that the instruction is pending yet. ``fields``
        go with each drain's first heartbeat (a status it reports, say)."""
        started = time.monotonic()
        deadline = started + (self.delivery_wait if wait is None else wait)
        drains: list[list[Instruction]] = []
        pages: list[int] = []
        replies: list[ToolReply] = []
        arrived: dict[str, float] = {}
        unread: NoInstructionList | None = None
        pause = 0.02
        while True:
            begun = time.monotonic() - started if drains else 0.0
            batch = await self.drain_replies(session_id, **fields)
            replies += batch
            try:
                items = self.items_of(batch)
            except NoInstructionList as missing:  # no list yet: results may omit it while it is empty
                raise_if_elsewhere(missing, batch, texts)
                unread, items = missing, []
            drains.append(items)
            pages.append(len(batch))
            for text in texts:
                if text not in arrived and any(carries(i, text) for i in items):
                    arrived[text] = begun
            if len(arrived) == len(texts) or time.monotonic() >= deadline:
                break
            await anyio.sleep(max(0.0, min(pause, deadline - time.monotonic())))
            pause = min(pause * 2, 0.5)
        missing = [t for t in texts if t not in arrived]
        if missing and unread is not None and self.reader.list_seen is None:
            raise unread
        unfollowed = next((u for r in replies if (u := self.unfollowed_cursor(r)) is not None), None)
        return Delivery(
            drains, replies, arrived, missing, time.monotonic() - started, pages, unfollowed, session_id
        )

    async def delivery_lag(self) -> tuple[float | None, Delivery]:
        """How long an instruction took to show after the operator hook returned, on a session of
        its own (measured once per run; None: it never showed within the delivery wait)."""
        if self._lag is not None:
            return self._lag
        sid = new_session_id()
        await self.ok_heartbeat(sid)
        text = f"conformance delivery-lag {uuid.uuid4().hex[:10]}"
        await self.instruct(sid, text)
        delivery = await self.await_delivery(sid, [text])
        lag = delivery.arrived.get(text)
        if lag is not None:
            self._lag = (lag, delivery)
        return lag, delivery

    # -- the operator's side and other callers -------------------------------------------------

    @property
    def can_instruct(self) -> bool:
        return self.operator.can_instruct

    async def instruct(self, session_id: str, text: str, *, refusable: bool = False) -> str | None:
        """Enqueue a human instruction through the operator hook (see OperatorHook.instruct)."""
        return await self.operator.instruct(session_id, text, refusable=refusable)

    def require_instruct(self) -> None:
        self.operator.require_instruct()

    def require_other_caller(self) -> None:
        if self.harness.config.transport != "http" or self.options.other_headers is None:
            raise MissingInput(
                "needs a second caller: serve the MCP server over Streamable HTTP (--mcp-url, or --mcp-cmd with "
                "--transport http) and pass caller B's credentials with --other-header K=V"
            )

    @contextlib.asynccontextmanager
    async def other_caller(self) -> AsyncIterator[McpTarget]:
        """A second connection with caller B's credentials (--other-header), initialized."""
        self.require_other_caller()
        from conformance.targets.mcp.http_channel import McpHttpChannel

        url = self.harness.current_url()
        assert url is not None
        headers = self.options.other_headers
        assert headers is not None  # require_other_caller raised MissingInput otherwise
        channel = McpHttpChannel(url, headers, self.harness.stderr)
        await channel.open(self.harness.config.timeout)
        transcript = self.harness.transcript.for_connection("B")
        peer = JsonRpcPeer(
            channel,  # type: ignore[arg-type]  # an HTTP channel, with the lines, send_line, wait, stderr of a process
            transcript,
            timeout=self.harness.config.timeout,
        )
        try:
            async with anyio.create_task_group() as tg:
                tg.start_soon(peer.read_loop)
                other = McpTarget(self.harness, peer=peer)
                other.era = self.era  # another header set, in the same era
                await other.handshake()
                yield other
                tg.cancel_scope.cancel()
        finally:
            with anyio.CancelScope(shield=True):
                await channel.close()
            self.harness.note_problems(peer)

    def require_second_connection(self) -> None:
        if self.harness.config.transport != "http":
            raise MissingInput(
                "needs the same caller on a second connection to the same server: serve the MCP server over "
                "Streamable HTTP (--mcp-url, or --mcp-cmd with --transport http); over stdio a second "
                "connection is a second server process"
            )
        # Access follows credentials: without any, two connections are two anonymous clients, which
        # a server may keep apart by connection.
        if not self.options.headers:
            raise MissingInput(
                "needs the caller's credentials (--header K=V, e.g. Authorization=Bearer TOKEN): without any, a "
                "second connection is another anonymous client, not the same caller"
            )

    @contextlib.asynccontextmanager
    async def same_caller(self) -> AsyncIterator[McpTarget]:
        """Caller A again on a second connection (its own credentials, a handshake of its own, as a
        client that reconnected), in the run's era, reading results as the run has learnt to.
        MissingInput over stdio: there a connection is a process, and a second one another server."""
        self.require_second_connection()
        async with self.fresh_connection("A2") as (peer, _):
            again = McpTarget(self.harness, peer=peer)
            again.options, again.era = self.options, self.era
            again.reader = self.reader
            await again.handshake()
            yield again

    @contextlib.asynccontextmanager
    async def fresh_connection(self, label: str) -> AsyncIterator[tuple[JsonRpcPeer, StdioProcess | None]]:
        """Caller A on a connection of its own, nothing sent on it yet: over HTTP another
        connection to the server; on stdio, where a process's first request fixes its era, a
        second process of the same command in the same working directory. Its frames are labelled
        ``label``; the peer's read loop runs until the block ends."""
        config = self.harness.config
        transcript = self.harness.transcript.for_connection(label)
        process: StdioProcess | None = None
        if config.transport == "http":
            from conformance.targets.mcp.http_channel import McpHttpChannel

            url = self.harness.current_url()
            assert url is not None
            channel: Any = McpHttpChannel(url, self.options.headers, self.harness.stderr)
            await channel.open(config.timeout)
        else:
            process = channel = StdioProcess(
                config.command, cwd=config.cwd, env=config.process_env(), stderr_tail=self.harness.stderr
            )
            await process.start()
        peer = JsonRpcPeer(channel, transcript, timeout=config.timeout)
        try:
            async with anyio.create_task_group() as tg:
                tg.start_soon(peer.read_loop)
                if process is not None:
                    tg.start_soon(process.pump_stderr)
                yield peer, process
                tg.cancel_scope.cancel()
        finally:
            with anyio.CancelScope(shield=True):
                await (process.terminate() if process is not None else channel.close())
            self.harness.note_problems(peer)

    @contextlib.asynccontextmanager
    async def other_era(self) -> AsyncIterator[McpTarget]:
        """Caller A in the era this run does not speak, for comparing the eras (on a fresh
        connection: see fresh_connection), its frames labelled with its revision. NotApplicable
        when the server does not speak that era."""
        assert self.era is not None
        other = eras.SPEC_WIRE if self.era.modern else eras.MODERN
        async with self.fresh_connection(other) as (peer, _):
            there = McpTarget(self.harness, peer=peer)
            there.options = dataclasses.replace(self.options, protocol=other)
            try:
                await there.handshake()
            except HarnessError as refused:
                raise NotApplicable(
                    f"the server does not speak MCP {other} beside {self.era.version}: {refused.message}"
                ) from None
            yield there

    async def in_each_era(
        self, check: Callable[[McpTarget], Awaitable[T]], details: dict[str, Any]
    ) -> dict[str, T]:
        """``check`` on this connection and, when the run speaks the stateless era, on a
        connection of the handshake era too where the server speaks it (there a connection is a
        protocol session, Mcp-Session-Id, which a server could tie things to): each era's result
        by its version; where the server does not speak it, ``details["handshake era"]`` says so."""
        assert self.era is not None
        found = {self.era.version: await check(self)}
        if not self.era.modern:
            return found
        try:
            async with self.other_era() as there:
                assert there.era is not None
                found[there.era.version] = await check(there)
        except* NotApplicable as refused:  # out of the connection's task group, perhaps in a group
            details["handshake era"] = "; ".join(
                e.message for e in refused.exceptions if isinstance(e, NotApplicable)
            )
        return found


def options_of(config: AgentConfig) -> McpOptions:
    options = config.target_options
    return options if isinstance(options, McpOptions) else McpOptions()


def _refuses_made_up(session_id: str, reply: ToolReply) -> str:
    return (
        f"the server refuses sessions the suite makes up: the first heartbeat for {session_id!r}, with only "
        f"sessionId and idempotencyKey, was answered with {reply.describe()}. The spec leaves to the server's "
        "access rules which sessions a caller may report on; the suite needs sessions opened by their first "
        "heartbeat"
    )


def new_key() -> str:
    return f"idem-{uuid.uuid4().hex}"


def new_session_id() -> str:
    return f"conformance-{uuid.uuid4().hex[:16]}"


# pyright checks the class against the Protocol the harness drives targets by: a driver that drifts
# from it fails the type check (python -m tools.typecheck).
_DRIVES: type[Driver] = McpTarget
