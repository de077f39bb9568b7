"""`session-status-conformance reproduce REPORT CASE_ID`: run a case of a report again and say
whether it still fails; with --pipe, pipe its recorded requests into a fresh agent.

The case runs alone, against the agent started with the run's recorded options (report.json's
``options.given``; a value given again replaces the recorded one), and is judged by the case's own
check: FIXED (exit 0), STILL FAILING (exit 1), why it cannot tell (exit 2), or NOT REPRODUCIBLE
ALONE (exit 4: it never failed alone when found), as `replay` says of a replay file (a sequence or
fuzz case replays its own file). It runs as many times as the rate the case's failure reproduced at
needs (the case's ``details.reproduced`` where it recorded one; a failure seen once otherwise)
before it says FIXED.

With --pipe: a reproduction is a list of segments, each the lines to send to a fresh agent process started in
one working directory (a restart in the case starts a new segment; the directory keeps what the
agent persisted). Session ids differ from run to run, so the ids the recorded session/new calls
returned are replaced, in order, by the ids the fresh agent returns. Each request waits for its
answer (up to --timeout); the exchange is printed as it happens.
"""

from __future__ import annotations

import argparse
import difflib
import json
import shlex
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from conformance import COMMAND
from conformance.core.config import AgentConfig, UsageError
from conformance.core.registry import CASES
from conformance.core.spellings import ENCODED, LONG, SPELLINGS
from conformance.replay.options import add_overrides
from conformance.replay.run import (
    ERROR,
    add_tries,
    describe_agent,
    plan,
    recorded_revision,
    replay_file,
    run_alone,
    started_config,
)
from conformance.reports.records import ReportError, read_report
from conformance.reports.report import clean

__all__ = ["Exchange", "main", "pipe_segments"]


@dataclass
class Exchange:
    """What one segment's lines got: every line sent and every line the agent wrote back."""

    sent: list[str] = field(default_factory=list)
    received: list[str] = field(default_factory=list)
    unanswered: list[Any] = field(default_factory=list)  # ids of requests with no answer in time
    exit_code: int | None = None


def pipe_segments(
    segments: list[dict[str, Any]], command: list[str], cwd: str, *, timeout: float = 10.0
) -> list[Exchange]:
    """Send each main-connection segment to a fresh agent process (stdio), in order."""
    renamed: dict[str, str] = {}
    results = []
    for segment in segments:
        if segment.get("connection", "main") != "main" or not segment.get("lines"):
            continue
        results.append(_pipe(segment, command, cwd, timeout, renamed))
    return results


def _pipe(
    segment: dict[str, Any], command: list[str], cwd: str, timeout: float, renamed: dict[str, str]
) -> Exchange:
    agent = _PipedAgent(command, cwd, timeout)
    recorded = list(segment.get("sessionIds") or [])
    waits = set(segment.get("waits", range(len(segment["lines"]))))
    requests: list[Any] = []
    try:
        for n, line in enumerate(segment["lines"]):
            line = _respelled(line, renamed)
            frame = _parsed(line)
            if frame is not None and "id" in frame and "method" not in frame:  # an answer to the agent
                line = agent.readdressed(frame, line)
            agent.send(line)
            if frame is None or "id" not in frame or "method" not in frame:
                continue  # a notification, an answer to the agent, or a line malformed on purpose
            requests.append(frame["id"])
            if n not in waits:
                continue  # it overlapped the lines after it when the case ran
            answer = agent.answer_to(frame["id"])
            if answer is not None and frame.get("method") == "session/new" and recorded:
                _learn_session_id(answer, recorded, renamed)
            if agent.proc.poll() is not None:
                break
        cut = segment.get("cut") or []  # left unanswered by the case's own restart when it ran
        agent.exchange.unanswered = [i for i in requests if agent.answer_to(i) is None and i not in cut]
    except (BrokenPipeError, OSError):
        pass
    finally:
        agent.stop()
    return agent.exchange


