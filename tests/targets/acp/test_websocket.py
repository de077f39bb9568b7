"""The network transports (WebSocket, Streamable HTTP): the reference agent served over them,
broken agents seen across two connections, and --agent-url."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import (
    EXPENSIVE,
    REFERENCE_AGENT,
    REFERENCE_MODULE,
    ROOT,
    agent_command,
    guarded,
    listening,
    python_command,
)
from tests.targets.acp.test_broken_agents import SEQ, WS_BASELINE, WS_BROKEN

pytestmark = pytest.mark.slow


def test_reference_agent_over_websocket_passes_every_case(direct) -> None:
    reference = python_command("-m", REFERENCE_MODULE, "--listen", "127.0.0.1:0")
    # The smoke profile: every case, a tenth of the generated inputs (the ci profile's sequences
    # and fuzzers run in full over stdio in test_reference_agent.py; the transport is what is new).
    run = direct("--transport", "websocket", "--agent", reference, "--profile", "smoke")
    assert run.outcomes == WS_BASELINE, run.diff(WS_BASELINE)
    assert run.code == 0
    no_attach = run.case("status.connections.no-attach")
    assert no_attach["details"] == {"updates_to_a": 1, "updates_to_b": 0} | {
        k: v for k, v in no_attach["details"].items() if k == "agent_pgid"
    }


# Streamable HTTP carries one JSON object per POST: the malformed-frame fuzzers cannot run.
HTTP_BASELINE = WS_BASELINE | {"fuzz.frames.survives": "n/a", "fuzz.frames.error-codes": "n/a"}


def test_reference_agent_over_streamable_http_passes_every_case(direct) -> None:
    """Every case but the sequences (they run over WebSocket above and over stdio)."""
    cases, expected = guarded(
        HTTP_BASELINE, {c: HTTP_BASELINE[c] for c in EXPENSIVE - {SEQ} if c in HTTP_BASELINE}
    )
    reference = python_command("-m", REFERENCE_MODULE, "--listen-http", "127.0.0.1:0")
    run = direct("--transport", "http", "--agent", reference, cases=cases)
    assert run.outcomes == expected, run.diff(expected)
    assert run.code == 0
    assert run.report["agent"]["transport"] == "http"
    assert run.case("status.cheap.latency")["details"]["absolute_rule"] is False


@pytest.mark.parametrize("agent", ["ws_status_attaches", "ws_status_per_connection"])
def test_connection_bugs_are_caught_over_streamable_http(direct, agent: str) -> None:
    code, delta = WS_BROKEN[agent]
    # Over HTTP the SDK's server itself refuses B's prompt for a session B never resumed.
    delta = {k: v for k, v in delta.items() if k != "status.connections.prompt-needs-resume"}
    command = agent_command(agent, "--listen-http", "127.0.0.1:0")
    expected = {k: v for k, v in (HTTP_BASELINE | delta).items() if k.startswith("status.connections.")}
    run = direct("--transport", "http", "--agent", command, cases=list(expected))
    assert run.outcomes == expected, run.diff(expected)
    assert run.code == code


@pytest.fixture
def listening_agent(tmp_path: Path):
    with listening([*REFERENCE_AGENT, "--listen", "127.0.0.1:0"], tmp_path) as url:
        yield url, tmp_path


def test_agent_url_runs_everything_but_restarts(direct, listening_agent) -> None:
    """Every case but the sequences: a restart case is not testable without a command."""
    url, cwd = listening_agent
    restarts = {"status.inactive.after-restart"}
    cases, expected = guarded(WS_BASELINE, {c: WS_BASELINE[c] for c in EXPENSIVE - {SEQ} if c in WS_BASELINE})
    expected |= dict.fromkeys(restarts, "not-testable")
    run = direct("--agent-url", url, "--cwd", str(cwd), cases=cases)
    assert run.outcomes == expected, run.diff(expected)
    assert "needs to restart the agent" in run.case("status.inactive.after-restart")["message"]
    assert run.report["agent"]["command"] == [url]
    assert run.code == 0


def test_bad_agent_url_is_a_usage_error(suite) -> None:
    run = suite("--agent-url", "ftp://127.0.0.1:1/")
    assert run.code == 2 and "is not a ws://, wss://, http:// or https:// URL" in run.stderr


def test_nothing_listening_is_a_usage_error(suite) -> None:
    run = suite("--agent-url", "ws://127.0.0.1:9/")
    assert run.code == 2 and "cannot open a WebSocket to ws://127.0.0.1:9/" in run.stderr, run.stderr
    assert ROOT.exists()
