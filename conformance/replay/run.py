"""`session-status-conformance replay FILE`: re-send a recorded sequence (or check a fuzz case's
shrunk input again) and say whether it still fails.

The agent is started as the run that wrote the file started it (its recorded options: command,
--env, --cwd, --auth-method, transport, timeouts, protocol, its target's options), with any option
given again on top (conformance.replay.options). FIXED exits 0, STILL FAILING 1, anything that
keeps it from telling (an agent that cannot start, a redacted secret not given again) 2, and
NOT REPRODUCIBLE ALONE 4: the failure never failed alone when it was found (it showed only in the
full run), so no replay alone can say it is gone. 3 is left out: the suite's own exit 3 means the
agent does not advertise the method, and a script that runs both must not read one for the other.

A failure is replayed as many times as the rate it reproduced at when found needs (the replay
file's ``reproduced``: "reproduced alone 2 of 3"), so that a remaining bug would have shown with
CONFIDENCE: FIXED only after that many clean tries, STILL FAILING at the first failure.
"""

from __future__ import annotations

import argparse
import math
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
from conformance.core.outcomes import Outcome
from conformance.core.registry import CASES, Case
from conformance.events import RunFinished
from conformance.replay.files import frame_line, load_replay, numbered_steps
from conformance.replay.options import add_overrides, fill_redacted, merged_values, recorded_values
from conformance.reports.report import clean
from conformance.run import STARTING, Run
from conformance.runtime import CaseRecord
from conformance.targets import configure, default, named

__all__ = [
    "CONFIDENCE",
    "FIXED",
    "NOT_REPRODUCIBLE",
    "STILL_FAILING",
    "add_tries",
    "describe_agent",
    "main",
    "replay_file",
    "run_alone",
    "started_config",
    "tries_needed",
]

FIXED, STILL_FAILING, ERROR, NOT_REPRODUCIBLE = 0, 1, 2, 4
CONFIDENCE = 0.99  # how sure a FIXED is that a bug still there would have shown in its tries
MAX_TRIES = 30
# A failure that never failed alone when it was found is still tried this often: it may now.
UNREPRODUCED_TRIES = 3
# What a report or file that recorded no rate is taken to say: it failed once, in one try.
ONCE = (1, 1)
MAX_SHOWN_FRAMES = 200


def main(argv: list[str], parser_class: type[argparse.ArgumentParser] = argparse.ArgumentParser) -> int:
    p = parser_class(
        prog=f"{COMMAND} replay",
        description="Re-send a recorded failing sequence (or check a fuzz case's shrunk input again) against the "
        "agent, started as the run started it, as many times as the rate it reproduced at when found needs; prints "
        "FIXED (exit 0), STILL FAILING (exit 1), or NOT REPRODUCIBLE ALONE (exit 4: it never failed alone when "
        "found; run the full run again instead).",
    )
    p.add_argument("file", help="a replay file (reports/<run>/replays/*.replay.json)")
    add_tries(p)
    add_overrides(p)
    args = p.parse_args(argv)
    path = Path(args.__dict__.pop("file"))
    return replay_file(path, args)


def add_tries(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--tries",
        type=int,
        default=None,
        metavar="N",
        help="replay it N times before FIXED (default: as many as the rate it reproduced at when found needs "
        f"for {CONFIDENCE:.0%} confidence; stops at the first failure)",
    )


def tries_needed(failed: int, tries: int, confidence: float = CONFIDENCE) -> int | None:
    """Clean tries after which a bug that failed ``failed`` of ``tries`` times alone when found
    would have shown with ``confidence``: its rate taken as failed / (tries + 1), one miss more than
    seen, so that 3 of 3 asks for more than one try. None when it never failed alone."""
    if failed <= 0 or tries <= 0:
        return None
    rate = min(failed, tries) / (tries + 1)
    return min(MAX_TRIES, max(1, math.ceil(math.log(1 - confidence) / math.log(1 - rate))))


def recorded_rate(data: dict[str, Any]) -> tuple[int, int]:
    """(failed, tries) alone when found, from a replay file's or a case's ``reproduced``; a file
    written before it was recorded: never alone if its failure says so, else once in one try."""
    found = data.get("reproduced")
    if (
        isinstance(found, dict)
        and isinstance(found.get("failed"), int)
        and isinstance(found.get("tries"), int)
    ):
        return found["failed"], found["tries"]
    if str(data.get("failure") or data.get("message") or "").startswith(
        "not reproducible when replayed alone"
    ):
        return 0, 1
    return ONCE


def rate_text(data: dict[str, Any], failed: int, tries: int) -> str:
    found = data.get("reproduced")
    if isinstance(found, dict) and isinstance(found.get("text"), str):
        return found["text"]
    if (failed, tries) == ONCE:
        return "it failed the one time it ran; no rate recorded"
    return f"failed alone {failed} of {tries}" if failed else "0 of 1: only in the full run"


def plan(data: dict[str, Any], given: int | None) -> tuple[int, bool, str]:
    """How many tries, whether the failure ever failed alone, and the rate in words."""
    failed, tries = recorded_rate(data)
    needed = tries_needed(failed, tries)
    if given is not None:
        return max(1, given), needed is not None, rate_text(data, failed, tries)
    return needed or UNREPRODUCED_TRIES, needed is not None, rate_text(data, failed, tries)


def counted(tries: int) -> str:
    return f"{tries} {'try' if tries == 1 else 'tries'}"


def fixed_line(what: str, tries: int, rate: str, failed_with: str) -> str:
    return (
        f"FIXED: {what} no longer fails: 0 failures in {counted(tries)}; at the rate it was found ({rate}), a "
        f"remaining bug would have shown with {CONFIDENCE:.0%} probability (it failed with: {clean(failed_with)})"
    )


