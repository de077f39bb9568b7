"""Default report folders are named by what runs, not by its interpreter: runs read apart."""

from __future__ import annotations

import pytest

from conformance.pytest.plugin import command_name


@pytest.mark.parametrize(
    ("command", "name"),
    [
        ("python tests/agents/status_creates_unknown.py --v2", "status_creates_unknown"),
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
