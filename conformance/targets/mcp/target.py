"""The MCP target: an MCP server's `session_heartbeat` tool, spoken to as an MCP client.

Frames go through the suite's own JSON-RPC peer (stdio) or the official SDK's Streamable HTTP
client (:mod:`conformance.targets.mcp.http_channel`), so every frame is in the transcript and its envelope is
checked, as for ACP. Cases see heartbeat results as :class:`ToolReply` and reach the operator's
side (enqueueing human instructions) and a second caller through this adapter; an input the user
did not give is :class:`MissingInput` (not testable, never passed).
"""

from __future__ import annotations

import contextlib
import json
import uuid
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import anyio
import httpx

from conformance.core import revisions
from conformance.core.options import Option
from conformance.core.outcomes import HarnessError, MissingInput, NotTestable
from conformance.targets.mcp.options import McpOptions, reference_command
from conformance.transport.http_clients import tls_context
from conformance.transport.peer import JsonRpcPeer, Reply
from conformance.transport.process import AgentProcess

if TYPE_CHECKING:
    from conformance.core.config import AgentConfig
    from conformance.core.transcript import StderrTail, Transcript
    from conformance.targets.base import Harness

__all__ = ["TOOL", "McpTarget", "ToolReply", "carries", "new_key", "new_session_id"]

TOOL = "session_heartbeat"
PROTOCOL_VERSION = "2025-06-18"  # the spec's revision; servers may answer another they support
HANDSHAKE_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
CLIENT_INFO = {"name": "session-status-conformance", "version": "0.1.0"}
INSTRUCTION_LISTS = ("/instructions", "/pendingInstructions")
CURSORS = ("/nextCursor", "/instructionCursor", "/nextInstructionCursor")
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


