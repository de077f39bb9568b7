"""What the command line asks of a run it starts in-process, and what the run tells it back. The
command line passes one to ``pytest.main(argv, plugins=[run])``; the plugin finds it among the
run's plugins (a run started by pytest itself gets a default one). Nothing here is module-wide:
each run has its own."""

from __future__ import annotations

import gc
from dataclasses import dataclass, field
from typing import Any

import pytest

from conformance.pytest.keys import COMMAND_LINE

__all__ = ["CommandLineRun", "command_line_of"]


@dataclass(eq=False)  # a plugin: pytest keeps its plugins in sets, by identity
class CommandLineRun:
    one_line_endings: bool = False  # the command line prints the ending itself
    # For people who are not pytest users: one line per case, its id and its outcome (pytest runs
    # quietly: no header, no file paths, no short summary).
    line_per_case: bool = False
    # What the run decided: "verdict", "exit_code", "line", "report", "next", or "message" (why
    # it stopped: a usage error, an interrupt with its partial report).
    last: dict[str, Any] = field(default_factory=dict)

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        """The command line's process ends with its run: what its imports and collection built
        lives as long, and is left out of the collector's full passes (a third of their time in a
        default run); what the cases make is collected as before."""
        gc.freeze()


def command_line_of(config: pytest.Config) -> CommandLineRun:
    """The command line's request for this run (in the stash once found)."""
    run = config.stash.get(COMMAND_LINE, None)
    if run is None:
        found = [p for p in config.pluginmanager.get_plugins() if isinstance(p, CommandLineRun)]
        run = config.stash[COMMAND_LINE] = found[0] if found else CommandLineRun()
    return run
