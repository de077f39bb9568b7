"""Handlers of a run's events (conformance.events) that write what a run leaves behind."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TextIO

from conformance.events import Event, RunFinished, as_json
from conformance.reports.junit import enrich_junit, write_fatal_junit

__all__ = ["EventLines", "JUnitFile", "ReportFiles"]


class ReportFiles:
    """At RunFinished: report.json, and report.html, summary.md and badge.svg beside it."""

    def __call__(self, event: Event) -> None:
        if isinstance(event, RunFinished) and event.path is not None:
            event.report.write(event.path.parent)


class JUnitFile:
    """At RunFinished (after ReportFiles): the JUnit file pytest wrote, given each case's outcome
    and spec sentence from report.json; for a run no case could run, a file with its one error, so
    that CI test views still show why."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __call__(self, event: Event) -> None:
        if not isinstance(event, RunFinished):
            return
        if event.fatal and not event.report.cases:
            write_fatal_junit(self.path, event.fatal)
        elif event.report.written is not None:
            enrich_junit(self.path, event.report.written)


class EventLines:
    """Every event as one JSON object a line (``--events FILE``), flushed as it happens."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    def __call__(self, event: Event) -> None:
        self.stream.write(json.dumps(as_json(event), ensure_ascii=False, default=str) + "\n")
        self.stream.flush()
