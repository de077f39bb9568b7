"""What the plugin keeps for a run in pytest's stash (``config.stash[KEY]``), every key in one place:
the plugin writes them, the case items and the command line read them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from conformance.core.config import AgentConfig
from conformance.reports.baseline import Baseline
from conformance.reports.report import RunReport
from conformance.run import Run

__all__ = [
    "ACTIVE",
    "AGENT",
    "BASELINE",
    "COLLECTED",
    "COMMAND_LINE",
    "CREATED",
    "INTERRUPTED",
    "NOTHING_SELECTED",
    "REPORT",
    "REPORT_DIR",
    "REPORT_PATH",
    "REVISION",
    "RUN",
    "SIGNALS",
    "strict",
]

ACTIVE = pytest.StashKey[bool]()  # the run certifies an agent (an agent option was given)
AGENT = pytest.StashKey[AgentConfig]()  # the agent and the run's options
REPORT_DIR = pytest.StashKey[Path]()
REPORT_PATH = pytest.StashKey[Path]()  # report.json, once written
REVISION = pytest.StashKey[str]()  # the spec revision the run checks, once resolved (workers: told)
RUN = pytest.StashKey[Run]()  # the run: the engine (conformance.run), its report and its runtime
REPORT = pytest.StashKey[RunReport]()  # the controller's report, the run's (not on xdist workers)
BASELINE = pytest.StashKey[Baseline | None]()
COMMAND_LINE = pytest.StashKey[Any]()  # the command line's CommandLineRun (conformance.pytest.control)
COLLECTED = pytest.StashKey[set[str]]()  # every case id collected, before -k / -m deselect any
CREATED = pytest.StashKey[bool]()  # this run made its report folder
NOTHING_SELECTED = pytest.StashKey[bool]()
INTERRUPTED = pytest.StashKey[bool]()
SIGNALS = pytest.StashKey[dict[int, Any]]()  # the handlers this run replaced, to restore


def strict(config: pytest.Config) -> bool:
    """--strict: SHOULD findings and robustness findings fail the run."""
    return bool(config.getoption("conformance_strict") or getattr(config.option, "strict", False))
