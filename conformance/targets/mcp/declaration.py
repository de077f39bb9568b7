"""The MCP target's declaration: what the suite certifies (the ``session_heartbeat`` tool), its
options, how its server is started, and how its replay files are set up. Its per-run driver,
which the cases speak to, is :class:`conformance.targets.mcp.target.McpTarget`."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar

from conformance.core.config import AgentConfig, UsageError
from conformance.core.options import Option
from conformance.core.transcript import StderrTail, Transcript
from conformance.targets.base import System, TargetHooks
from conformance.targets.mcp import era as eras
from conformance.targets.mcp.options import McpOptions, reference_command
from conformance.targets.mcp.queue import QueueStep, replay_queue
from conformance.targets.mcp.target import McpTarget, options_of
from conformance.transport.process import AgentProcess

if TYPE_CHECKING:
    from conformance.targets.base import Driver, Harness, Target

__all__ = ["Mcp"]


class Mcp(TargetHooks):
    """MCP servers that offer the session_heartbeat tool."""

    name: ClassVar[str] = McpTarget.name
    subject: ClassVar[str] = "MCP session_heartbeat tool"
    noun: ClassVar[str] = "server"
    status_method: ClassVar[str] = McpTarget.status_method
    status_need: ClassVar[str] = McpTarget.status_need
    driver: ClassVar[Callable[[Harness], Driver]] = McpTarget

    handshake_methods: ClassVar[tuple[str, ...]] = ("initialize", "server/discover")
    session_method: ClassVar[str | None] = None
    needs: ClassVar[frozenset[str]] = frozenset({"heartbeat"})
    spec_sources: ClassVar[dict[str, str]] = {
        "mcp-session-heartbeat@2025-06-18": "MCP tool 'session_heartbeat' (MCP 2025-06-18)",
        "mcp-2025-06-18": "Model Context Protocol specification, revision 2025-06-18",
        "mcp-2026-07-28": "Model Context Protocol specification, revision 2026-07-28 (schema)",
        "jsonrpc-2.0": "JSON-RPC 2.0 specification",
    }

    # --mcp-protocol both: the handshake era, then the stateless one.
    wire_eras: ClassVar[tuple[str, ...]] = (eras.SPEC_WIRE, eras.MODERN)

    @staticmethod
    def describe(init: dict[str, Any]) -> System:
        """The era's serverInfo, protocol revision and capabilities; the tools it lists."""
        system = TargetHooks.describe(init)
        tools = init.get("tools")
        return System(
            system.name,
            system.version,
            system.protocol,
            system.capabilities,
            {"tools": tools} if tools else {},
        )

    option_group: ClassVar[str] = "MCP servers (the session_heartbeat tool)"
    options: ClassVar[tuple[Option, ...]] = (
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
            "JSON Pointer to the instruction list in a heartbeat result (default: /instructions, "
            "/pendingInstructions, … or a page object there with its items)",
            metavar="POINTER",
        ),
        Option(
            "--cursor-path",
            "cursor_path",
            "JSON Pointer to the next-page cursor (default: nextCursor, instructionCursor, next_cursor, … "
            "at the top or beside the list)",
            metavar="POINTER",
        ),
        Option(
            "--instruction-id-path",
            "instruction_id_path",
            "JSON Pointer to an instruction's id inside each item (default: /id, /instructionId, "
            "/instruction_id, …)",
            metavar="POINTER",
        ),
        Option(
            "--mcp-protocol",
            "mcp_protocol",
            "the MCP wire revision: auto (default: server/discover first, initialize as the fallback, as the "
            "official SDK's client does), 2025-06-18 (the initialize handshake), 2026-07-28 (stateless: "
            "server/discover and the per-request _meta envelope), or both (the command line certifies each "
            "era and writes a matrix)",
            default=eras.AUTO,
            choices=eras.CHOICES,
        ),
        Option(
            "--delivery-wait",
            "delivery_wait",
            "seconds an enqueued instruction may take to show in heartbeat results (default: --timeout)",
            type=float,
            metavar="SECONDS",
        ),
        Option(
            "--mcp-session-ttl",
            "mcp_session_ttl",
            "the server forgets a session no heartbeat used for this long: the idle-expiry twins run "
            "(the thorough profile looks for one)",
            type=float,
            metavar="SECONDS",
        ),
        Option(
            "--mcp-session-cap",
            "mcp_session_cap",
            "the server keeps N sessions and evicts the least recently used: the memory twins run "
            "(the thorough profile looks for one)",
            type=int,
            metavar="N",
        ),
        Option(
            "--mcp-request-limit",
            "mcp_request_limit",
            "the server refuses a session's heartbeats past N (in a window longer than a case): the "
            "allowance twins run (the thorough profile looks for one)",
            type=int,
            metavar="N",
        ),
    )
    command_option: ClassVar[str] = "mcp_cmd"
    url_option: ClassVar[str] = "mcp_url"
    fixed_transport: ClassVar[str | None] = None
    reference_command = staticmethod(reference_command)

    @staticmethod
    def configure(values: dict[str, Any], config: AgentConfig) -> McpOptions:
        if values.get("mcp_protocol") == eras.BOTH:
            raise UsageError(
                "--mcp-protocol both certifies each era in a run of its own: pass it to the command line "
                "(session-status-conformance), which runs them and writes a matrix; a single run takes auto, "
                f"{eras.SPEC_WIRE} or {eras.MODERN}"
            )
        return McpOptions.from_options(
            headers=values["mcp_headers"],
            other_headers=values["mcp_other_headers"],
            instruct_cmd=values["instruct_cmd"],
            instruct_url=values["instruct_url"],
            instructions_path=values["instructions_path"],
            cursor_path=values["cursor_path"],
            instruction_id_path=values["instruction_id_path"],
            delivery_wait=values["delivery_wait"],
            session_ttl=values.get("mcp_session_ttl"),
            session_cap=values.get("mcp_session_cap"),
            request_limit=values.get("mcp_request_limit"),
            embedded=config.embedded,
            transport=config.transport,
            protocol=values.get("mcp_protocol") or eras.AUTO,
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

            return McpHttpChannel(url, options_of(config).headers, stderr)

        return AgentProcess(config, transcript, stderr, channel=channel)

    @staticmethod
    def replay_options(data: dict[str, Any], config: AgentConfig) -> None:
        """The server's transport and operator hook as recorded."""
        agent_data = data["agent"]
        config.transport = agent_data.get("transport", "stdio")
        config.target_options = McpOptions(
            instruct_cmd=agent_data.get("instructCmd"),
            instruct_url=agent_data.get("instructUrl"),
            protocol=agent_data.get("mcpProtocol") or eras.AUTO,
        )

    @staticmethod
    def replay_setup(data: dict[str, Any], config: AgentConfig) -> Callable[[Any], tuple[Any, list[Any]]]:
        """An instruction-queue sequence, on the server as recorded (replay_options: its config)."""
        steps = [QueueStep.from_json(s) for s in data["steps"]]
        return lambda target: replay_queue(target, steps)


# pyright checks the declaration against the Protocol the shared layers know targets by: a target
# that drifts from it fails the type check (python -m tools.typecheck).
_DECLARED: type[Target] = Mcp
