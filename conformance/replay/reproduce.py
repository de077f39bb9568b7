"""`session-status-conformance reproduce REPORT CASE_ID`: pipe a case's reproduction into a fresh agent.

A reproduction is a list of segments, each the lines to send to a fresh agent process started in
one working directory (a restart in the case starts a new segment; the directory keeps what the
agent persisted). Session ids differ from run to run, so the ids the recorded session/new calls
returned are replaced, in order, by the ids the fresh agent returns. Each request waits for its
answer (up to --timeout); the exchange is printed as it happens.
"""

from __future__ import annotations

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

from conformance.core.config import absolutize_paths
from conformance.core.spellings import ENCODED, LONG, SPELLINGS
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
    proc = subprocess.Popen(
        command, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    )
    assert proc.stdin is not None and proc.stdout is not None
    exchange = Exchange()
    answers: dict[str, dict[str, Any]] = {}
    # The agent's own requests (permission, files), in the order it sent them. A fresh agent numbers
    # them from its start, the recorded run from the shared agent's: each recorded answer goes to
    # the oldest request not answered yet, under that request's id.
    asked: list[Any] = []
    replied = 0
    arrived = threading.Condition()

    def read() -> None:
        assert proc.stdout is not None
        for raw in proc.stdout:
            line = raw.decode("utf-8", "replace").rstrip("\n")
            with arrived:
                exchange.received.append(line)
                try:
                    frame = json.loads(line)
                except ValueError:
                    continue
                if isinstance(frame, dict) and "id" in frame:
                    if "method" in frame:
                        asked.append(frame["id"])
                    else:
                        answers[json.dumps(frame["id"])] = frame
                arrived.notify_all()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    recorded = list(segment.get("sessionIds") or [])
    waits = set(segment.get("waits", range(len(segment["lines"]))))
    requests: list[Any] = []

    def answer_to(frame_id: Any) -> dict[str, Any] | None:
        key = json.dumps(frame_id)
        with arrived:
            arrived.wait_for(lambda: key in answers or proc.poll() is not None, timeout)
        return answers.get(key)

    try:
        for n, line in enumerate(segment["lines"]):
            line = _respelled(line, renamed)
            frame = _parsed(line)
            if frame is not None and "id" in frame and "method" not in frame:  # an answer to the agent:
                with arrived:  # only once the agent has asked
                    arrived.wait_for(lambda r=replied: len(asked) > r or proc.poll() is not None, timeout)
                    if len(asked) > replied:
                        line = json.dumps(
                            {**frame, "id": asked[replied]}, ensure_ascii=False, separators=(",", ":")
                        )
                        replied += 1
            exchange.sent.append(line)
            proc.stdin.write(line.encode("utf-8", "surrogatepass") + b"\n")
            proc.stdin.flush()
            if frame is None or "id" not in frame or "method" not in frame:
                continue  # a notification, an answer to the agent, or a line malformed on purpose
            requests.append(frame["id"])
            if n not in waits:
                continue  # it overlapped the lines after it when the case ran
            answer = answer_to(frame["id"])
            if answer is not None and frame.get("method") == "session/new" and recorded:
                result = answer.get("result")
                fresh = result.get("sessionId") if isinstance(result, dict) else None
                if isinstance(fresh, str):
                    renamed[recorded.pop(0)] = fresh
            if proc.poll() is not None:
                break
        exchange.unanswered = [i for i in requests if answer_to(i) is None]
    except (BrokenPipeError, OSError):
        pass
    finally:
        time.sleep(0.05)  # a last notification or answer still on its way
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        exchange.exit_code = proc.returncode
    return exchange


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


def main(argv: list[str]) -> int:
    import argparse

    p = argparse.ArgumentParser(
        prog="session-status-conformance reproduce",
        description="Pipe a case's reproduction (from report.json) into a fresh agent and print the exchange.",
    )
    p.add_argument("report", help="a report.json")
    p.add_argument("case", help="the case id, e.g. status.error.unknown-session-data")
    p.add_argument("--agent", help="the agent command (default: the one the report recorded)")
    p.add_argument("--cwd", help="working directory for the agent (default: a fresh temporary one)")
    p.add_argument("--timeout", type=float, default=10.0)
    args = p.parse_args(argv)
    try:
        report = json.loads(Path(args.report).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        print(f"error: cannot read {args.report}: {exc}", file=sys.stderr)
        return 2
    case = next((c for c in report.get("cases", []) if c.get("id") == args.case), None)
    if case is None or not case.get("reproduction"):
        print(f"error: {args.report} has no reproduction for {args.case!r}", file=sys.stderr)
        return 2
    if report.get("agent", {}).get("transport", "stdio") != "stdio" and not args.agent:
        print(
            "error: the run was not over stdio: pass --agent CMD (a stdio agent) to pipe into",
            file=sys.stderr,
        )
        return 2
    command = absolutize_paths(shlex.split(args.agent)) if args.agent else list(report["agent"]["command"])
    cwd = args.cwd or tempfile.mkdtemp(prefix="reproduce-")
    for n, exchange in enumerate(pipe_segments(case["reproduction"], command, cwd, timeout=args.timeout), 1):
        print(f"# agent process {n} ({shlex.join(command)}, in {cwd})")
        for line in exchange.sent:
            print(clean(f"--> {line[:2000]}"))
        for line in exchange.received:
            print(clean(f"<-- {line[:2000]}"))
        if exchange.unanswered:
            print(f"# no answer to id(s) {exchange.unanswered} within {args.timeout:g} s")
    return 0
