"""The toy target's declaration (targets.base.Target): what the suite reads to offer its options,
start its server and report on it. It overrides none of the optional hooks (TargetHooks): its
handshake's ``name``, ``version`` and ``capabilities`` are what the default ``describe`` reads."""

from __future__ import annotations

import sys
from typing import Any, ClassVar

from conformance.core.config import UsageError
from conformance.core.options import Option
from conformance.targets.base import TargetHooks
from conformance.transport.process import AgentProcess
from toy_target.driver import ToyTarget


class Toy(TargetHooks):
    name = ToyTarget.name
    subject = "toy/status"
    noun = "server"
    status_method = ToyTarget.status_method
    status_need = ToyTarget.status_need
    driver = ToyTarget
    needs = frozenset({"status"})
    handshake_methods: ClassVar[tuple[str, ...]] = ("toy/hello",)
    session_method: ClassVar[str | None] = None
    spec_sources: ClassVar[dict[str, str]] = {"toy-status@2026": "The toy protocol's status method (2026)"}
    option_group = "Toy servers (toy/status)"
    options = (
        Option("--toy-cmd", "toy_cmd", "command that starts the toy server on stdio", metavar="CMD"),
        Option("--toy-url", "toy_url", "a toy server already listening (ws://…)", metavar="URL"),
    )
    command_option = "toy_cmd"
    url_option = "toy_url"
    fixed_transport = None

    @staticmethod
    def reference_command(transport: str, values: dict[str, Any]) -> list[str]:
        if transport != "stdio":
            raise UsageError("the toy reference server speaks stdio only: pass --toy-cmd")
        return [sys.executable, "-m", "toy_target.reference"]

    @staticmethod
    def service(config: Any, transcript: Any, stderr: Any) -> AgentProcess:
        return AgentProcess(config, transcript, stderr)
