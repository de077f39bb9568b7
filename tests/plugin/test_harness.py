"""The harness: exit detection, process-group teardown, timeouts and envelope checks."""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path

import pytest

from conformance.core.config import AgentConfig
from conformance.core.outcomes import AgentExited, Unanswered
from conformance.runtime import Runtime
from conformance.transport.stdio import LaunchError, live_group_members
from tests.conftest import AGENTS

HARNESS = AGENTS / "harness"


def runtime(tmp_path: Path, script: str, timeout: float = 5.0) -> Runtime:
    config = AgentConfig(
        command=[sys.executable, str(HARNESS / script)], cwd=str(tmp_path), timeout=timeout, target="acp"
    )
    return Runtime(config)


def test_agent_exit_fails_pending_request_at_once(tmp_path: Path) -> None:
    rt = runtime(tmp_path, "exits_mid_run.py", timeout=30)
    try:
        rt.start()
        started = time.monotonic()
        with pytest.raises(AgentExited) as info:
            rt.call(rt.peer.request, "session/new", {"cwd": str(tmp_path), "mcpServers": []})
        assert time.monotonic() - started < 5, "exit must be noticed at once, not after the timeout"
        assert info.value.code == 7
        assert "out of cheese" in info.value.stderr_tail
        assert "agent exited with code 7" in str(info.value)
    finally:
        rt.close()


def test_whole_process_group_is_killed(tmp_path: Path) -> None:
    rt = runtime(tmp_path, "spawns_child.py")
    rt.start()
    assert rt._agent is not None and rt._agent.process is not None
    pgid = rt._agent.process.pgid
    assert pgid is not None
    deadline = time.monotonic() + 5
    while "child" not in rt.stderr.text() and time.monotonic() < deadline:
        time.sleep(0.02)
    said = re.search(r"child (\d+)", rt.stderr.text())
    assert said is not None, rt.stderr.text()
    child = int(said.group(1))
    assert child in live_group_members(pgid)
    rt.close()
    assert live_group_members(pgid) == []


def test_request_timeout_names_method_and_limit(tmp_path: Path) -> None:
    rt = runtime(tmp_path, "silent.py", timeout=0.3)
    try:
        with pytest.raises(Unanswered, match=r"initialize .*0\.3 s"):
            rt.start()
    finally:
        rt.close()


def test_missing_command_is_a_launch_error(tmp_path: Path) -> None:
    rt = Runtime(AgentConfig(command=["/nonexistent/agent"], cwd=str(tmp_path), target="acp"))
    try:
        with pytest.raises(LaunchError, match="not found"):
            rt.start()
    finally:
        started = time.monotonic()
        rt.close()
    # A process that never started is not waited for (it once cost the close 15 s).
    assert time.monotonic() - started < 5


def test_envelope_problems_are_recorded_against_frames(tmp_path: Path) -> None:
    rt = runtime(tmp_path, "noisy.py")
    try:
        rt.start()
        reply = rt.call(rt.peer.request, "session/new", {"cwd": str(tmp_path), "mcpServers": []})
        # The stray frames after the answer are read by then or soon after: wait for the last one.
        deadline = time.monotonic() + 10
        while (
            not any("matches no request" in p.problem for p in rt.peer.problems)
            and time.monotonic() < deadline
        ):
            time.sleep(0.02)
        problems = [p.problem for p in rt.peer.problems]
        assert any("not JSON" in p for p in problems), problems
        assert any("\"jsonrpc\" is '1.0'" in p for p in problems), problems
        assert any("exactly one of" in p for p in problems), problems
        assert any("matches no request" in p for p in problems), problems
        assert reply.result == {"sessionId": "s1"}
        frames = [e.frame for e in rt.transcript.since(0)]
        assert "Welcome to NoisyAgent v1!" in frames
    finally:
        rt.close()
