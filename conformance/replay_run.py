"""`python runner.py replay FILE`: re-send a recorded sequence and say whether it still fails."""

from __future__ import annotations

import shlex
import sys
import tempfile
from pathlib import Path
from typing import Any

import anyio.to_thread

from . import revisions
from .config import AgentConfig, McpOptions, UsageError, absolutize_paths, parse_env
from .machine import replay_steps
from .outcomes import AgentExited, CaseSignal, Unanswered
from .replay import load_replay, numbered_steps, steps_of
from .report import clean
from .runtime import Runtime
from .stdio import LaunchError

__all__ = ["replay_file"]

FIXED, STILL_FAILING, ERROR = 0, 1, 2


def replay_file(path: Path, *, agent: str | None, cwd: str | None, env: list[str], timeout: float) -> int:
    try:
        data = load_replay(path)
        command = absolutize_paths(shlex.split(agent)) if agent else list(data["agent"]["command"])
        environment = parse_env(env)
    except (ValueError, UsageError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return ERROR
    workdir = cwd or tempfile.mkdtemp(prefix="replay-")
    config = AgentConfig(command=command, cwd=str(Path(workdir).resolve()), env=environment, timeout=timeout)
    if data.get("target") == "mcp":  # an instruction-queue sequence of session_heartbeat
        from .heartbeat_queue import QueueStep, replay_queue

        agent_data = data["agent"]
        config.target, config.transport = "mcp", agent_data.get("transport", "stdio")
        config.mcp = McpOptions(
            instruct_cmd=agent_data.get("instructCmd"), instruct_url=agent_data.get("instructUrl")
        )
        queue_steps = [QueueStep.from_json(s) for s in data["steps"]]

        def replay() -> Any:
            return replay_queue(runtime.target, queue_steps)
    else:
        steps = steps_of(data)

        def replay() -> Any:
            return replay_steps(runtime.target, steps)

    revision = (data.get("spec") or {}).get("revision")
    if revision in revisions.available():  # judge the steps by the revision the run checked
        revisions.use(revision)
    runtime = Runtime(config)
    try:
        runtime.start()
        failure, ran = runtime.call(lambda: anyio.to_thread.run_sync(replay))
    except (LaunchError, CaseSignal, AgentExited, TimeoutError, Unanswered) as exc:
        print(f"error: cannot replay: {str(exc).splitlines()[0]}", file=sys.stderr)
        return ERROR
    finally:
        runtime.close()
    who = shlex.join(command)
    print(f"replaying {len(data['steps'])} steps of {data['case']} (seed {data['seed']}) against {who}")
    for line in numbered_steps(ran):
        print(clean(line))
    if failure is None:
        print(f"FIXED: the sequence no longer fails (it failed with: {clean(data['failure'])})")
        return FIXED
    print(f"STILL FAILING: {clean(str(failure))}")
    return STILL_FAILING
