"""The MCP target: an MCP server's `session_heartbeat` tool, spoken to as an MCP client.

Frames go through the suite's own JSON-RPC peer (stdio) or the official SDK's Streamable HTTP
client (:mod:`conformance.targets.mcp.http_channel`), so every frame is in the transcript and its envelope is
checked, as for ACP. Cases see heartbeat results as :class:`ToolReply` and reach the operator's
side (enqueueing human instructions) and a second caller through this adapter; an input the user
did not give is :class:`MissingInput` (not testable, never passed).
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import re
import time
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import anyio
import httpx

from conformance.core import revisions
from conformance.core.outcomes import HarnessError, MissingInput, NotApplicable, NotTestable, Unanswered
from conformance.core.transcript import NOTE
from conformance.targets.mcp import era as eras
from conformance.targets.mcp.options import McpOptions
from conformance.transport.http_clients import tls_context
from conformance.transport.peer import JsonRpcPeer, Reply
from conformance.transport.stdio import StdioProcess

if TYPE_CHECKING:
    from conformance.core.config import AgentConfig
    from conformance.targets.base import Harness

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
# The spec names neither the result's fields nor an instruction's: the names servers commonly use.
INSTRUCTION_LISTS = ("/instructions", "/pendingInstructions", "/pending_instructions", "/pending")
PAGE_ITEMS = ("items", "instructions", "data", "results", "entries")  # a page object's list
CURSOR_NAMES = (
    "nextCursor",
    "instructionCursor",
    "nextInstructionCursor",
    "next_cursor",
    "instruction_cursor",
    "next_instruction_cursor",
    "cursor",
    "nextPageToken",
    "next_page_token",
    "continuationToken",
    "continuation_token",
)
CURSOR_HOMES = ("", "/pagination", "/page", "/paging")  # and the page object that holds the list
ID_NAMES = ("id", "instructionId", "instruction_id", "instructionID", "ID", "Id", "uuid")
# A string field named like this, that the suite does not follow, may be a cursor under a name it
# does not know: missing instructions are then not testable, not lost.
CURSOR_LIKE = re.compile(r"cursor|token|continu|next|page|after|marker|offset", re.IGNORECASE)
MAX_PAGES = 50
_NOTHING: Any = object()


def pointer_get(document: Any, pointer: str) -> Any:
    """RFC 6901: the value at ``pointer``, or a sentinel when there is none."""
    if pointer == "":
        return document
    node = document
    for token in pointer[1:].split("/"):
        token = token.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            return _NOTHING
    return node


@dataclass
class ToolReply:
    """A tools/call answer: a JSON-RPC error, a tool error (isError), or a result."""

    reply: Reply

    @property
    def rpc_error(self) -> bool:
        return not self.reply.ok

    @property
    def result(self) -> dict[str, Any]:
        return self.reply.result if self.reply.ok and isinstance(self.reply.result, dict) else {}

    @property
    def tool_error(self) -> bool:
        return self.reply.ok and self.result.get("isError") is True

    @property
    def rejected(self) -> bool:
        return self.rpc_error or self.tool_error

    @property
    def succeeded(self) -> bool:
        return self.reply.ok and isinstance(self.reply.result, dict) and not self.tool_error

    @property
    def text(self) -> str:
        content = self.result.get("content")
        parts = (
            [c.get("text", "") for c in content if isinstance(c, dict)] if isinstance(content, list) else []
        )
        return "\n".join(p for p in parts if isinstance(p, str))

    @property
    def data(self) -> Any:
        """structuredContent, else the JSON of the text content, else None."""
        structured = self.result.get("structuredContent")
        if structured is not None:
            return structured
        try:
            return json.loads(self.text)
        except ValueError:
            return None

    def describe(self) -> str:
        if self.rpc_error:
            return self.reply.describe()
        if self.tool_error:
            return f"a tool error (isError: true): {self.text[:200]!r}"
        return f"a result: {json.dumps(self.data, ensure_ascii=True)[:300]}"


class Instruction(dict):  # type: ignore[type-arg]
    """An instruction item as the server sent it (a dict, as JSON), and the id found in it."""

    def __init__(self, item: dict[str, Any], iid: str, id_path: str) -> None:
        super().__init__(item)
        self.id = iid
        self.id_path = id_path


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


class McpTarget:
    """One MCP server under test, spoken to as an MCP client (one caller per connection)."""

    name = "mcp"
    status_method = "tools/call"  # the heartbeat is the only tool the suite calls
    status_need = "heartbeat"

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
        self._list_seen: str | None = None  # where an instruction list was found
        self._id_path: str | None = None  # where an item's id was found
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

    async def request(self, method: str, params: Any = None) -> Reply:
        """A request in the connection's era: in the stateless one, with the envelope under _meta."""
        if self.era is not None and self.era.modern:
            params = eras.stamp(params, self.era.version)
        return await self.peer.request(method, params)

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

    # -- calls ---------------------------------------------------------------------------------

    async def call(self, arguments: Any, *, name: str = TOOL) -> ToolReply:
        return ToolReply(await self.request("tools/call", {"name": name, "arguments": arguments}))

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
        """The instructions of a result (items with a string id), by --instructions-path or by name;
        a list found inside a page object too. Where a list was seen before in this run (or where
        --instructions-path points), none there means none pending: servers omit empty fields."""
        data = reply.data
        explicit = self.options.instructions_path
        paths = (explicit,) if explicit is not None else INSTRUCTION_LISTS
        for path in paths:
            where, found = _list_at(data, path)
            if found is _NOTHING or found is None:
                continue
            if not isinstance(found, list):
                raise MissingInput(
                    f"the result's {where} is not a list of instructions: {json.dumps(found)[:200]}; pass "
                    "--instructions-path POINTER to the list in your results"
                )
            items = self._identified(found, where)
            if explicit is None:
                self._list_seen = where
            return items
        if explicit is not None or self._list_seen is not None:
            return []
        raise NoInstructionList(
            f"the heartbeat result has no instruction list at {' or '.join(paths)} (its keys: "
            f"{_keys(data)}); pass --instructions-path POINTER to the list in your results"
        )

    def _identified(self, found: list[Any], where: str) -> list[Instruction]:
        if not found:
            return []
        if not all(isinstance(i, dict) for i in found):
            raise MissingInput(
                f"the result's {where} is not a list of instruction objects: {json.dumps(found)[:200]}"
            )
        explicit = self.options.instruction_id_path
        if explicit is not None:
            paths: tuple[str, ...] = (explicit,)
        else:
            paths = tuple(
                dict.fromkeys(([self._id_path] if self._id_path else []) + [f"/{n}" for n in ID_NAMES])
            )
        for path in paths:
            ids = [pointer_get(item, path) for item in found]
            if all(isinstance(i, str) and i for i in ids):
                self._id_path = path
                return [Instruction(item, iid, path) for item, iid in zip(found, ids, strict=True)]
        raise MissingInput(
            f"the instructions at {where} do not all carry a string id at {', '.join(paths)} (an item: "
            f"{json.dumps(found[0])[:200]}); pass --instruction-id-path POINTER to the id inside an item"
        )

    def cursor(self, reply: ToolReply) -> str | None:
        data = reply.data
        for path in self._cursor_paths(data):
            found = pointer_get(data, path)
            if isinstance(found, str) and found:
                return found
        return None

    def _cursor_paths(self, data: Any) -> tuple[str, ...]:
        if self.options.cursor_path is not None:
            return (self.options.cursor_path,)
        homes = list(CURSOR_HOMES)
        lists = (self.options.instructions_path,) if self.options.instructions_path else INSTRUCTION_LISTS
        for path in lists:
            home = path if isinstance(pointer_get(data, path), dict) else path.rpartition("/")[0]
            if home and home not in homes:
                homes.append(home)
        return tuple(f"{home}/{name}" for home in homes for name in CURSOR_NAMES)

    def unfollowed_cursor(self, reply: ToolReply) -> str | None:
        """A non-empty string field, outside the instruction items, named like a cursor and not one
        the suite follows: a cursor under a name it does not know, perhaps."""
        if self.options.cursor_path is not None:
            return None
        data = reply.data
        followed = set(self._cursor_paths(data))
        for path, value in _strings(data):
            tokens = path.split("/")[1:]
            if path in followed or not value or len(tokens) > 3 or any(t.isdigit() for t in tokens):
                continue
            if CURSOR_LIKE.search(tokens[-1]):
                return path
        return None

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
        self, session_id: str, texts: list[str], *, wait: float | None = None
    ) -> Delivery:
        """Drain the session again and again until every text has come, for up to the delivery wait:
        an operator's enqueue accepted is not proof that the instruction is pending yet."""
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
            batch = await self.drain_replies(session_id)
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
        if missing and unread is not None and self._list_seen is None:
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
        return bool(self.options.instruct_cmd or self.options.instruct_url)

    async def instruct(self, session_id: str, text: str, *, refusable: bool = False) -> str | None:
        """Enqueue a human instruction for a session through the operator hook the user gave. A hook
        that refuses (exits non-zero, answers 4xx) is a harness error, unless ``refusable`` (a value
        at a storage limit may be refused): then what it said, None when it took the instruction."""
        timeout = self.harness.config.timeout
        if self.options.instruct_cmd:
            words = [
                w.replace("{sessionId}", session_id).replace("{text}", text)
                for w in self.options.instruct_cmd
            ]
            with anyio.fail_after(timeout):
                done = await anyio.run_process(words, cwd=self.harness.config.cwd, check=False)
            if done.returncode != 0:
                said = f"--instruct-cmd exited with code {done.returncode}: {done.stderr.decode(errors='replace')[-300:]}"
                if refusable:
                    return said
                raise HarnessError(said)
            return None
        if self.options.instruct_url:
            url = self.options.instruct_url.replace("{sessionId}", session_id).replace(
                "{baseUrl}", self._base_url()
            )
            async with httpx.AsyncClient(timeout=timeout, verify=tls_context()) as client:
                response = await client.post(url, json={"sessionId": session_id, "text": text})
            if response.status_code >= 300:
                said = f"--instruct-url answered HTTP {response.status_code}: {response.text[:300]}"
                if refusable and 400 <= response.status_code < 500:
                    return said
                raise HarnessError(said)
            return None
        self.require_instruct()
        return None

    def require_other_caller(self) -> None:
        if self.harness.config.transport != "http" or self.options.other_headers is None:
            raise MissingInput(
                "needs a second caller: serve the MCP server over Streamable HTTP (--mcp-url, or --mcp-cmd with "
                "--transport http) and pass caller B's credentials with --other-header K=V"
            )

    def require_instruct(self) -> None:
        if not self.can_instruct:
            raise MissingInput(
                "needs a way to enqueue human instructions from the operator's side: pass --instruct-cmd "
                "'CMD {sessionId} {text}' or --instruct-url URL"
            )

    def _base_url(self) -> str:
        url = httpx.URL(self.harness.current_url() or "http://127.0.0.1")
        return f"{url.scheme}://{url.netloc.decode()}"

    @contextlib.asynccontextmanager
    async def other_caller(self) -> AsyncIterator[McpTarget]:
        """A second connection with caller B's credentials (--other-header), initialized."""
        self.require_other_caller()
        from conformance.targets.mcp.http_channel import McpHttpChannel

        url = self.harness.current_url()
        assert url is not None
        channel = McpHttpChannel(url, self.options.other_headers, self.harness.stderr)
        await channel.open(self.harness.config.timeout)
        transcript = self.harness.transcript.for_connection("B")
        peer = JsonRpcPeer(channel, transcript, timeout=self.harness.config.timeout)  # type: ignore[arg-type]
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

    @contextlib.asynccontextmanager
    async def other_era(self) -> AsyncIterator[McpTarget]:
        """Caller A in the era this run does not speak, for comparing the eras: over HTTP another
        connection to the server; on stdio, where a process's first request fixes its era, a
        second process of the same command in the same working directory. Its frames are labelled
        with its revision. NotApplicable when the server does not speak that era."""
        assert self.era is not None
        other = eras.SPEC_WIRE if self.era.modern else eras.MODERN
        config = self.harness.config
        transcript = self.harness.transcript.for_connection(other)
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
                there = McpTarget(self.harness, peer=peer)
                there.options = dataclasses.replace(self.options, protocol=other)
                try:
                    await there.handshake()
                except HarnessError as refused:
                    raise NotApplicable(
                        f"the server does not speak MCP {other} beside {self.era.version}: {refused.message}"
                    ) from None
                yield there
                tg.cancel_scope.cancel()
        finally:
            with anyio.CancelScope(shield=True):
                await (process.terminate() if process is not None else channel.close())
            self.harness.note_problems(peer)


