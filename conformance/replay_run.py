"""`python runner.py replay FILE`: re-send a recorded sequence and say whether it still fails."""

from __future__ import annotations

import shlex
import sys
import tempfile
from pathlib import Path

import anyio.to_thread

from .config import AgentConfig, UsageError, absolutize_paths, parse_env
from .machine import replay_steps
from .outcomes import AgentExited, CaseSignal
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
    steps = steps_of(data)
    workdir = cwd or tempfile.mkdtemp(prefix="replay-")
    runtime = Runtime(
        AgentConfig(command=command, cwd=str(Path(workdir).resolve()), env=environment, timeout=timeout)
    )
    try:
        runtime.start()
        failure, ran = runtime.call(
            lambda: anyio.to_thread.run_sync(lambda: replay_steps(runtime.target, steps))
        )
    except (LaunchError, CaseSignal, AgentExited, TimeoutError) as exc:
        print(f"error: cannot replay: {str(exc).splitlines()[0]}", file=sys.stderr)
        return ERROR
    finally:
        runtime.close()
    who = shlex.join(command)
    print(f"replaying {len(steps)} steps of {data['case']} (seed {data['seed']}) against {who}")
    for line in numbered_steps(ran):
        print(clean(line))
    if failure is None:
        print(f"FIXED: the sequence no longer fails (it failed with: {clean(data['failure'])})")
        return FIXED
    print(f"STILL FAILING: {clean(failure)}")
    return STILL_FAILING
