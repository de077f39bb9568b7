"""The engine driven without pytest: for tools and the project's own tests (the variant tests
certify every variant through `certify`).

The command line and the plugin are the product; this is the same engine (conformance.run: its
pre-flight, selection and order, case step, verdict and close) with pytest's collection, xdist and
its report files left out, so that a test of one broken agent costs an agent start and its cases,
not a pytest start too.
"""

from __future__ import annotations

import argparse
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import conformance.cases as cases
from conformance.core.options import add_arguments
from conformance.events import Handler, RunFinished
from conformance.reports.report import RunReport
from conformance.run import Run
from conformance.targets import TARGETS, configure

__all__ = ["certify", "finished", "option_values"]


def option_values(args: list[str]) -> dict[str, Any]:
    """Option values (dest -> value) from command-line words, parsed from the one option table."""
    parser = argparse.ArgumentParser(prog="conformance.direct")
    add_arguments(parser, TARGETS)
    return vars(parser.parse_args(args))


def certify(args: list[str], case_ids: list[str] | None = None, report_dir: Path | None = None) -> RunReport:
    """The report of `finished` (not written)."""
    return finished(args, case_ids, report_dir).report


def finished(
    args: list[str],
    case_ids: list[str] | None = None,
    report_dir: Path | None = None,
    *,
    keyword: str | None = None,
    handlers: Sequence[Handler] = (),
) -> RunFinished:
    """Run the chosen target's cases (all of them, those in ``case_ids``, or those ``-k keyword``
    selects, in the suite's order) against the agent the command-line words ``args`` name: how
    the run ended (its verdict, exit code and report). ``handlers`` see every event (a
    ReportFiles writes the report). Without ``report_dir``, the agent's sandbox is a temporary
    folder, removed afterwards."""
    cases.load_all()
    values = option_values(args)
    if report_dir is None:
        with tempfile.TemporaryDirectory(prefix="conformance-") as folder:
            return finished(args, case_ids, Path(folder), keyword=keyword, handlers=handlers)
    folder = Path(report_dir)
    config = configure(values, folder / "sandbox", folder)
    run = Run.begin(config, strict=values["conformance_strict"], report_dir=folder, handlers=handlers)
    ended = None
    for event in run.execute(case_ids, keyword=keyword, spec=values["conformance_spec"]):
        if isinstance(event, RunFinished):
            ended = event
    assert ended is not None  # execute ends with RunFinished, or raises
    return ended
