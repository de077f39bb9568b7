"""Default report folders are named by what runs, not by its interpreter: runs read apart."""

from __future__ import annotations

import pytest

from conformance.pytest.plugin import command_name, run_label


@pytest.mark.parametrize(
    ("command", "name"),
    [
        ("python tests/agents/acp/status_creates_unknown.py --v2", "status_creates_unknown"),
        ("/usr/bin/python3.11 -u agent.py", "agent"),
        ("python -m conformance.reference.acp.agent", "reference.acp.agent"),
        ("npx @zed-industries/codex-acp", "codex-acp"),
        ("node dist/my-agent.js", "my-agent"),
        ("env LOG=1 my-agent --acp", "my-agent"),
        ("uvx my-mcp-server", "my-mcp-server"),
    ],
)
def test_a_run_is_named_by_its_program(command: str, name: str) -> None:
    assert command_name(command) == name


@pytest.mark.parametrize(
    ("args", "label"),
    [
        (("acp", "stdio", None, None), "reference"),
        (("acp", "websocket", None, None), "reference-acp-websocket"),
        (("acp", "stdio", "node dist/my-agent.js", None), "my-agent-acp-stdio"),
        # An --agent-url / --mcp-url names its transport: no --transport is given with it.
        (("acp", "stdio", None, "ws://127.0.0.1:8765/"), "127.0.0.1:8765-acp-websocket"),
        (("acp", "stdio", None, "http://127.0.0.1:8080/acp"), "127.0.0.1:8080-acp-http"),
        (("mcp", "stdio", None, "https://agents.example/mcp"), "agents.example-mcp-http"),
    ],
)
def test_a_run_is_labelled_by_program_target_and_transport(args: tuple, label: str) -> None:
    assert run_label(*args) == label


def test_the_http_targets_transport_is_its_own() -> None:
    assert run_label("http", "http", None, "https://api.example") == "api.example-http-http"