def options_of(config: AgentConfig) -> McpOptions:
    options = config.target_options
    return options if isinstance(options, McpOptions) else McpOptions()


class NoInstructionList(MissingInput):
    """No instruction list anywhere the suite looks, and none seen before in this run."""


def raise_if_elsewhere(missing: NoInstructionList, replies: list[ToolReply], texts: list[str]) -> None:
    """Where no list is where the suite looks but an awaited text is in the result: say where."""
    for reply in replies:
        for path, value in _strings(reply.data):
            if any(t in value for t in texts):
                tokens = path.split("/")
                numeric = [n for n, t in enumerate(tokens) if t.isdigit()]
                where = "/".join(tokens[: numeric[-1]]) if numeric else path
                raise MissingInput(
                    f"{missing.message}; an instruction the suite enqueued is at {path}: try --instructions-path "
                    f"{where}"
                )


def _list_at(data: Any, path: str) -> tuple[str, Any]:
    """The list at ``path``, or inside the page object there; where it is."""
    found = pointer_get(data, path)
    if isinstance(found, dict):
        for name in PAGE_ITEMS:
            if name in found:
                return f"{path}/{name}", found[name]
        return path, None  # a page object without its list: nothing pending
    return path, found


def unfollowed_message(pointer: str, missing: int) -> str:
    return (
        f"{missing} instruction(s) did not come while the results carry {pointer}, a next-page cursor under a "
        f"name the suite does not know (sent back as instructionCursor, it brought them); pass --cursor-path "
        f"{pointer}"
    )


