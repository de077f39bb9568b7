"""The HTTP target's declaration: what the suite certifies (``GET /sessions/{id}/status``, as
AgentScope serves it), its options, how its service is started, and what its replay files record.
Its per-run driver, which the cases speak to, is
:class:`conformance.targets.http.target.HttpStatusTarget`."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar

from conformance.core.config import AgentConfig, UsageError
from conformance.core.options import Option
from conformance.core.transcript import StderrTail, Transcript
from conformance.targets.base import System, TargetHooks
from conformance.targets.http.options import HttpOptions, reference_command
from conformance.targets.http.target import HttpService, HttpStatusTarget

if TYPE_CHECKING:
    from conformance.targets.base import Driver, Harness, Target

__all__ = ["Http"]


class Http(TargetHooks):
    """HTTP session-status services."""

    name: ClassVar[str] = HttpStatusTarget.name
    subject: ClassVar[str] = "HTTP GET /sessions/{id}/status"
    noun: ClassVar[str] = "service"
    status_method: ClassVar[str] = HttpStatusTarget.status_method
    status_need: ClassVar[str] = HttpStatusTarget.status_need
    driver: ClassVar[Callable[[Harness], Driver]] = HttpStatusTarget

    handshake_methods: ClassVar[tuple[str, ...]] = ()
    session_method: ClassVar[str | None] = None
    needs: ClassVar[frozenset[str]] = frozenset({"http-status"})
    spec_sources: ClassVar[dict[str, str]] = {
        "agentscope-2.0.4-session-status": "AgentScope 2.0.4 API: GET /sessions/{session_id}/status",
        "rfc9110": "RFC 9110, HTTP Semantics",
    }

    @staticmethod
    def describe(init: dict[str, Any]) -> System:
        """The service's OpenAPI title and version, and what its document offers."""
        system = TargetHooks.describe(init)
        offered = {k: init.get(k) for k in ("openapi", "api", "statusRoute") if k in init}
        return System(system.name, system.version, "", offered or None)

    option_group: ClassVar[str] = "HTTP session-status services (GET /sessions/{id}/status, e.g. AgentScope)"
    options: ClassVar[tuple[Option, ...]] = (
        Option(
            "--http-cmd",
            "http_cmd",
            "command that starts an HTTP status service and prints its http:// URL",
            metavar="CMD",
        ),
        Option(
            "--http-url",
            "http_url",
            "base URL of a service with GET /sessions/{id}/status (e.g. AgentScope)",
            metavar="URL",
        ),
        Option(
            "--user-id",
            "http_user_id",
            "x-user-id of the caller (default: a fresh id; the header is trusted)",
            metavar="ID",
        ),
        Option(
            "--other-user-id",
            "http_other_user_id",
            "x-user-id of another owner, for the ownership cases (default: a fresh id)",
            metavar="ID",
        ),
        Option(
            "--agent-id",
            "http_agent_id",
            "agent of an existing session to probe, for services the suite cannot drive",
            metavar="ID",
        ),
        Option(
            "--session-id",
            "http_session_id",
            "an existing session of --user-id, for services the suite cannot drive",
            metavar="ID",
        ),
        Option(
            "--http-long-run",
            "http_long_run",
            "seconds of a run longer than the service's run-lease time to live, for the case that such a"
            " run still reads running (default: that case is not testable)",
            metavar="SECONDS",
        ),
        Option(
            "--http-idle-evict-after",
            "http_idle_evict_after",
            "seconds after which the service evicts a session nothing uses (its memory or the session): the"
            " twins are held past it (default: only the thorough profile looks for such a policy)",
            metavar="SECONDS",
        ),
        Option(
            "--http-memory-cap",
            "http_memory_cap",
            "sessions the service keeps in memory at most, evicting the least recently used: the twins are"
            " pushed out by that many more (default: only the thorough profile looks for such a cap)",
            metavar="N",
        ),
        Option(
            "--http-request-limit",
            "http_request_limit",
            "requests the service allows per session (status must spend none): the probed twin is probed"
            " more often than that before both twins chat (default: 24 probes)",
            metavar="N",
        ),
    )
    command_option: ClassVar[str] = "http_cmd"
    url_option: ClassVar[str] = "http_url"
    fixed_transport: ClassVar[str | None] = "http"
    reference_command = staticmethod(reference_command)

    @staticmethod
    def configure(values: dict[str, Any], config: AgentConfig) -> HttpOptions:
        return HttpOptions.from_options(
            user_id=values["http_user_id"],
            other_user_id=values["http_other_user_id"],
            agent_id=values["http_agent_id"],
            session_id=values["http_session_id"],
            long_run=values["http_long_run"],
            idle_evict_after=values["http_idle_evict_after"],
            memory_cap=values["http_memory_cap"],
            request_limit=values["http_request_limit"],
        )

    @staticmethod
    def secrets(config: AgentConfig) -> list[str]:
        return []

    @staticmethod
    def service(config: AgentConfig, transcript: Transcript, stderr: StderrTail) -> HttpService:
        return HttpService(config, transcript, stderr)

    @staticmethod
    def replay_options(data: dict[str, Any], config: AgentConfig) -> None:
        """The service as recorded: its URL (when no command starts it) and the callers."""
        agent_data = data["agent"]
        config.transport = "http"
        config.url = config.url or agent_data.get("url")
        config.target_options = HttpOptions.from_options(
            user_id=agent_data.get("userId"),
            other_user_id=agent_data.get("otherUserId"),
            agent_id=agent_data.get("agentId"),
            session_id=agent_data.get("sessionId"),
        )

    @staticmethod
    def replay_setup(data: dict[str, Any], config: AgentConfig) -> Callable[[Any], tuple[Any, list[Any]]]:
        raise UsageError("the HTTP target has no sequence cases: its replay files hold a fuzz case's input")


# pyright checks the declaration against the Protocol the shared layers know targets by: a target
# that drifts from it fails the type check (python -m tools.typecheck).
_DECLARED: type[Target] = Http
