"""Cases run directly on one runtime, without pytest: for tools and the project's own tests.

The command line and the plugin are the product; this is the same harness (options, target,
runtime, revision, outcomes, report) with pytest's collection, xdist and report files left out,
so that a test of one broken agent costs an agent start and its cases, not a pytest start too.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path
from typing import Any

import conformance.cases as cases
from conformance.core.options import add_arguments
from conformance.core.registry import CASES, Case
from conformance.reports.report import RunReport, case_record
from conformance.run import Run, selection_record
from conformance.targets import TARGETS, configure

__all__ = ["certify", "option_values"]


def option_values(args: list[str]) -> dict[str, Any]:
    """Option values (dest -> value) from command-line words, parsed from the one option table."""
    parser = argparse.ArgumentParser(prog="conformance.direct")
    add_arguments(parser, TARGETS)
    return vars(parser.parse_args(args))


def certify(args: list[str], case_ids: list[str] | None = None, report_dir: Path | None = None) -> RunReport:
    """Run the chosen target's cases (all of them, or ``case_ids``, in the suite's order) against
    the agent the command-line words ``args`` name; the report, not written. Without
    ``report_dir``, the agent's sandbox is a temporary folder, removed afterwards."""
    cases.load_all()
    values = option_values(args)
    if report_dir is None:
        with tempfile.TemporaryDirectory(prefix="conformance-") as folder:
            return certify(args, case_ids, Path(folder))
    folder = Path(report_dir)
    run = Run.begin(configure(values, folder / "sandbox", folder), strict=values["conformance_strict"])
    config, report = run.config, run.report
    runtime = run.runtime()
    try:
        run.started(runtime, runtime.start(), values["conformance_spec"])
        chosen = selected(config.target, case_ids)
        every = selected(config.target, None)
        # A partial run, as the plugin records it: no certificate.
        report.selection = selection_record(
            [c.id for c in every], [c.id for c in chosen], args=[c.id for c in chosen]
        )
        for case in chosen:
            report.add(case_record(case, runtime.run_case(case), config.secrets, report_dir=folder))
    finally:
        runtime.close()
    return report


def selected(target: str, case_ids: list[str] | None) -> list[Case]:
    assert target in {t.name for t in TARGETS}
    order = {case_id: n for n, case_id in enumerate(CASES)}
    # pytest's order: case files by name, cases in the order they are declared in them
    mine = sorted((c for c in CASES.values() if c.target == target), key=lambda c: (c.module, order[c.id]))
    if case_ids is None:
        return mine
    unknown = set(case_ids) - {c.id for c in mine}
    if unknown:
        raise KeyError(f"no {target} cases named {sorted(unknown)}")
    return [c for c in mine if c.id in case_ids]
