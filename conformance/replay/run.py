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
from conformance.core.outcomes import AgentExited, CaseSignal, Outcome, Unanswered
from conformance.core.registry import CASES
from conformance.replay.files import frame_line, load_replay, numbered_steps
from conformance.reports.report import clean
from conformance.runtime import Runtime
from conformance.targets import DEFAULT, named
from conformance.transport.stdio import LaunchError

__all__ = ["replay_file"]

FIXED, STILL_FAILING, ERROR = 0, 1, 2
MAX_SHOWN_FRAMES = 200


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
    if "input" in data:
        return _replay_input(data, config)
    try:
        target = named(data.get("target") or DEFAULT)
        config.target = target.name
        steps = target.replay_setup(data, config)
    except (KeyError, UsageError) as exc:
        print(f"error: {path}: {exc}", file=sys.stderr)
        return ERROR

    def replay() -> Any:
        return steps(runtime.target)

    _use_recorded_revision(data)
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


def _replay_input(data: dict[str, Any], config: AgentConfig) -> int:
    """A fuzz finding: its case checks the recorded (shrunk) input alone, as it checked it when it
    failed, on a freshly started agent."""
    from conformance import cases

    cases.load_all()
    case = CASES.get(str(data.get("case")))
    if case is None or not isinstance(data["input"], dict):
        print(f"error: {data.get('case')!r} is not a case of this suite's version", file=sys.stderr)
        return ERROR
    config.target = case.target
    config.replay_input = data["input"]
    try:
        named(case.target).replay_options(data, config)
    except (KeyError, UsageError) as exc:
        print(f"error: {data.get('case')}: {exc}", file=sys.stderr)
        return ERROR
    _use_recorded_revision(data)
    runtime = Runtime(config)
    try:
        runtime.start()
        record = runtime.run_case(case)
    except (LaunchError, CaseSignal, AgentExited, TimeoutError, Unanswered) as exc:
        print(f"error: cannot replay: {str(exc).splitlines()[0]}", file=sys.stderr)
        return ERROR
    finally:
        runtime.close()
    who = shlex.join(config.command) or config.url
    print(f"replaying the shrunk input of {case.id} (seed {data.get('seed')}) against {who}")
    print(clean(f"input: {record.details.get('input', '?')}"))
    for entry in record.transcript[:MAX_SHOWN_FRAMES]:
        print(clean(frame_line(entry)))
    outcome = record.result.outcome
    if outcome is Outcome.PASS:
        print(f"FIXED: the input no longer fails (it failed with: {clean(data['failure'])})")
        return FIXED
    if outcome in (Outcome.FAIL, Outcome.WARN):
        print(f"STILL FAILING: {clean(record.result.message)}")
        return STILL_FAILING
    print(f"error: cannot replay: {outcome.value}: {clean(record.result.message)}", file=sys.stderr)
    return ERROR


def _use_recorded_revision(data: dict[str, Any]) -> None:
    """Judge the replay by the spec revision the run that wrote it checked."""
    revision = (data.get("spec") or {}).get("revision")
    if revision in revisions.available():
        revisions.use(revision)