def unreproducible_line(tries: int, rate: str, instead: str) -> str:
    return (
        f"NOT REPRODUCIBLE ALONE: 0 failures in {counted(tries)}, and it never failed alone when it was found "
        f"({rate}): a replay alone cannot say it is fixed. Run instead: {instead}"
    )


def replay_file(path: Path, overrides: argparse.Namespace | None = None) -> int:
    given = overrides.__dict__.pop("tries", None) if overrides is not None else None
    try:
        data = load_replay(path)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return ERROR
    target = str(data.get("target") or default().name)
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
            return _replay_input(data, config, given)
        return _replay_steps(path, data, config, given)


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


def _replay_steps(path: Path, data: dict[str, Any], config: AgentConfig, given: int | None = None) -> int:
    run = Run.begin(config, strict=False, revision=recorded_revision(data))
    try:
        steps = run.declaration.replay_setup(data, config)
    except (KeyError, UsageError) as exc:
        print(f"error: {path}: {exc}", file=sys.stderr)
        return ERROR

    def replay() -> Any:
        return steps(runtime.target)

    tries, alone, rate = plan(data, given)
    runtime = run.runtime
    failure, ran, tried = None, [], 0
    try:
        started = run.start(spec=None)
        if isinstance(started, RunFinished):
            print(f"error: cannot replay: {cannot_start(started)}", file=sys.stderr)
            return ERROR
        while tried < tries and failure is None:
            tried += 1
            failure, ran = runtime.call(lambda: anyio.to_thread.run_sync(replay))
    except STARTING as exc:
        print(f"error: cannot replay: {str(exc).splitlines()[0]}", file=sys.stderr)
        return ERROR
    finally:
        run.close()
    print(
        f"replaying {len(data['steps'])} steps of {data['case']} (seed {data['seed']}) against {describe_agent(config)}"
        f", up to {tries} times ({rate})"
    )
    for line in numbered_steps(ran):
        print(clean(line))
    if failure is not None:
        print(f"STILL FAILING (try {tried} of {tries}): {clean(str(failure))}")
        return STILL_FAILING
    if not alone:
        instead = (
            f"the full run again, as it ran ({COMMAND} --agent … --seed {data.get('seed')}), or its case alone with "
            f"-k {data['case']} several times: a failure that needs what ran before it shows only there"
        )
        print(unreproducible_line(tried, rate, instead))
        return NOT_REPRODUCIBLE
    print(fixed_line("the sequence", tried, rate, str(data["failure"])))
    return FIXED


def _replay_input(data: dict[str, Any], config: AgentConfig, given: int | None = None) -> int:
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

    tries, _, rate = plan(data, given)
    return run_alone(
        case,
        config,
        headline,
        str(data["failure"]),
        what="the input",
        revision=recorded_revision(data),
        tries=tries,
        rate=rate,
    )


def run_alone(
    case: Case,
    config: AgentConfig,
    headline: Callable[[CaseRecord], str],
    failed_with: str,
    *,
    what: str,
    revision: str | None = None,
    tries: int = 1,
    rate: str = "",
    alone: bool = True,
    instead: str = "",
) -> int:
    """Run one case on a freshly started agent, up to ``tries`` times (a fresh agent each), print
    its exchange, and say STILL FAILING (it fails or warns again, at the first try that does),
    FIXED (it passed every try), NOT REPRODUCIBLE ALONE (it passed every try, and never failed
    alone when found: ``alone`` false; ``instead``, what to run) or why it cannot tell."""
    record = None
    for tried in range(1, tries + 1):
        run = Run.begin(config, strict=bool(config.options.get("conformance_strict")), revision=revision)
        try:
            started = run.start(spec=None)
            if isinstance(started, RunFinished):
                print(f"error: cannot start the agent: {cannot_start(started)}", file=sys.stderr)
                return ERROR
            record, _ = run.run_case(case)
        except STARTING as exc:
            print(f"error: cannot start the agent: {str(exc).splitlines()[0]}", file=sys.stderr)
            return ERROR
        finally:
            run.close()
        outcome = record.result.outcome
        if outcome in (Outcome.PASS, Outcome.INFO) and tried < tries:
            continue
        print(headline(record) + (f" (try {tried} of {tries}; {rate})" if tries > 1 else ""))
        for entry in record.transcript[:MAX_SHOWN_FRAMES]:
            print(clean(frame_line(entry, max_frame=2000)))
        if outcome in (Outcome.PASS, Outcome.INFO):
            if not alone:
                print(unreproducible_line(tried, rate, instead))
                return NOT_REPRODUCIBLE
            print(fixed_line(what, tried, rate or "failed once", failed_with))
            return FIXED
        if outcome in (Outcome.FAIL, Outcome.WARN):
            print(
                f"STILL FAILING{f' (try {tried} of {tries})' if tries > 1 else ''}: {clean(record.result.message)}"
            )
            return STILL_FAILING
        print(f"error: cannot tell: {outcome.value}: {clean(record.result.message)}", file=sys.stderr)
        return ERROR
    return ERROR


def cannot_start(finished: RunFinished) -> str:
    """Why the agent could not be started, as the engine's pre-flight said it."""
    return str(finished.fatal or finished.line).removeprefix("cannot certify: ")


def recorded_revision(data: dict[str, Any]) -> str | None:
    """The spec revision the run that wrote the file checked: the replay is judged by it."""
    revision = (data.get("spec") or {}).get("revision")
    return revision if revision in revisions.available() else None