class McpTarget:
    """One MCP server under test, spoken to as an MCP client (one caller per connection)."""

    name = "mcp"
    subject = "MCP session_heartbeat tool"
    status_method = "tools/call"  # the heartbeat is the only tool the suite calls
    status_need = "heartbeat"
    option_group = "MCP servers (the session_heartbeat tool)"
    options = (
        Option(
            "--mcp-cmd",
            "mcp_cmd",
            "command that starts your MCP server on stdio (with --transport http: a server that prints its URL)",
            metavar="CMD",
        ),
        Option("--mcp-url", "mcp_url", "an MCP server already listening (Streamable HTTP)", metavar="URL"),
        Option(
            "--header",
            "mcp_headers",
            "HTTP header of caller A, e.g. 'Authorization=Bearer …' (repeatable; redacted from reports)",
            default=[],
            action="append",
            metavar="K=V",
        ),
        Option(
            "--other-header",
            "mcp_other_headers",
            "HTTP header of caller B (another principal), for the access cases (repeatable; redacted)",
            default=[],
            action="append",
            metavar="K=V",
        ),
        Option(
            "--instruct-cmd",
            "instruct_cmd",
            "operator command that enqueues a human instruction: words with {sessionId} and {text}, e.g. "
            "'myctl instruct {sessionId} {text}' (no shell)",
            metavar="CMD",
        ),
        Option(
            "--instruct-url",
            "instruct_url",
            'operator endpoint that enqueues an instruction: POSTed {"sessionId", "text"}; {sessionId} and '
            "{baseUrl} (the MCP URL's origin) are replaced",
            metavar="URL",
        ),
        Option(
            "--instructions-path",
            "instructions_path",
            "JSON Pointer to the instruction list in a heartbeat result (default: /instructions or "
            "/pendingInstructions)",
            metavar="POINTER",
        ),
        Option(
            "--cursor-path",
            "cursor_path",
            "JSON Pointer to the next-page cursor (default: /nextCursor, /instructionCursor or "
            "/nextInstructionCursor)",
            metavar="POINTER",
        ),
    )
    command_option = "mcp_cmd"
    url_option = "mcp_url"
    fixed_transport = None
    reference_command = staticmethod(reference_command)

    @staticmethod
    def configure(values: dict[str, Any], config: AgentConfig) -> McpOptions:
        return McpOptions.from_options(
            headers=values["mcp_headers"],
            other_headers=values["mcp_other_headers"],
            instruct_cmd=values["instruct_cmd"],
            instruct_url=values["instruct_url"],
            instructions_path=values["instructions_path"],
            cursor_path=values["cursor_path"],
            embedded=config.embedded,
            transport=config.transport,
        )

    @staticmethod
    def secrets(config: AgentConfig) -> list[str]:
        options = config.target_options
        if not isinstance(options, McpOptions):
            return []
        return [v for headers in (options.headers, options.other_headers or {}) for v in headers.values()]

    @staticmethod
    def service(config: AgentConfig, transcript: Transcript, stderr: StderrTail) -> AgentProcess:
        def channel(url: str) -> Any:
            from conformance.targets.mcp.http_channel import McpHttpChannel  # the SDK's client, when needed

            return McpHttpChannel(url, _options(config).headers, stderr)

        return AgentProcess(config, transcript, stderr, channel=channel)

    @staticmethod
    def replay_record(config: AgentConfig) -> dict[str, Any]:
        options = _options(config)
        return {
            "transport": config.transport,
            "instructCmd": options.instruct_cmd,
            "instructUrl": options.instruct_url,
        }

    @staticmethod
    def replay_options(data: dict[str, Any], config: AgentConfig) -> None:
        """The server's transport and operator hook as recorded."""
        agent_data = data["agent"]
        config.transport = agent_data.get("transport", "stdio")
        config.target_options = McpOptions(
            instruct_cmd=agent_data.get("instructCmd"), instruct_url=agent_data.get("instructUrl")
        )

    @staticmethod
    def replay_setup(data: dict[str, Any], config: AgentConfig) -> Callable[[Any], tuple[Any, list[Any]]]:
        """An instruction-queue sequence, on the server as recorded."""
        from conformance.targets.mcp.queue import QueueStep, replay_queue

        McpTarget.replay_options(data, config)
        steps = [QueueStep.from_json(s) for s in data["steps"]]
        return lambda target: replay_queue(target, steps)

    def is_status_call(self, method: str) -> bool:
        return method == self.status_method

    async def new_session(self) -> str:
        return new_session_id()

    async def detect_revision(self) -> tuple[str, str]:
        return revisions.available(self.name)[0], f"the {self.name} target's spec"

    def __init__(self, harness: Harness, peer: JsonRpcPeer | None = None) -> None:
        self.harness = harness
        self.options = _options(harness.config)
        self.init_result: dict[str, Any] = {}
        self.tools: list[dict[str, Any]] = []
        self._peer = peer

    @property
    def peer(self) -> JsonRpcPeer:
        return self._peer if self._peer is not None else self.harness.peer

    @property
    def settle(self) -> float:
        return self.harness.config.settle

    # -- handshake -----------------------------------------------------------------------------

    async def handshake(self) -> dict[str, Any]:
        params = {"protocolVersion": PROTOCOL_VERSION, "capabilities": {}, "clientInfo": CLIENT_INFO}
        reply = await self.peer.request("initialize", params)
        if not reply.ok or not isinstance(reply.result, dict):
            raise HarnessError(f"the server answered initialize with {reply.describe()}")
        version = reply.result.get("protocolVersion")
        if version not in HANDSHAKE_VERSIONS:
            raise HarnessError(
                f"the server answered initialize with protocolVersion {version!r}; the suite speaks "
                f"{', '.join(HANDSHAKE_VERSIONS)} (asked for {PROTOCOL_VERSION})"
            )
        self.init_result = reply.result
        await self.peer.notify("notifications/initialized")
        self.tools = await self.list_tools()
        return {
            "protocolVersion": version,
            "serverInfo": reply.result.get("serverInfo"),
            "capabilities": reply.result.get("capabilities"),
            "tools": [t.get("name") for t in self.tools][:100],
        }

    async def list_tools(self) -> list[dict[str, Any]]:
        tools: list[dict[str, Any]] = []
        cursor = None
        for _ in range(MAX_PAGES):
            reply = await self.peer.request("tools/list", {"cursor": cursor} if cursor else {})
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
        return ToolReply(await self.peer.request("tools/call", {"name": name, "arguments": arguments}))

    async def heartbeat(self, session_id: str, **fields: Any) -> ToolReply:
        """A heartbeat with a fresh idempotency key (unless one is given)."""
        fields.setdefault("idempotencyKey", new_key())
        return await self.call({"sessionId": session_id, **fields})

    async def ok_heartbeat(self, session_id: str, **fields: Any) -> ToolReply:
        """A heartbeat that must succeed: a valid call rejected makes the case not testable."""
        reply = await self.heartbeat(session_id, **fields)
        if not reply.succeeded:
            raise NotTestable(f"a valid heartbeat {fields or ''} was answered with {reply.describe()}")
        return reply

    # -- reading results -----------------------------------------------------------------------

    def instructions(self, reply: ToolReply) -> list[dict[str, Any]]:
        """The instructions of a result (items with id and text), by --instructions-path or by name."""
        data = reply.data
        paths = (
            (self.options.instructions_path,)
            if self.options.instructions_path is not None
            else INSTRUCTION_LISTS
        )
        for path in paths:
            found = pointer_get(data, path)
            if found is _NOTHING or found is None:
                continue
            if not isinstance(found, list) or not all(
                isinstance(i, dict) and isinstance(i.get("id"), str) for i in found
            ):
                raise NotTestable(
                    f"the result's {path} is not a list of instructions with string ids: {json.dumps(found)[:200]}"
                )
            return found
        raise MissingInput(
            f"the heartbeat result has no instruction list at {' or '.join(paths)} (its keys: "
            f"{_keys(data)}); pass --instructions-path POINTER to the list in your results"
        )

    def cursor(self, reply: ToolReply) -> str | None:
        data = reply.data
        paths = (self.options.cursor_path,) if self.options.cursor_path is not None else CURSORS
        for path in paths:
            found = pointer_get(data, path)
            if isinstance(found, str) and found:
                return found
        return None

    async def drain(self, session_id: str, **fields: Any) -> tuple[list[dict[str, Any]], list[ToolReply]]:
        """Every pending instruction: one heartbeat, then one per page while a cursor comes back."""
        replies = [await self.ok_heartbeat(session_id, **fields)]
        items = list(self.instructions(replies[0]))
        cursor = self.cursor(replies[0])
        while cursor is not None and len(replies) < MAX_PAGES:
            replies.append(await self.ok_heartbeat(session_id, instructionCursor=cursor))
            items += self.instructions(replies[-1])
            cursor = self.cursor(replies[-1])
        return items, replies

    # -- the operator's side and other callers -------------------------------------------------

    @property
    def can_instruct(self) -> bool:
        return bool(self.options.instruct_cmd or self.options.instruct_url)

    async def instruct(self, session_id: str, text: str) -> None:
        """Enqueue a human instruction for a session through the operator hook the user gave."""
        timeout = self.harness.config.timeout
        if self.options.instruct_cmd:
            words = [
                w.replace("{sessionId}", session_id).replace("{text}", text)
                for w in self.options.instruct_cmd
            ]
            with anyio.fail_after(timeout):
                done = await anyio.run_process(words, cwd=self.harness.config.cwd, check=False)
            if done.returncode != 0:
                raise HarnessError(
                    f"--instruct-cmd exited with code {done.returncode}: {done.stderr.decode(errors='replace')[-300:]}"
                )
            return
        if self.options.instruct_url:
            url = self.options.instruct_url.replace("{sessionId}", session_id).replace(
                "{baseUrl}", self._base_url()
            )
            async with httpx.AsyncClient(timeout=timeout, verify=tls_context()) as client:
                response = await client.post(url, json={"sessionId": session_id, "text": text})
            if response.status_code >= 300:
                raise HarnessError(
                    f"--instruct-url answered HTTP {response.status_code}: {response.text[:300]}"
                )
            return
        self.require_instruct()

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
                await other.handshake()
                yield other
                tg.cancel_scope.cancel()
        finally:
            with anyio.CancelScope(shield=True):
                await channel.close()
            self.harness.note_problems(peer)


def _options(config: AgentConfig) -> McpOptions:
    options = config.target_options
    return options if isinstance(options, McpOptions) else McpOptions()


def carries(item: dict[str, Any], text: str) -> bool:
    """Whether an instruction item carries this text, in whatever field the server puts it
    (``text``, ``message``, ``content`` …; the spec does not name it)."""
    return any(v == text for p, v in _strings(item) if p != "/id")


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
