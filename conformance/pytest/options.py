"""The plugin's command-line options: the run's own (conformance.core.options) and each target's
(its ``options``), in one group per target of pytest --help. The command line builds its options
from the same tables (conformance/cli.py)."""

from __future__ import annotations

import pytest

from conformance.core.options import run_options
from conformance.targets import TARGETS

__all__ = ["pytest_addoption"]


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("session-status-conformance", "session status conformance (every target)")
    for option in run_options(tuple(t.name for t in TARGETS)):
        group.addoption(option.under_pytest, **option.keywords())
    for target in TARGETS:
        group = parser.getgroup(f"session-status-conformance-{target.name}", target.option_group)
        for option in target.options:
            group.addoption(option.under_pytest, **option.keywords())