def _learn_session_id(answer: dict[str, Any], recorded: list[str], renamed: dict[str, str]) -> None:
    """A session/new's answer: the next recorded session id is the fresh agent's from now on."""
    result = answer.get("result")
    fresh = result.get("sessionId") if isinstance(result, dict) else None
    if isinstance(fresh, str):
        renamed[recorded.pop(0)] = fresh


class _PipedAgent:
    """A fresh agent process on stdio, and what it writes back, read on a thread of its own: its
    answers by id, and its own requests (permission, files) in the order it sent them."""

    def __init__(self, command: list[str], cwd: str, timeout: float) -> None:
        self.proc = subprocess.Popen(
            command, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
        )
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.timeout = timeout
        self.exchange = Exchange()
        self.answers: dict[str, dict[str, Any]] = {}
        # A fresh agent numbers its requests from its start, the recorded run from the shared
        # agent's: each recorded answer goes to the oldest request not answered yet, under that
        # request's id.
        self.asked: list[Any] = []
        self.replied = 0
        self.arrived = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            line = raw.decode("utf-8", "replace").rstrip("\n")
            with self.arrived:
                self.exchange.received.append(line)
                try:
                    frame = json.loads(line)
                except ValueError:
                    continue
                if isinstance(frame, dict) and "id" in frame:
                    if "method" in frame:
                        self.asked.append(frame["id"])
                    else:
                        self.answers[json.dumps(frame["id"])] = frame
                self.arrived.notify_all()

    def answer_to(self, frame_id: Any) -> dict[str, Any] | None:
        key = json.dumps(frame_id)
        with self.arrived:
            self.arrived.wait_for(lambda: key in self.answers or self.proc.poll() is not None, self.timeout)
        return self.answers.get(key)

    def readdressed(self, frame: dict[str, Any], line: str) -> str:
        """A recorded answer to one of the agent's requests, sent only once the agent has asked,
        under the id of its oldest request not answered yet (the line as it was if it never asks)."""
        with self.arrived:
            self.arrived.wait_for(
                lambda: len(self.asked) > self.replied or self.proc.poll() is not None, self.timeout
            )
            if len(self.asked) > self.replied:
                line = json.dumps(
                    {**frame, "id": self.asked[self.replied]}, ensure_ascii=False, separators=(",", ":")
                )
                self.replied += 1
        return line

    def send(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.exchange.sent.append(line)
        self.proc.stdin.write(line.encode("utf-8", "surrogatepass") + b"\n")
        self.proc.stdin.flush()

    def stop(self) -> None:
        time.sleep(0.05)  # a last notification or answer still on its way
        self.proc.terminate()
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.exchange.exit_code = self.proc.returncode


def _respelled(line: str, renamed: dict[str, str]) -> str:
    """The line with each recorded session id, and each other spelling of it a case sent, replaced
    by the fresh agent's id in the same spelling."""
    for old, new in renamed.items():
        spelled = [
            (spell(old), spell(new)) for spell in (*SPELLINGS.values(), *LONG.values(), *ENCODED.values())
        ]
        pairs = [(old, new), *((was, now) for was, now in spelled if was and now)]
        for was, now in sorted(pairs, key=lambda p: -len(p[0])):
            if (was and was != old) or (was, now) == (old, new):
                line = line.replace(json.dumps(was)[1:-1], json.dumps(now)[1:-1])
    return line


def _parsed(line: str) -> dict[str, Any] | None:
    try:
        frame = json.loads(line)
    except ValueError:
        return None
    return frame if isinstance(frame, dict) else None


def main(argv: list[str], parser_class: type[argparse.ArgumentParser] = argparse.ArgumentParser) -> int:
    p = parser_class(
        prog=f"{COMMAND} reproduce",
        description="Run one case of a report again, alone, against the agent started as that run started it "
        "(its recorded options, with any given again on top); a sequence or fuzz case replays its minimal "
        "reproduction. Prints the exchange and FIXED (exit 0, after as many clean tries as the rate it failed at "
        "needs), STILL FAILING (exit 1) or NOT REPRODUCIBLE ALONE (exit 4).",
    )
    p.add_argument("report", help="a report.json")
    p.add_argument("case", help="the case id, e.g. status.error.unknown-session-data")
    p.add_argument(
        "--pipe",
        action="store_true",
        help="instead: pipe the recorded requests into a fresh stdio agent (session ids mapped to the ones it "
        "makes) and print what it answers, with no verdict",
    )
    add_tries(p)
    add_overrides(p)
    args = p.parse_args(argv)
    report_path, case_id, pipe = (
        Path(args.__dict__.pop("report")),
        args.__dict__.pop("case"),
        args.__dict__.pop("pipe"),
    )
    try:
        report = read_report(report_path)
    except ReportError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return ERROR
    entry = next((c for c in report.get("cases", []) if c.get("id") == case_id), None)
    if entry is None:
        ids = [str(c.get("id")) for c in report.get("cases", [])]
        close = difflib.get_close_matches(case_id, ids, n=1)
        hint = f" (did you mean {close[0]}?)" if close else ""
        print(f"error: {report_path} has no case {case_id!r}{hint}", file=sys.stderr)
        return ERROR
    replay = _replay_file(entry, report_path)
    if replay is not None and not pipe:
        return replay_file(replay, args)
    given = args.__dict__.pop("tries")
    target = str(report["target"])
    recorded = (report.get("options") or {}).get("given")
    with tempfile.TemporaryDirectory(prefix="reproduce-", ignore_cleanup_errors=True) as workdir:
        try:
            config = started_config(
                recorded,
                list(report["system"]["command"] or []) if not recorded else [],
                target,
                args,
                workdir,
                where=str(report_path),
            )
        except (UsageError, KeyError) as exc:
            print(f"error: cannot reproduce: {exc}", file=sys.stderr)
            return ERROR
        if pipe:
            return _pipe_recorded(entry, config)
        return _run_again(report, entry, config, given)


def _replay_file(entry: dict[str, Any], report_path: Path) -> Path | None:
    """A sequence's or a fuzz case's replay file: where the run wrote it, else beside the report."""
    recorded = (entry.get("details") or {}).get("replay_file")
    if not isinstance(recorded, str):
        return None
    for path in (Path(recorded), report_path.parent / "replays" / Path(recorded).name):
        if path.is_file():
            return path
    return None


def _run_again(report: dict[str, Any], entry: dict[str, Any], config: AgentConfig, given: int | None) -> int:
    import conformance.cases as cases

    cases.load_all()
    case = CASES.get(str(entry.get("id")))
    if case is None:
        print(f"error: {entry.get('id')!r} is not a case of this suite's version", file=sys.stderr)
        return ERROR

    def headline(record: Any) -> str:
        return f"reproducing {case.id} against {describe_agent(config)}"

    tries, alone, rate = plan({**(entry.get("details") or {}), "message": entry.get("message")}, given)
    return run_alone(
        case,
        config,
        headline,
        str(entry.get("message") or ""),
        what="the case",
        revision=recorded_revision(report),
        tries=tries,
        rate=rate,
        alone=alone,
        instead=f"the full run again, as it ran (seed {(report.get('options') or {}).get('seed', '?')}), or the case alone with "
        f"-k {case.id} "
        "several times",
    )


def _pipe_recorded(entry: dict[str, Any], config: AgentConfig) -> int:
    if config.transport != "stdio" or not config.command:
        print(
            "error: the run was not over stdio: pass --agent CMD (a stdio agent) to pipe into",
            file=sys.stderr,
        )
        return ERROR
    if not entry.get("reproduction"):
        print(f"error: the report has no reproduction for {entry.get('id')!r}", file=sys.stderr)
        return ERROR
    segments = pipe_segments(entry["reproduction"], config.command, config.cwd, timeout=config.timeout)
    for n, exchange in enumerate(segments, 1):
        print(f"# agent process {n} ({shlex.join(config.command)}, in {config.cwd})")
        for line in exchange.sent:
            print(clean(f"--> {line}"))
        for line in exchange.received:
            print(clean(f"<-- {line}"))
        if exchange.unanswered:
            print(f"# no answer to id(s) {exchange.unanswered} within {config.timeout:g} s")
    return 0
