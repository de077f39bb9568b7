"""What a run tells while it runs: typed events, in the order the engine (conformance.run) emits them.

    RunStarted → TargetDescribed → (CaseStarted → CaseFinished)* → RunFinished

A run whose target cannot be started ends with RunFinished right after RunStarted (its ``fatal``
says why). Every way of starting a run (the pytest plugin, direct runs, replay and reproduce) is an
adapter of the same engine, and what it writes or prints is a handler of these events: a handler
is any callable that takes one event and returns nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from conformance.core.outcomes import Verdict
from conformance.reports.records import CaseOutcome
from conformance.reports.report import RunReport

__all__ = [
    "CaseFinished",
    "CaseStarted",
    "Event",
    "Handler",
    "RunFinished",
    "RunStarted",
    "TargetDescribed",
    "as_json",
]


@dataclass(frozen=True)
class RunStarted:
    """The run's pre-flight begins: its target, seed and strictness are fixed."""

    target: str
    seed: int | None
    strict: bool
    report_dir: Path | None


@dataclass(frozen=True)
class TargetDescribed:
    """The target started and said what it is; ``revision``: the spec revision the run checks, and why."""

    target: str
    revision: str
    why: str
    # Whether it advertises its status method (None: its handshake did not tell).
    advertised: bool | None
    said: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class CaseStarted:
    case_id: str


@dataclass(frozen=True)
class CaseFinished:
    """One case's outcome; ``record``: its entry of report.json, as the run's report holds it."""

    case_id: str
    outcome: str
    record: CaseOutcome


@dataclass(frozen=True)
class RunFinished:
    """The run's end: its verdict (the honest one), the exit code (with a baseline, what it gates),
    the verdict line, and where report.json goes (``path``; None: the run writes no files)."""

    verdict: Verdict
    exit_code: int
    line: str
    report: RunReport
    path: Path | None
    fatal: str | None = None  # why no case could run
    incomplete: bool = False  # interrupted before every selected case ran


Event = RunStarted | TargetDescribed | CaseStarted | CaseFinished | RunFinished
Handler = Callable[[Event], None]


def as_json(event: Event) -> dict[str, Any]:
    """An event as one JSON object (``event``: its kind), for a JSON-lines stream."""
    kind = type(event).__name__
    if isinstance(event, RunStarted):
        body: dict[str, Any] = {
            "target": event.target,
            "seed": event.seed,
            "strict": event.strict,
            "reportDir": str(event.report_dir) if event.report_dir else None,
        }
    elif isinstance(event, TargetDescribed):
        body = {
            "target": event.target,
            "revision": event.revision,
            "why": event.why,
            "advertised": event.advertised,
        }
    elif isinstance(event, CaseStarted):
        body = {"id": event.case_id}
    elif isinstance(event, CaseFinished):
        body = {"id": event.case_id, "outcome": event.outcome, "message": event.record.message}
    else:
        body = {
            "verdict": event.verdict.label,
            "exitCode": event.exit_code,
            "line": event.line,
            "report": str(event.path) if event.path else None,
            "fatal": event.fatal,
            "incomplete": event.incomplete,
        }
    return {"event": kind, **body}
