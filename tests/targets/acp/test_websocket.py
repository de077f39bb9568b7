"""The network transports (WebSocket, Streamable HTTP): the reference agent served over them,
broken agents seen across two connections, and --agent-url."""

from __future__ import annotations

import pytest

from tests.conftest import (
    ROOT,
    agent_command,
)
from tests.targets.acp.test_broken_agents import WS_BASELINE
from tests.variants import Table, Variant, certify

pytestmark = pytest.mark.slow


# The reference agent over WebSocket, every case: tests/e2e/test_readme_commands.py
# runs it as the README's `--transport websocket`.


# Streamable HTTP carries one JSON object per POST: the malformed-frame fuzzers cannot run.
HTTP_BASELINE = WS_BASELINE | dict.fromkeys(
    [
        "fuzz.frames.survives",
        "fuzz.frames.error-codes",
        "transport.notification.leaves-turn",
        "transport.jsonrpc.status-before-initialize",
        "transport.jsonrpc.status-notification",
    ],
    "n/a",
)


# The reference agent over Streamable HTTP, every case: tests/e2e/test_readme_commands.py runs
# it as the README's `--transport http --agent "my-agent --http 127.0.0.1:0"`.


def over_streamable_http(name: str, variant: Variant) -> tuple[str, ...]:
    return ("--transport", "http", "--agent", agent_command(name, "--listen-http", "127.0.0.1:0"))


# WebSocket's connection bugs (test_broken_agents.py's WS_BROKEN), served over Streamable HTTP: the
# connection cases only.
CONNECTIONS = "status.connections"
HTTP_CONNECTIONS = Table(
    "acp",
    HTTP_BASELINE,
    over_streamable_http,
    {
        # Over HTTP the SDK's server itself refuses B's prompt for a session B never resumed:
        # status.connections.prompt-needs-resume passes.
        "ws_status_attaches": Variant(1, {"status.connections.no-attach": "fail"}, focus=CONNECTIONS),
        "ws_status_per_connection": Variant(
            1,
            {
                "status.connections.active-for-any-connection": "fail",
                "status.connections.close-seen-by-other": "fail",
            },
            focus=CONNECTIONS,
        ),
    },
)


@pytest.mark.parametrize("agent", sorted(HTTP_CONNECTIONS.variants))
def test_connection_bugs_are_caught_over_streamable_http(direct, agent: str) -> None:
    certify(direct, HTTP_CONNECTIONS, agent)


# A reference agent already listening (--agent-url): tests/e2e/test_readme_commands.py runs it
# as the README's `--agent-url ws://127.0.0.1:8765/` (every case; the restart case says why not).


def test_bad_agent_url_is_a_usage_error(suite) -> None:
    run = suite("--agent-url", "ftp://127.0.0.1:1/")
    assert run.code == 2 and "is not a ws://, wss://, http:// or https:// URL" in run.stderr


def test_nothing_listening_is_a_usage_error(suite) -> None:
    run = suite("--agent-url", "ws://127.0.0.1:9/")
    assert run.code == 2 and "cannot open a WebSocket to ws://127.0.0.1:9/" in run.stderr, run.stderr
    assert ROOT.exists()
