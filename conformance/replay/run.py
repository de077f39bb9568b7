"""`session-status-conformance replay FILE`: re-send a recorded sequence (or check a fuzz case's
shrunk input again) and say whether it still fails.

The agent is started as the run that wrote the file started it (its recorded options: command,
--env, --cwd, --auth-method, transport, timeouts, protocol, its target's options), with any option
given again on top (conformance.replay.options). FIXED exits 0, STILL FAILING 1, anything that
keeps it from telling (an agent that cannot start, a redacted secret not given again) 2.
"""

from __future__ import annotations

import argparse
import shlex
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio.to_thread

from conformance import COMMAND
from conformance.core import revisions
from conformance.core.config import AgentConfig, UsageError, agent_command_problem
from conformance.core.outcomes import AgentExited, CaseSignal, Outcome, Unanswered
from conformance.core.registry import CASES, Case
from conformance.replay.files import frame_line, load_replay, numbered_steps
from conformance.replay.options import add_overrides, fill_redacted, merged_values, recorded_values
from conformance.reports.report import clean
from conformance.run import Run
from conformance.runtime import CaseRecord
from conformance.targets import DEFAULT, configure, named
from conformance.transport.stdio import LaunchError

__all__ = ["FIXED", "STILL_FAILING", "describe_agent", "main", "replay_file", "run_alone", "started_config"]

FIXED, STILL_FAILING, ERROR = 0, 1, 2
MAX_SHOWN_FRAMES = 200
STARTING = (LaunchError, CaseSignal, AgentExited, TimeoutError, Unanswered)


def main(argv: list[str], parser_class: type[argparse.ArgumentParser] = argparse.ArgumentParser) -> int:
    p = parser_class(
        prog=f"{COMMAND} replay",
        description="Re-send a recorded failing sequence (or check a fuzz case's shrunk input again) against the "
        "agent, started as the run started it; prints FIXED (exit 0) or STILL FAILING (exit 1).",
    )
    p.add_argument("file", help="a replay file (reports/<run>/replays/*.replay.json)")
    add_overrides(p)
    args = p.parse_args(argv)
    path = Path(args.__dict__.pop("file"))
    return replay_file(path, args)


def replay_file(path: Path, overrides: argparse.Namespace | None = None) -> int:
    try:
        data = load_replay(path)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return ERROR
    target = str(data.get("target") or DEFAULT)
    with tempfile.TemporaryDirectory(prefix="replay-", ignore_cleanup_errors=True) as workdir:
        try:
            config = started_config(
                data.get("options"),
                list(data.get("agent", {}).get("command") or []),
                target,
                overrides,
                workdir,
                where=str(path),
            )
            if not data.get("options"):  # a file that recorded only its command and its target's own
                named(target).replay_options(data, config)
        except (UsageError, KeyError) as exc:
            print(f"error: cannot replay: {exc}", file=sys.stderr)
            return ERROR
        if "input" in data:
            return _replay_input(data, config)
        return _replay_steps(path, data, config)


def started_config(
    recorded: dict[str, Any] | None,
    command: list[str],
    target: str,
    overrides: argparse.Namespace | None,
    workdir: str,
    *,
    where: str,
) -> AgentConfig:
    """The run's configuration as recorded, with the options given again on top; the agent runs
    in ``workdir`` unless the run gave it a --cwd. UsageError says what is missing or wrong."""
    values = recorded_values(recorded, command, target)
    values = merged_values(values, overrides or argparse.Namespace(), target)
    values = fill_redacted(values, where)
    option = named(target).command_option
    problem = agent_command_problem(values.get(option), "--" + option.replace("_", "-"))
    if problem:
        raise UsageError(problem)
    return configure(values, Path(workdir).resolve(), None)


def describe_agent(config: AgentConfig) -> str:
    who = shlex.join(config.command) if config.command else str(config.url)
    env = [f"{name}={'…' if value in config.secrets else value}" for name, value in config.env.items()]
    return who + (f" (with {' '.join(env)})" if env else "")


def _replay_steps(path: Path, data: dict[str, Any], config: AgentConfig) -> int:
    try:
        steps = named(config.target).replay_setup(data, config)
    except (KeyError, UsageError) as exc:
        print(f"error: {path}: {exc}", file=sys.stderr)
        return ERROR

    def replay() -> Any:
        return steps(runtime.target)

    runtime = Run.begin(config, strict=False).runtime(revision=recorded_revision(data))
    try:
        runtime.start()
        failure, ran = runtime.call(lambda: anyio.to_thread.run_sync(replay))
    except STARTING as exc:
        print(f"error: cannot replay: {str(exc).splitlines()[0]}", file=sys.stderr)
        return ERROR
    finally:
        runtime.close()
    print(
        f"replaying {len(data['steps'])} steps of {data['case']} (seed {data['seed']}) against {describe_agent(config)}"
    )
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
    import conformance.cases as cases

    cases.load_all()
    case = CASES.get(str(data.get("case")))
    if case is None or not isinstance(data["input"], dict):
        print(f"error: {data.get('case')!r} is not a case of this suite's version", file=sys.stderr)
        return ERROR
    config.target = case.target
    config.replay_input = data["input"]

    def headline(record: CaseRecord) -> str:
        return (
            f"replaying the shrunk input of {case.id} (seed {data.get('seed')}) against {describe_agent(config)}\n"
            + clean(f"input: {record.details.get('input', '?')}")
        )

    return run_alone(
        case, config, headline, str(data["failure"]), what="the input", revision=recorded_revision(data)
    )


def run_alone(
    case: Case,
    config: AgentConfig,
    headline: Callable[[CaseRecord], str],
    failed_with: str,
    *,
    what: str,
    revision: str | None = None,
) -> int:
    """Run one case on a freshly started agent, print its exchange, and say FIXED (it passes now),
    STILL FAILING (it fails or warns again) or why it cannot tell."""
    run = Run.begin(config, strict=bool(config.options.get("conformance_strict")))
    runtime = run.runtime(revision=revision)
    try:
        runtime.start()
        record = runtime.run_case(case)
    except STARTING as exc:
        print(f"error: cannot start the agent: {str(exc).splitlines()[0]}", file=sys.stderr)
        return ERROR
    finally:
        runtime.close()
    print(headline(record))
    for entry in record.transcript[:MAX_SHOWN_FRAMES]:
        print(clean(frame_line(entry, max_frame=2000)))
    outcome = record.result.outcome
    if outcome in (Outcome.PASS, Outcome.INFO):
        print(f"FIXED: {what} no longer fails (it failed with: {clean(failed_with)})")
        return FIXED
    if outcome in (Outcome.FAIL, Outcome.WARN):
        print(f"STILL FAILING: {clean(record.result.message)}")
        return STILL_FAILING
    print(f"error: cannot tell: {outcome.value}: {clean(record.result.message)}", file=sys.stderr)
    return ERROR


def recorded_revision(data: dict[str, Any]) -> str | None:
    """The spec revision the run that wrote the file checked: the replay is judged by it."""
    revision = (data.get("spec") or {}).get("revision")
    return revision if revision in revisions.available() else None
