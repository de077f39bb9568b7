"""The ACP target's declaration: what the suite certifies (ACP ``session/status``), its options,
how its agent is started, and how its replay files are set up. Its per-run driver, which the
cases speak to, is :class:`conformance.targets.acp.target.AcpTarget`."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar

from conformance.core.options import Option
from conformance.targets.acp.machine import Pace, replay_steps
from conformance.targets.acp.options import AcpOptions
from conformance.targets.acp.sequences import Step
from conformance.targets.acp.target import AcpTarget, reference_command
from conformance.targets.base import System, TargetHooks
from conformance.transport.process import AgentProcess

if TYPE_CHECKING:
    from conformance.core.config import AgentConfig
    from conformance.core.transcript import StderrTail, Transcript
    from conformance.targets.base import Driver, Harness, Target

__all__ = ["Acp"]


class Acp(TargetHooks):
    """ACP agents, spoken to as a client (v1, or v2 with --protocol 2)."""

    name: ClassVar[str] = AcpTarget.name
    subject: ClassVar[str] = "ACP session/status"
    noun: ClassVar[str] = "agent"
    # A prompt is a turn, a model call for a real agent: a run counts them (--max-prompts), and
    # its answer, a v2 idle state_update or a permission request may take --turn-timeout.
    turn_method: ClassVar[str | None] = "session/prompt"
    default: ClassVar[bool] = True  # the bare command certifies the embedded reference agent
    status_method: ClassVar[str] = AcpTarget.status_method
    status_need: ClassVar[str] = AcpTarget.status_need
    driver: ClassVar[Callable[[Harness], Driver]] = AcpTarget

    handshake_methods: ClassVar[tuple[str, ...]] = ("initialize",)
    session_method: ClassVar[str | None] = "session/new"
    needs: ClassVar[frozenset[str]] = frozenset(
        {
            "status",
            "no-status",
            "close",
            "list",
            "persist",
            "delete",
            "load",
            "resume-or-load",
            "v1",
            "v2",
            "frames",
        }
    )
    spec_sources: ClassVar[dict[str, str]] = {
        "acp-rfd-session-status@2026-10-26": "ACP RFD 'Session status', revision of 2026-10-26",
        "acp-sdk-2.4.0/v1/schema.unstable.json": "official ACP schema shipped in @agentclientprotocol/sdk 2.4.0",
        "acp-sdk-2.4.0/v2/schema.unstable.json": "official ACP v2 schema shipped in @agentclientprotocol/sdk 2.4.0",
        "acp-transports": "ACP specification: transports",
        "jsonrpc-2.0": "JSON-RPC 2.0 specification",
    }

    @staticmethod
    def not_applicable(missing: list[str], config: AgentConfig) -> str | None:
        if "no-status" in missing:
            return "the agent advertises session/status; this case checks agents that do not"
        if "frames" in missing:
            return (
                "over Streamable HTTP each POST carries one JSON message, so malformed frames cannot be "
                "sent; they are checked over stdio and WebSocket"
            )
        versions = [n for n in missing if n in ("v1", "v2")]
        if versions:
            speaks = config.target_options.protocol if isinstance(config.target_options, AcpOptions) else 1
            return f"an ACP {versions[0]} case; this run speaks ACP v{speaks} (--protocol)"
        return None

    @staticmethod
    def describe(init: dict[str, Any]) -> System:
        """initialize's answer: v1's agentInfo and agentCapabilities (v2: info and capabilities),
        kept as ACP names them in the report's own ``acp`` block."""
        info = init.get("agentInfo") or init.get("info")
        capabilities = init.get("agentCapabilities") or init.get("capabilities")
        version = init.get("protocolVersion")
        named = info if isinstance(info, dict) else {}
        return System(
            name=str(named.get("name") or "")[:100],
            version=str(named.get("version") or "")[:40],
            protocol="" if version is None else str(version)[:40],
            capabilities=capabilities,
            own={"agentInfo": info, "protocolVersion": version, "agentCapabilities": capabilities},
        )

    option_group: ClassVar[str] = "ACP agents (session/status; the default target)"
    options: ClassVar[tuple[Option, ...]] = (
        Option(
            "--agent",
            "agent",
            "command that starts the agent on stdio (split like a shell, never run by one); default: the "
            "embedded reference agent",
            metavar="CMD",
        ),
        Option(
            "--agent-url",
            "agent_url",
            "an agent already listening: ws://… (WebSocket) or http://… (Streamable HTTP); cases that "
            "restart it are not testable",
            metavar="URL",
        ),
        Option(
            "--protocol",
            "agent_protocol",
            "ACP protocol version to initialize with: 1 (default) or 2 (adds the foreground-state cases)",
            default=1,
            type=int,
            choices=(1, 2),
        ),
        Option(
            "--auth-method",
            "auth_method",
            "call authenticate with this method id after initialize",
            metavar="ID",
        ),
        Option(
            "--memory-cap",
            "memory_cap",
            "the agent keeps at most N sessions in memory: the pressure cases create more and compare a "
            "session status was asked about with its twin (without it they are not testable)",
            type=int,
            metavar="N",
        ),
        Option(
            "--idle-evict-after",
            "idle_evict_after",
            "the agent evicts a session nobody used for S seconds: the idle cases wait past it (without it "
            "they are not testable)",
            type=float,
            metavar="S",
        ),
    )
    command_option: ClassVar[str] = "agent"
    url_option: ClassVar[str] = "agent_url"
    fixed_transport: ClassVar[str | None] = None
    reference_command = staticmethod(reference_command)

    @staticmethod
    def configure(values: dict[str, Any], config: AgentConfig) -> AcpOptions:
        return AcpOptions.from_values(values)

    @staticmethod
    def service(config: AgentConfig, transcript: Transcript, stderr: StderrTail) -> AgentProcess:
        def channel(url: str) -> Any:
            from conformance.targets.acp.streamable_http import (
                AcpHttpChannel,  # the SDK's client, when needed
            )

            return AcpHttpChannel(url, stderr)

        return AgentProcess(
            config, transcript, stderr, channel=channel if config.transport == "http" else None
        )

    @staticmethod
    def replay_setup(data: dict[str, Any], config: AgentConfig) -> Callable[[Any], tuple[Any, list[Any]]]:
        steps = [Step.from_json(s) for s in data["steps"]]
        pace = Pace.from_json(data.get("pace"))
        return lambda target: replay_steps(target, steps, pace=pace)


# pyright checks the declaration against the Protocol the shared layers know targets by: a target
# that drifts from it fails the type check (python -m tools.typecheck).
_DECLARED: type[Target] = Acp