def _refuses_made_up(session_id: str, reply: ToolReply) -> str:
    return (
        f"the server refuses sessions the suite makes up: the first heartbeat for {session_id!r}, with only "
        f"sessionId and idempotencyKey, was answered with {reply.describe()}. The spec leaves to the server's "
        "access rules which sessions a caller may report on; the suite needs sessions opened by their first "
        "heartbeat"
    )


def carries(item: dict[str, Any], text: str) -> bool:
    """Whether an instruction item carries this text, in whatever field the server puts it
    (``text``, ``message``, ``content`` …; the spec does not name it), verbatim or within a longer
    string (a server may render it for the agent: the suite's texts are unique tokens)."""
    skip = item.id_path if isinstance(item, Instruction) else "/id"
    return any(text in v for p, v in _strings(item) if p != skip)


def has(items: list[Instruction], text: str) -> bool:
    return any(carries(i, text) for i in items)


def ids_for(items: list[Instruction], texts: list[str]) -> list[str]:
    """The ids of the items that carry any of these texts, in delivery order."""
    return [i.id for i in items if any(carries(i, t) for t in texts)]


def _strings(node: Any, path: str = "") -> list[tuple[str, str]]:
    if isinstance(node, str):
        return [(path, node)]
    if isinstance(node, dict):
        return [s for k, v in node.items() for s in _strings(v, f"{path}/{k}")]
    if isinstance(node, list):
        return [s for i, v in enumerate(node) for s in _strings(v, f"{path}/{i}")]
    return []


def new_key() -> str:
    return f"idem-{uuid.uuid4().hex}"


def new_session_id() -> str:
    return f"conformance-{uuid.uuid4().hex[:16]}"


def _keys(data: Any) -> str:
    if isinstance(data, dict):
        return ", ".join(sorted(str(k) for k in data)[:20]) or "none"
    return f"none: the result carries {type(data).__name__ if data is not None else 'no JSON'}"
