"""`session-status-conformance replay FILE`: re-send a recorded sequence and say whether it still fails."""

from __future__ import annotations

import shlex
import sys
import tempfile
from pathlib import Path
from typing import Any

import anyio.to_thread

from conformance.core import revisions
from conformance.core.config import AgentConfig, UsageError, absolutize_paths, parse_env
from conformance.core.outcomes import AgentExited, CaseSignal, Unanswered
from conformance.replay.files import load_replay, numbered_steps
from conformance.reports.report import clean
from conformance.runtime import Runtime
from conformance.targets import DEFAULT, named
from conformance.transport.stdio import LaunchError

__all__ = ["replay_file"]

FIXED, STILL_FAILING, ERROR = 0, 1, 2


def replay_file(path: Path, *, agent: str | None, cwd: str | None, env: list[str], timeout: float) -> int:
    if cwd is not None:
        return _replay(path, agent=agent, workdir=cwd, env=env, timeout=timeout)
    with tempfile.TemporaryDirectory(prefix="replay-", ignore_cleanup_errors=True) as workdir:
        return _replay(path, agent=agent, workdir=workdir, env=env, timeout=timeout)


def _replay(path: Path, *, agent: str | None, workdir: str, env: list[str], timeout: float) -> int:
    try:
        data = load_replay(path)
        command = absolutize_paths(shlex.split(agent)) if agent else list(data["agent"]["command"])
        environment = parse_env(env)
    except (ValueError, UsageError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return ERROR
    config = AgentConfig(command=command, cwd=str(Path(workdir).resolve()), env=environment, timeout=timeout)
    try:
        target = named(data.get("target") or DEFAULT)
        config.target = target.name
        steps = target.replay_setup(data, config)
    except (KeyError, UsageError) as exc:
        print(f"error: {path}: {exc}", file=sys.stderr)
        return ERROR

    def replay() -> Any:
        return steps(runtime.target)

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
