"""What a campaign worker has done so far, for the campaign's live progress and its report.

Off unless the environment names a file (CONFORMANCE_PROGRESS, set by the campaign for each
worker's runs): the Hypothesis runs then count their examples per case, and the sequence drivers
the transitions they take between model states (the states are derived from them: states_of). The file is rewritten whole
(atomically) at most every half second, and once more when the process ends.
"""

from __future__ import annotations

import atexit
import json
import os
import threading
import time
from collections import Counter
from pathlib import Path

__all__ = ["ENV", "example", "flush", "states_of", "transition"]

ENV = "CONFORMANCE_PROGRESS"
_INTERVAL = 0.5


class _Progress:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.lock = threading.Lock()
        self.examples: Counter[str] = Counter()
        self.transitions: Counter[str] = Counter()
        self.written = 0.0
        self.started = time.time()

    def touch(self) -> None:
        if time.monotonic() - self.written >= _INTERVAL:
            self.write()

    def write(self) -> None:
        with self.lock:
            self.written = time.monotonic()
            data = {
                "pid": os.getpid(),
                "started": self.started,
                "at": time.time(),
                "examples": dict(self.examples),
                "transitions": dict(self.transitions),
            }
        partial = self.path.with_name(f".{self.path.name}.{os.getpid()}")
        try:
            partial.write_text(json.dumps(data))
            partial.replace(self.path)
        except OSError:
            pass  # progress is for watching: a full disk must not fail the run


_current: _Progress | None = None


def _progress() -> _Progress | None:
    global _current
    if _current is None and os.environ.get(ENV):
        _current = _Progress(Path(os.environ[ENV]))
        atexit.register(_current.write)
    return _current


def example() -> None:
    """One more example of the running case ran."""
    progress = _progress()
    if progress is not None:
        from conformance.core.examples_db import running_case

        with progress.lock:
            progress.examples[running_case() or "?"] += 1
        progress.touch()


def transition(model: str, before: str, op: str, after: str) -> None:
    """A step of ``model`` (acp, mcp) went from state ``before`` to ``after`` by ``op``."""
    progress = _progress()
    if progress is not None:
        with progress.lock:
            progress.transitions[f"{model}:{before} --{op}--> {after}"] += 1
        progress.touch()


def flush() -> None:
    progress = _progress()
    if progress is not None:
        progress.write()


def states_of(transitions: dict[str, int]) -> dict[str, int]:
    """The model states the transitions touch, each with the steps started in it."""
    states: dict[str, int] = {}
    for key, count in transitions.items():
        model, _, move = key.partition(":")
        before, _, after = move.partition(" --")
        states[f"{model}:{before}"] = states.get(f"{model}:{before}", 0) + count
        states.setdefault(f"{model}:{after.rpartition('--> ')[2]}", 0)
    return states
