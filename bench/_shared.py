"""What the benchmark scripts share: running the suite's command line as a child process that is
always stopped, and printing a small table.

Children run in a session of their own, so that a Ctrl-C in the terminal reaches only the
benchmark, which then passes it on (the suite writes its partial report on SIGINT) and, if the
child lingers, kills it and every process it started.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from conformance.campaign.command import read_json

__all__ = [
    "PYTHON",
    "REPO_ROOT",
    "log_tail",
    "read_json",
    "run_child",
    "stop_child",
    "table",
]

REPO_ROOT = Path(__file__).resolve().parents[1]
# The interpreter running the benchmark: the project's virtualenv, where the suite is installed.
PYTHON = sys.executable
# After the SIGINT, how long the suite may take to write its reports before it is killed (a
# campaign interrupted confirms up to three findings first).
INTERRUPT_GRACE = 30.0


def run_child(command: Sequence[str], *, log: Path, timeout: float, cwd: Path = REPO_ROOT) -> int:
    """Run ``command`` with its output in ``log``; its exit code. Past ``timeout`` seconds, or on
    Ctrl-C, it is interrupted (then killed, with what it started); Ctrl-C is raised again after."""
    with open(log, "wb") as out:
        child = subprocess.Popen(
            list(command),
            cwd=cwd,
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
        try:
            return child.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            print(f"note: {' '.join(command[1:4])} ran past {timeout:.0f} s: interrupted", file=sys.stderr)
            stop_child(child)
            return child.returncode if child.returncode is not None else -1
        except KeyboardInterrupt:
            print("interrupted: stopping the suite (it writes its partial report)", file=sys.stderr)
            stop_child(child)
            raise


def stop_child(child: subprocess.Popen[Any], grace: float = INTERRUPT_GRACE) -> None:
    """SIGINT to the child's process group, as Ctrl-C would; past ``grace`` (or on a second
    Ctrl-C), SIGKILL to it and to the groups of the processes it started (agents, a campaign's
    rounds run in sessions of their own, which the first signal does not reach)."""
    if child.poll() is not None:
        return
    started = _descendants(child.pid)  # before the kill: orphans are no longer the child's
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(child.pid, signal.SIGINT)
    try:
        child.wait(timeout=grace)
        return
    except (subprocess.TimeoutExpired, KeyboardInterrupt):
        pass
    started |= _descendants(child.pid)
    own_group = os.getpgrp()
    groups = {child.pid} | {group for pid in started if (group := _group_of(pid)) is not None}
    for group in groups - {own_group}:  # never the benchmark's own group
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(group, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        child.wait(timeout=5)


def _descendants(pid: int) -> set[int]:
    """Every process below ``pid`` (Linux /proc; elsewhere none are known, only the child's group
    is killed)."""
    found: set[int] = set()
    pending = [pid]
    while pending:
        parent = pending.pop()
        for task in Path(f"/proc/{parent}/task").glob("*"):
            with contextlib.suppress(OSError, ValueError):
                for word in (task / "children").read_text().split():
                    if int(word) not in found:
                        found.add(int(word))
                        pending.append(int(word))
    return found


def _group_of(pid: int) -> int | None:
    try:
        return os.getpgid(pid)
    except OSError:
        return None


def log_tail(log: Path, lines: int = 15) -> str:
    try:
        return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"


def table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """A plain text table: the first column left-aligned, the others right-aligned."""
    cells = [[str(h) for h in headers], *[[str(c) for c in row] for row in rows]]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]

    def line(row: list[str]) -> str:
        first, *rest = row
        return "  ".join(
            [first.ljust(widths[0]), *(c.rjust(w) for c, w in zip(rest, widths[1:], strict=True))]
        )

    rule = "  ".join("-" * w for w in widths)
    return "\n".join([line(cells[0]), rule, *(line(r) for r in cells[1:])])


def campaign_report(
    folder: Path, name: str, words: Sequence[str], *, seconds: float, wind_down: float
) -> tuple[int, dict[str, Any] | None, Path]:
    """``session-status-conformance campaign WORDS`` with its report in FOLDER/NAME: its exit
    code, its campaign.json (None if it wrote none) and its log. ``wind_down`` bounds the time
    after the budget (the rounds' Ctrl-C, confirming findings, the report)."""
    report_dir = folder / name
    log = folder / f"{name}.log"
    command = [PYTHON, "-m", "conformance", "campaign", *words, "--report-dir", str(report_dir)]
    code = run_child(command, log=log, timeout=seconds + wind_down)
    return code, read_json(report_dir / "campaign.json"), log
